#!/usr/bin/env bash
# scripts/gpu-zoo.sh: one timed GPU session for issue "the whole reproduction on one GPU".
# Run on a machine with an NVIDIA GPU and jax's CUDA PJRT plugin, from the repository root, with
# bin/eqf-xla.gz and bin/eqflib-xla.test.gz built here by `make gpu-bins` (Go is not needed there).
# It writes under $OUT (default out/gpu): gpu.txt (the card), paperstep.txt (the paper preset's
# sampling step), models.log and models/ (the zoo trained on the GPU: cards, checkpoints,
# histories), times.txt (wall seconds of each stage). MODELS_S bounds the zoo stage; it stops
# cleanly on SIGTERM (the model in training saves a checkpoint) and the same command resumes it.
set -u
OUT=${OUT:-out/gpu}
MODELS_S=${MODELS_S:-330}
RECIPE=${RECIPE:-cpu}
mkdir -p "$OUT"
bin=$(mktemp -d)
gunzip -c bin/eqf-xla.gz > "$bin/eqf" && gunzip -c bin/eqflib-xla.test.gz > "$bin/eqflib.test" || exit 2
chmod +x "$bin/eqf" "$bin/eqflib.test"
export GOMLX_BACKEND=${GOMLX_BACKEND:-xla:cuda} GOPJRT_CUDA_CHECKS=0
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
stage() { # stage NAME COMMAND...: run, time, record
	local name=$1 t0=$SECONDS rc
	shift
	"$@"
	rc=$?
	echo "$name rc=$rc wall_s=$((SECONDS - t0))" >> "$OUT/times.txt"
}
run_paperstep() {
	(cd eqflib && EQF_PAPER_STEP=1 EQF_PAPER_TRAIN=${EQF_PAPER_TRAIN:-none} EQF_PAPER_REPS=10 \
		timeout 150 "$bin/eqflib.test" -test.run 'TestPaperPresetStep$' -test.v) > "$OUT/paperstep.txt" 2>&1
}
run_models() {
	timeout -s TERM "$MODELS_S" "$bin/eqf" models -recipe "$RECIPE" -dir "$OUT/models" > "$OUT/models.log" 2>&1
}
stage paperstep run_paperstep
stage models run_models
"$bin/eqf" models -recipe "$RECIPE" -dir "$OUT/models" -list > "$OUT/models-list.txt" 2>&1
cat "$OUT/times.txt"; tail -3 "$OUT/paperstep.txt"; tail -15 "$OUT/models-list.txt"
