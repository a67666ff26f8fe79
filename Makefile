# eqf — every target builds with the pinned toolchain and SIMD on.
#
# The machine's Go may be older and set GOTOOLCHAIN=local: exporting GOTOOLCHAIN here makes the
# go command download go1.27.3 through the module proxy on first use. GOEXPERIMENT=simd is
# required: without it the pure-Go backend's matrix products are ~25x slower (tests fail and the
# library warns in a build without it).
export GOTOOLCHAIN := go1.27.3
export GOEXPERIMENT := simd
GO ?= go

.PHONY: all test vet fmt-check demo models bench bench-matmul bench-peer peer-deps compare echarts browser \
	lint symbols symbols-check jupyter-deps gonb kernel jupyter test-notebooks repl test-xla gpu-check gpu-bins gpu-repro test-gpu-repro soak

all: test

## test: vet, gofmt check, staticcheck (lint), the symbol tables' regeneration check, every test
## (-short off), the REPL session, concurrent sampling from one DiT (executor caches, the backend)
## and concurrent scoring against one set of clips (zoo's kept real side) under the race detector,
## the XLA build's checks, then the quickstart notebook executed headless on the "Go (eqf)" kernel
## and the notebook server's loopback and token checks. The Go backend's SIMD assembly trips -race's
## pointer checks (checkptr), which are therefore off for these runs (the REPL corpus trains a DiT
## for a few steps). eqflib's tests take 5–9 minutes alone on two cores, close to go test's default
## 10-minute limit per package, and more on a busy machine: the limit is 20 minutes, still short of
## the half hour make test is kept under.
test: vet fmt-check lint symbols-check echarts browser
	$(GO) test -count=1 -timeout 20m ./...
	$(GO) test -count=1 -race -gcflags=all=-d=checkptr=0 ./kernel/repl/
	$(GO) test -count=1 -race -gcflags=all=-d=checkptr=0 -run 'TestConcurrent|TestScoreKeepsRealSide' ./eqflib/ ./zoo/
	$(MAKE) --no-print-directory test-xla
	$(MAKE) --no-print-directory test-gpu-repro
	$(MAKE) --no-print-directory test-notebooks

## test-xla: the default build stays pure Go (no cgo, no go-xla linked); the `-tags xla` build
## (cgo, gcc) compiles, and on a machine without a GPU asking for xla:cuda is a clear error
## (no panic, no download) while GOMLX_BACKEND=auto falls back to the Go backend.
test-xla:
	CGO_ENABLED=0 $(GO) build ./...
	@if CGO_ENABLED=0 $(GO) list -deps ./... | grep -q '^github.com/gomlx/go-xla'; then \
	  echo "the default build links go-xla: only eqflib/backend_xla.go (build tag xla) may import it"; exit 1; fi
	CGO_ENABLED=1 $(GO) vet -tags xla ./eqflib/
	CGO_ENABLED=1 $(GO) test -count=1 -tags xla -run 'TestBackend|TestXLA|TestDataParallel' ./eqflib/

## gpu-check: build bin/eqflib-xla.test, a self-contained test binary (no Go needed to run it) to
## copy to a machine with an NVIDIA GPU and jax's CUDA plugin (README "Running on a GPU"). There:
##   GOMLX_BACKEND=xla:cuda,tf32=false ./eqflib-xla.test -test.run GPUCheck -test.v
## compares one train step and one sample step with the Go backend and prints ms/step;
##   GOMLX_BACKEND=xla:cuda EQF_PAPER_STEP=1 ./eqflib-xla.test -test.run PaperPresetStep -test.v
## times the paper preset (50-frame sampling step, a training step).
gpu-check:
	@mkdir -p bin
	CGO_ENABLED=1 $(GO) test -c -tags xla -ldflags='-s -w' -o bin/eqflib-xla.test ./eqflib/
	@echo "bin/eqflib-xla.test: copy it to the GPU machine and run"
	@echo "  GOMLX_BACKEND=xla:cuda,tf32=false ./eqflib-xla.test -test.run GPUCheck -test.v"

## gpu-bins: bin/eqf-xla.gz and bin/eqflib-xla.test.gz, the eqf command and the eqflib tests built
## with the XLA backend, gzipped to travel to a GPU machine; there scripts/gpu-zoo.sh times the
## paper preset's sampling step and trains the zoo (docs/gpu.md has what it measured).
gpu-bins: gpu-check
	CGO_ENABLED=1 $(GO) build -tags xla -ldflags='-s -w' -o bin/eqf-xla ./kernel/cmd/eqf
	gzip -kf bin/eqf-xla bin/eqflib-xla.test

