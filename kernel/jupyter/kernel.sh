#!/bin/sh
# kernel.sh DATA_DIR BIN_DIR ROOT — writes the Jupyter kernel spec "Go (eqf)" (name: eqf) into
# DATA_DIR/kernels/eqf. BIN_DIR holds gonb, goimports and gopls (built by `make gonb`); ROOT is
# the eqf checkout the notebooks import. Cells then build with the pinned toolchain and SIMD,
# and every new notebook starts with a go.work that uses ROOT (gonb -go_work).
set -e
data=$1 bin=$2 root=$3
[ -n "$data" ] && [ -x "$bin/gonb" ] && [ -f "$root/go.mod" ] || {
	echo "usage: kernel.sh DATA_DIR BIN_DIR ROOT (BIN_DIR/gonb must exist, ROOT must hold go.mod)" >&2
	exit 2
}
spec="$data/kernels/eqf"
mkdir -p "$spec"
cat > "$spec/kernel.json.tmp" <<JSON
{
  "argv": ["$bin/gonb", "--kernel", "{connection_file}", "--logtostderr", "--go_work=$root"],
  "display_name": "Go (eqf)",
  "language": "go",
  "interrupt_mode": "message",
  "env": {
    "GOTOOLCHAIN": "go1.27.3",
    "GOEXPERIMENT": "simd",
    "GOMLX_BACKEND": "go:parallelism=-1",
    "EQF_ROOT": "$root",
    "PATH": "$bin:$(dirname "$(command -v go)"):\${PATH}"
  }
}
JSON
mv "$spec/kernel.json.tmp" "$spec/kernel.json"
echo "kernel \"Go (eqf)\" -> $spec/kernel.json"
