#!/usr/bin/env bash
# scripts/gpu-zoo.sh: one timed GPU session for issue "the whole reproduction on one GPU".
# Run on a machine with an NVIDIA GPU and jax's CUDA PJRT plugin, from the repository root, with
# bin/eqf-xla.gz and bin/eqflib-xla.test.gz built here by `make gpu-bins` (Go is not needed there).
# STAGES (default "paperstep models") picks what runs, in order:
#   gpucheck        XLA against the Go backend, float32 (TF32 off) and bfloat16: gpucheck.txt
#   paperstep       the paper preset's sampling and training steps in float32 (TF32): paperstep.txt
#   paperstep-bf16  the same with EQF_PRECISION=bfloat16: paperstep-bf16.txt
#   models          the zoo of $RECIPE trained on the GPU: models.log, models/ (cards, checkpoints,
#                   histories), models-list.txt
# It writes under $OUT (default out/gpu), with gpu.txt (the card) and times.txt (wall seconds of
# each stage). MODELS_S bounds the zoo stage; it stops cleanly on SIGTERM (the model in training
# saves a checkpoint) and the same command resumes it.
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
run_gpucheck() {
	(cd eqflib && GOMLX_BACKEND=xla:cuda,tf32=false timeout 240 "$bin/eqflib.test" -test.run 'TestGPUCheck$' -test.v) > "$OUT/gpucheck.txt" 2>&1
}
run_paperstep() { # run_paperstep FILE [VAR=VALUE...]
	local file=$1
	shift
	(cd eqflib && env "$@" EQF_PAPER_STEP=1 EQF_PAPER_TRAIN=${EQF_PAPER_TRAIN:-none} EQF_PAPER_REPS=10 \
		timeout 180 "$bin/eqflib.test" -test.run 'TestPaperPresetStep$' -test.v) > "$OUT/$file" 2>&1
}
run_models() {
	timeout -s TERM "$MODELS_S" "$bin/eqf" models -recipe "$RECIPE" -dir "$OUT/models" > "$OUT/models.log" 2>&1
}
for s in ${STAGES:-paperstep models}; do
	case $s in
	gpucheck) stage gpucheck run_gpucheck && tail -40 "$OUT/gpucheck.txt" ;;
	paperstep) stage paperstep run_paperstep paperstep.txt EQF_PRECISION=float32 && tail -4 "$OUT/paperstep.txt" ;;
	paperstep-bf16) stage paperstep-bf16 run_paperstep paperstep-bf16.txt EQF_PRECISION=bfloat16 && tail -4 "$OUT/paperstep-bf16.txt" ;;
	models)
		stage models run_models
		"$bin/eqf" models -recipe "$RECIPE" -dir "$OUT/models" -list > "$OUT/models-list.txt" 2>&1
		tail -15 "$OUT/models-list.txt"
		;;
	*) echo "unknown stage $s (gpucheck, paperstep, paperstep-bf16, models)" >&2 ;;
	esac
done
cat "$OUT/times.txt"