## gpu-repro: the whole reproduction on a GPU machine (scripts/gpu-repro.sh): the paper recipe's
## zoo for training seeds 1…SEEDS (default 3 here), then the command of every committed paper-recipe
## result (results/commands.txt), in calls of at most STEP_S seconds (540) that resume; collects
## repro.tgz, times.txt and status.txt into $$OUT (out/gpu-repro/collect). Needs bin/eqf-xla.gz
## (make gpu-bins, where Go is: gpu-repro itself needs neither Go nor a build) and
## plots/assets/echarts.min.js (make echarts). docs/gpu.md has the steps and how to compare.
## RECIPE, MODELS, EXPERIMENTS: a part of it, e.g. RECIPE=paper-70k MODELS="fm eqf"
## EXPERIMENTS=minecraft_main (the paper recipe's FM and EqF trained for 70,000 steps);
## TRAIN_SEED=K: one training seed's models and pooled experiments, for `eqf paper pool`.
gpu-repro:
	$(foreach v,SEEDS TRAIN_SEED RECIPE MODELS EXPERIMENTS,$(if $(filter command line environment,$(origin $(v))),$(v)="$($(v))")) scripts/gpu-repro.sh

## test-gpu-repro: gpu-repro's steps rehearsed on the CPU with the quick zoo and `eqf paper
## -quick` (three calls of a few seconds' budget, then one to the end), then its collection and
## `eqf paper compare` on what it collected, the queue of a part (RECIPE, MODELS, EXPERIMENTS),
## ACTION_NET (a carried action net used instead of training one; another one refused; a
## paper-recipe call, in a scratch root, takes the committed zoo/action-net by default), and
## TRAIN_SEED (one seed's run, pooled with the first rehearsal's seed 1 by `eqf paper pool`).
test-gpu-repro: echarts
	@mkdir -p bin
	$(GO) build -o bin/eqf ./kernel/cmd/eqf
	rm -rf out/gpu-repro out/paper-quick
	for step in 25 25 25 600; do QUICK=1 SEEDS=1 JOBS=2 STEP_S=$$step GOMLX_BACKEND=go EQF_BIN=bin/eqf scripts/gpu-repro.sh | tail -2; done
	grep -qx complete out/gpu-repro/collect/status.txt
	test "$$(tar tzf out/gpu-repro/collect/repro.tgz | grep -c 'out/paper-quick/[a-z_]*/results.json')" = "$$(grep -v '^#' results/commands.txt | grep -vc -- -recipe)"
	bin/eqf paper compare results out/paper-quick | head -3
	rm -rf out/gpu-repro/root && mkdir -p out/gpu-repro/root/out/gpu-repro && cp -r out/gpu-repro/done out/gpu-repro/root/out/gpu-repro/
	for d in results zoo plots scripts; do ln -s $(CURDIR)/$$d out/gpu-repro/root/$$d; done
	cd out/gpu-repro/root && EQF_ROOT=$$PWD STEP_S=5 SEEDS=1 GOMLX_BACKEND=go EQF_BIN=$(CURDIR)/bin/eqf scripts/gpu-repro.sh | grep 'experiments done: 0 of'
	cmp zoo/action-net/action-net.eqf out/gpu-repro/root/out/models/action-net/action-net.eqf
	rm -rf out/gpu-repro/an* && mv out/models-quick/action-net out/gpu-repro/an
	QUICK=1 SEEDS=1 STEP_S=5 GOMLX_BACKEND=go EQF_BIN=bin/eqf ACTION_NET=out/gpu-repro/an scripts/gpu-repro.sh | tail -1
	cmp out/gpu-repro/an/action-net.eqf out/models-quick/action-net/action-net.eqf
	bin/eqf models -recipe quick -list | grep '^action-net ' | grep -qv 'not trained'
	cp -r out/gpu-repro/an out/gpu-repro/an2 && printf x >> out/gpu-repro/an2/action-net.eqf
	QUICK=1 STEP_S=5 GOMLX_BACKEND=go EQF_BIN=bin/eqf ACTION_NET=out/gpu-repro/an2 scripts/gpu-repro.sh 2>&1 | grep 'has another action net'
	test "$$(RECIPE=paper-70k MODELS='fm eqf' EXPERIMENTS=minecraft_main scripts/gpu-repro.sh --queue)" = \
	  "minecraft_main minecraft_main-paper-70k -recipe paper-70k -models fm,eqf -train-seeds 3 -seeds 1 -stride 0,1"
	test "$$(TRAIN_SEED=3 RECIPE=paper-70k MODELS='fm eqf' EXPERIMENTS=minecraft_main scripts/gpu-repro.sh --queue)" = \
	  "minecraft_main minecraft_main-paper-70k -recipe paper-70k -models fm,eqf -train-seed 3 -seeds 1 -stride 0,1"
	TRAIN_SEED=2 EXPERIMENTS=bowls scripts/gpu-repro.sh --queue 2>&1 | grep -q 'must be one of minecraft_main minecraft_inference_expts'
	rm -rf out/paper-quick-seed-2 out/gpu-repro/pooled
	QUICK=1 TRAIN_SEED=2 JOBS=2 STEP_S=600 GOMLX_BACKEND=go EQF_BIN=bin/eqf scripts/gpu-repro.sh | tail -2
	grep -qx complete out/gpu-repro/collect/status.txt
	bin/eqf paper -out out/gpu-repro/pooled pool out/paper-quick/minecraft_main out/paper-quick-seed-2/minecraft_main | grep 'training seeds 1 2 pooled'

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

