#!/usr/bin/env bash
# scripts/gpu-zoo.sh: one timed GPU session of measurements (docs/gpu.md, "What has run on a GPU");
# the whole reproduction in resumable steps is scripts/gpu-repro.sh.
# Run on a machine with an NVIDIA GPU and jax's CUDA PJRT plugin, from the repository root, with
# bin/eqf-xla.gz and bin/eqflib-xla.test.gz built here by `make gpu-bins` (Go is not needed there).
# STAGES (default "paperstep models") picks what runs, in order:
#   gpucheck        XLA against the Go backend, float32 (TF32 off) and bfloat16: gpucheck.txt
#   paperstep       the paper preset's sampling and training steps in float32 (TF32): paperstep.txt
#   paperstep-bf16  the same with EQF_PRECISION=bfloat16: paperstep-bf16.txt
#   models          the zoo of $RECIPE trained on the GPU: models.log, models/ (cards, checkpoints,
#                   histories), models-list.txt
#   seeds           the models $SEED_MODELS (default "fm eqf gphi") of training seeds 1…$SEEDS
#                   (default 3) of $RECIPE into out/models, one process per model and seed, all at
#                   once after the shared action net (small models leave the GPU mostly idle);
#                   bounded by MODELS_S; cards and logs in seeds.tgz
#   paper           `eqf paper -train-seeds $SEEDS -seeds $EVAL_SEEDS $EXPERIMENTS` on out/models,
#                   bounded by PAPER_S; results in paper.tgz (with out/paper/.rollouts: a later
#                   call with the same bin/eqf-xla.gz and that folder carried back resumes the
#                   experiments where PAPER_S stopped them, about 2 MB a rollout)
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
SEEDS=${SEEDS:-3}
run_seeds() {
	"$bin/eqf" models -recipe "$RECIPE" action-net > "$OUT/seeds-action-net.log" 2>&1 || return 1
	local k m pids=()
	for k in $(seq 1 "$SEEDS"); do
		for m in ${SEED_MODELS:-fm eqf gphi}; do
			timeout -s TERM "$MODELS_S" "$bin/eqf" models -recipe "$RECIPE" -seed "$k" "$m" > "/tmp/seeds-$m-$k.log" 2>&1 &
			pids+=($!)
		done
	done
	wait "${pids[@]}"
	"$bin/eqf" models -recipe "$RECIPE" -seeds "$SEEDS" -list > /tmp/seeds-list.txt 2>&1
	local zdir=out/models
	[ "$RECIPE" = paper ] || zdir=out/models-$RECIPE
	tar czf "$OUT/seeds.tgz" -C /tmp $(cd /tmp && ls seeds-*) -C "$PWD" $(find "$zdir" -name card.json -o -name history.csv | sort)
	cat /tmp/seeds-list.txt
}
run_paper() {
	timeout -s TERM "${PAPER_S:-150}" "$bin/eqf" paper ${PAPER_FLAGS:-} -train-seeds "$SEEDS" -seeds "${EVAL_SEEDS:-1}" -out out/paper $EXPERIMENTS > /tmp/paper.log 2>&1
	tar czf "$OUT/paper.tgz" -C /tmp paper.log -C "$PWD" out/paper
	tail -30 /tmp/paper.log
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
	seeds) stage seeds run_seeds ;;
	paper) stage paper run_paper ;;
	*) echo "unknown stage $s (gpucheck, paperstep, paperstep-bf16, models, seeds, paper)" >&2 ;;
	esac
done
cat "$OUT/times.txt"
