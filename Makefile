# eqf — every target builds with the pinned toolchain and SIMD on.
#
# The machine's Go may be older and set GOTOOLCHAIN=local: exporting GOTOOLCHAIN here makes the
# go command download go1.27.3 through the module proxy on first use. GOEXPERIMENT=simd is
# required: without it the pure-Go backend's matrix products are ~25x slower (tests fail and the
# library warns in a build without it).
export GOTOOLCHAIN := go1.27.3
export GOEXPERIMENT := simd
GO ?= go

.PHONY: all test vet fmt-check demo bench bench-matmul bench-peer peer-deps compare echarts browser

all: test

## test: vet, gofmt check and every test (race detector off, -short off)
test: vet fmt-check echarts browser
	$(GO) test -count=1 ./...

## echarts: the echarts script the interactive figures inline, from the npm registry (not
## committed; pages never fetch it from a CDN). Installs Debian's npm when missing.
ECHARTS_VERSION := 5.5.1
ECHARTS_JS := plots/assets/echarts.min.js
echarts: $(ECHARTS_JS)
$(ECHARTS_JS):
	@command -v npm >/dev/null || { SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq npm; }
	@mkdir -p plots/assets
	@tmp=$$(mktemp -d) && (cd $$tmp && npm pack --silent echarts@$(ECHARTS_VERSION) >/dev/null) && \
	  tar -xzf $$tmp/echarts-$(ECHARTS_VERSION).tgz -C $$tmp package/dist/echarts.min.js && \
	  mv $$tmp/package/dist/echarts.min.js $@.tmp && mv $@.tmp $@ && rm -rf $$tmp
	@echo "echarts $(ECHARTS_VERSION) -> $@"

## browser: Debian's chromium, for the test that screenshots an echarts page headless
browser:
	@command -v chromium >/dev/null || { SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$($$($(GO) env GOROOT)/bin/gofmt -l $$(git ls-files '*.go' | grep -v -e '^symbols/github_com-' -e '/_test/'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

## demo: train EqF + h_ω (small preset) on the maze world and roll out a video into out/demo
demo:
	$(GO) run ./kernel/cmd/eqf demo

## bench: every benchmark of the library
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./eqflib/

## bench-matmul: BenchmarkMatMul512 with and without GOEXPERIMENT=simd, in one run
bench-matmul:
	@echo "== GOEXPERIMENT=simd"
	$(GO) test -count=1 -run '^$$' -bench MatMul512 -benchtime 20x ./eqflib/
	@echo "== GOEXPERIMENT= (no SIMD)"
	GOEXPERIMENT= $(GO) test -count=1 -run '^$$' -bench MatMul512 -benchtime 5x ./eqflib/

## bench-peer: BenchmarkTrainStep/SampleStep against the PyTorch peer (same DiT, same shapes),
## measured in one run and printed as ratios. Installs Debian's python3-torch and OpenBLAS.
PEER_PY := /usr/bin/python3
bench-peer: peer-deps
	$(GO) test -count=1 -run '^$$' -bench 'TrainStep|SampleStep' -benchtime 20x ./eqflib/ | tee out/bench-go.txt
	$(PEER_PY) bench/torch_peer.py out/bench-go.txt

peer-deps:
	@mkdir -p out
	@$(PEER_PY) -c 'import torch' 2>/dev/null && dpkg -s libopenblas0-openmp >/dev/null 2>&1 || \
	  { SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-torch libopenblas0-openmp; }

## compare: FM vs EqF rolling rollouts (100 frames) scored by FVD in maze-I3D features and NFE.
## Needs out/demo (make demo); trains the small FM model and the action net when missing.
compare:
	@test -f out/demo/stats.json || { echo "run make demo first (the EqF model and h_ω)"; exit 1; }
	@test -n "$$(ls out/fm-small/ckpt-*.eqf 2>/dev/null)" || $(GO) run ./kernel/cmd/eqf train -preset small -objective fm \
	  -steps 1200 -out out/fm-small -ckpt-every 400 -eval-every 200 -set lr=2e-3 -set ema=0.995
	$(GO) run ./kernel/cmd/eqf compare