## lint: staticcheck (pinned; `go run` fetches it through the module proxy) on the default build,
## the XLA build and the notebook kernel's; staticcheck.conf allows the dot import of GoMLX's
## graph package (the graph files' idiom), symbols/staticcheck.conf the generated tables'
## deprecated names.
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint:
	$(STATICCHECK) ./...
	CGO_ENABLED=1 $(STATICCHECK) -tags xla ./eqflib/
	$(STATICCHECK) -tags notebook ./kernel/jupyter/

fmt-check:
	@out="$$($$($(GO) env GOROOT)/bin/gofmt -l $$(git ls-files '*.go' | grep -v -e '^symbols/github_com-' -e '/_test/'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

## demo: train EqF + h_ω and the action net (the "demo" recipe, ≤ 10 minutes on 2 cores) on the
## maze world, roll out action-conditioned videos into out/demo and print their action agreement
demo:
	$(GO) run ./kernel/cmd/eqf demo

## models: the model zoo every experiment and notebook loads (out/models, the paper recipe;
## about 30 minutes per training seed on 2 cores): FM, EqF (+h_ω), EqM (+h_ω), Diffusion, g_φ,
## the FM → EqF finetune, and the action net they share. SEEDS=3 trains training seeds 1…3 (the
## experiments then report intervals over them). Skips what is trained, resumes what was
## interrupted. QUICK=1: tiny models in out/models-quick; ZOO_RECIPE=cpu: the guided zoo.
ZOO_RECIPE ?= $(if $(QUICK),quick,paper)
SEEDS ?= 1
ZOO_DIR := out/models$(if $(filter-out paper,$(ZOO_RECIPE)),-$(ZOO_RECIPE))
models:
	$(GO) run ./kernel/cmd/eqf models -recipe $(ZOO_RECIPE) -seeds $(SEEDS)

## soak: kill -9 eqf train (tiny preset, a checkpoint every 2 steps) at random moments and
## resume, SOAK_TRIALS times (default 25); prints "N trials, 0 corrupt, max steps lost K"
SOAK_TRIALS ?= 25
soak:
	EQF_SOAK=$(SOAK_TRIALS) $(GO) test -count=1 -run '^TestSoak$$' -v -timeout 30m ./kernel/cmd/eqf/ | grep -E 'trials|FAIL|Error|--- '

## bench: every benchmark of the library
bench:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./eqflib/

## bench-matmul: BenchmarkMatMul512 with and without GOEXPERIMENT=simd, in one run
bench-matmul:
	@echo "== GOEXPERIMENT=simd"
	$(GO) test -count=1 -run '^$$' -bench MatMul512 -benchtime 20x ./eqflib/
	@echo "== GOEXPERIMENT= (no SIMD)"
	GOEXPERIMENT= $(GO) test -count=1 -run '^$$' -bench MatMul512 -benchtime 5x ./eqflib/

## bench-peer: eqflib's step benchmarks (train tiny/small/medium, sample tiny/small/medium/paper,
## a closed-loop NAG rollout step, the 1024³ matmul) beside the PyTorch peer of the same DiT
## (bench/torch_peer.py), interleaved in one run by bench/peer: medians with ranges, ratios,
## GFLOP/s, share of the matmul rate, peak memory. BENCH_REPS repeats (default 5), BENCH_ROWS a
## row filter, PEER_CORE the peer's OpenBLAS kernel set (default: the fastest on this processor).
## Installs Debian's python3-torch and OpenBLAS.
PEER_PY := /usr/bin/python3
BENCH_REPS ?= 5
BENCH_ROWS ?=
bench-peer: peer-deps
	$(GO) run ./bench/peer -reps $(BENCH_REPS) -rows '$(BENCH_ROWS)' -py $(PEER_PY) $(if $(PEER_CORE),-peer-core $(PEER_CORE)) | tee out/bench-peer.md

