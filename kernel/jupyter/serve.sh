#!/bin/sh
# serve.sh JUPYTER DATA_DIR PORT NOTEBOOK_DIR — the notebook server of `make jupyter`: loopback
# only (127.0.0.1), with a token (Jupyter generates one and prints the URL that carries it, or
# takes $JUPYTER_TOKEN), serving NOTEBOOK_DIR on the "Go (eqf)" kernel registered in DATA_DIR.
# server_test.go starts this script and checks both.
set -e
jupyter=$1 data=$2 port=$3 dir=$4
[ -x "$jupyter" ] && [ -n "$data" ] && [ -n "$port" ] && [ -d "$dir" ] || {
	echo "usage: serve.sh JUPYTER DATA_DIR PORT NOTEBOOK_DIR" >&2
	exit 2
}
root=
[ "$(id -u)" = 0 ] && root=--allow-root
JUPYTER_DATA_DIR="$data" exec "$jupyter" notebook --no-browser --ip=127.0.0.1 --port="$port" \
	--port-retries=0 --notebook-dir="$dir" $root