peer-deps:
	@mkdir -p out
	@$(PEER_PY) -c 'import torch' 2>/dev/null && dpkg -s libopenblas0-openmp >/dev/null 2>&1 || \
	  { SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-torch libopenblas0-openmp; }

## compare: FM vs EqF rolling rollouts (100 frames) of the zoo's models scored by FVD in maze-I3D
## features and NFE (builds the zoo's fm, eqf and action-net first when missing)
compare: echarts
	$(GO) run ./kernel/cmd/eqf models -recipe $(ZOO_RECIPE) action-net fm eqf
	$(GO) run ./kernel/cmd/eqf compare -fm $(ZOO_DIR)/fm -eqf $(ZOO_DIR)/eqf \
	  -features $(ZOO_DIR)/action-net/action-net.eqf

## ---- the kernel: yaegi symbols, the REPL, Jupyter on GoNB ----

## symbols: regenerate the yaegi symbol tables (go generate ./symbols, yaegi extract v0.16.1)
symbols:
	$(GO) generate ./symbols

## symbols-check: regenerate into a temporary folder and fail when the committed tables differ
symbols-check:
	@tmp=$$(mktemp -d symbols/.regen.XXXXXX) && sh symbols/extract.sh $$tmp && ok=1 && \
	for f in $$tmp/*.go; do cmp -s $$f symbols/$${f##*/} || { echo "symbols/$${f##*/} differs from what go generate ./symbols writes"; ok=0; }; done; \
	for f in symbols/github_com-*.go; do test -f $$tmp/$${f##*/} || { echo "$$f is no longer generated"; ok=0; }; done; \
	rm -rf $$tmp; test $$ok = 1 || { echo "run: make symbols"; exit 1; }

## repl: the interactive eqf REPL (yaegi) with eqflib, data, plots and GoMLX preloaded
repl:
	$(GO) run ./kernel/cmd/eqf repl

# Debian's Jupyter runs under the system Python, whatever python3 is first on PATH. `make kernel`
# registers "Go (eqf)" with the Jupyter first on PATH (pip, conda, JupyterLab, Homebrew) in its
# own data folder, and installs Debian's only when there is no jupyter at all; the notebook
# tests always run on Debian's (they need nbclient under the system Python).
PY := /usr/bin/python3
JUPYTER := /usr/bin/jupyter
USER_JUPYTER := $(shell command -v jupyter 2>/dev/null)
BIN := $(CURDIR)/bin
JUPYTER_DATA_DIR ?= $(or $(if $(USER_JUPYTER),$(shell $(USER_JUPYTER) --data-dir 2>/dev/null)),$(HOME)/.local/share/jupyter)
JUPYTER_PORT ?= 8888

## jupyter-deps: Debian's Jupyter (notebook, nbconvert, nbclient, ipykernel) when missing
jupyter-deps:
	@$(PY) -c 'import notebook, nbconvert, nbclient, nbformat, ipykernel' 2>/dev/null && test -x $(JUPYTER) || \
	  { SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends \
	      jupyter-notebook jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client; }

## gonb: GoNB v0.11.5, goimports and gopls (pinned in kernel/jupyter/tools/go.mod) into bin/
gonb: $(BIN)/gonb
$(BIN)/gonb: kernel/jupyter/tools/go.mod kernel/jupyter/tools/go.sum
	cd kernel/jupyter/tools && GOBIN=$(BIN) $(GO) install tool
	@touch $@

## kernel: register the Jupyter kernel "Go (eqf)" in $(JUPYTER_DATA_DIR) (the data folder of the
## jupyter first on PATH; Debian's Jupyter is installed only when there is none)
kernel: $(if $(USER_JUPYTER),,jupyter-deps) gonb
	@sh kernel/jupyter/kernel.sh "$(JUPYTER_DATA_DIR)" "$(BIN)" "$(CURDIR)"

## jupyter: everything above, then the notebook server on localhost (token printed) in notebooks/
jupyter: kernel echarts
	sh kernel/jupyter/serve.sh $(or $(USER_JUPYTER),$(JUPYTER)) "$(JUPYTER_DATA_DIR)" $(JUPYTER_PORT) "$(CURDIR)/notebooks"

## test-notebooks: execute every notebook headless on the eqf kernel (quick mode) and check outputs;
## start the notebook server as `make jupyter` does and check it is loopback-only and needs its token
test-notebooks: jupyter-deps gonb echarts
	EQF_GONB_BIN=$(BIN) $(GO) test -count=1 -timeout 30m -tags notebook ./kernel/jupyter/
