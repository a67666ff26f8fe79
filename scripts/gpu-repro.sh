#!/usr/bin/env bash
# scripts/gpu-repro.sh (`make gpu-repro`): the whole reproduction on a GPU machine, in steps.
#
# What runs: the paper recipe's zoo for training seeds 1…$SEEDS (what `make models SEEDS=3`
# trains: the action net, then FM, EqF (+h_ω), EqM (+h_ω), Diffusion, g_φ and the FM → EqF
# finetune of every seed, as separate processes side by side: these small models leave a GPU
# mostly idle, one process at a time), then the command of every committed paper-recipe result
# (results/commands.txt; sampling_runtime alone, since it times steps, the rest $JOBS at a time).
# Results go where they go on a CPU: out/models, out/paper/<experiment>/.
#
# Steps. A GPU machine lent to this project runs one command of at most ten minutes, so a call
# runs for at most $STEP_S seconds (default 540) and then stops every process cleanly (SIGTERM:
# a model in training saves a checkpoint, an experiment keeps the rollouts it finished in
# out/paper/.rollouts). The same command again resumes: trained models are skipped, an
# interrupted one resumes from its checkpoint, a finished experiment is skipped and an unfinished
# one reads its finished rollouts back (same binary, same zoo). On a machine that stays warm
# between calls out/ is still there; elsewhere, carry out/ to the next machine.
#
# Every call ends by collecting into $OUT (default out/gpu-repro/collect): repro.tgz (the
# cards and loss histories, each finished experiment's results.json, results.md, figures.json,
# PNGs and a run.txt saying where and how it ran, the logs; no checkpoints, rollouts or HTML
# pages), times.txt (wall seconds of every step and process) and status.txt ("complete", or what
# is left). Unpacked here, `eqf paper compare results out/paper` sets the GPU's numbers beside
# the committed ones (docs/gpu.md).
#
# Needs: bin/eqf-xla.gz (`make gpu-bins` where Go and gcc are; it needs neither Go nor make to
# run) and jax's CUDA PJRT plugin there (docs/gpu.md), and plots/assets/echarts.min.js
# (`make echarts`; not committed, so carry it) for the figures' HTML pages.
#
# Settings (environment): SEEDS (3), STEP_S (540), JOBS (8 processes at once), GOMLX_BACKEND
# (xla:cuda), EQF_BIN (an eqf binary instead of bin/eqf-xla.gz), OUT. QUICK=1 rehearses the
# steps on a CPU (GOMLX_BACKEND=go EQF_BIN=bin/eqf): the quick zoo and `eqf paper -quick`.
# Part of the reproduction, or another length of the paper recipe: RECIPE (paper; or another of
# the paper's recipes, e.g. paper-70k: its zoo in out/models-RECIPE, its results in
# out/paper/EXPERIMENT-RECIPE), MODELS (only these zoo models besides the action net, e.g.
# "fm eqf"; minecraft_main and fixed_compute_scaling then run only their methods), EXPERIMENTS
# (only these folders of results/commands.txt, e.g. minecraft_main). The 70,000-step
# minecraft_main of FM and EqF: RECIPE=paper-70k MODELS="fm eqf" EXPERIMENTS=minecraft_main.
# TRAIN_SEED: one training seed K in [1, 100] instead of 1…$SEEDS (a GPU lent for minutes): its
# models, and the experiments `eqf paper pool` pools (minecraft_main, minecraft_inference_expts)
# with -train-seed K into out/paper-seed-K (QUICK: out/paper-quick-seed-K), to pool with the
# results of the other seeds.
# ACTION_NET: the folder of a trained action net of the recipe (action-net.eqf, card.json, as
# out/models/action-net after `make models`), used instead of training one: FVD and action
# agreement are scored by the zoo's action net (FVD in its features), and XLA does not reproduce
# the CPU's weights, so a GPU run compared with the committed results scores in their features
# only with their action net. Default for the paper's recipes: zoo/action-net, the committed
# results' own (committed; its README); ACTION_NET= (empty) trains one instead. Copied into the
# zoo when it has none; an error when it has another.
set -u
SEEDS=${SEEDS:-3}
TRAIN_SEED=${TRAIN_SEED:-}
RECIPE=${RECIPE:-paper}
MODELS=${MODELS:-}
EXPERIMENTS=${EXPERIMENTS:-}
STEP_S=${STEP_S:-540}
JOBS=${JOBS:-8}
QUICK=${QUICK:-}
[ -z "$QUICK" ] && ACTION_NET=${ACTION_NET-zoo/action-net} # the committed results' features
work=out/gpu-repro
OUT=${OUT:-$work/collect}
export GOMLX_BACKEND=${GOMLX_BACKEND:-xla:cuda} GOPJRT_CUDA_CHECKS=0
case $RECIPE in paper | paper-*) ;; *) echo "gpu-repro: RECIPE=$RECIPE: must be one of the paper's recipes (paper, paper-8, paper-3.5k, paper-14k, paper-70k)" >&2; exit 2 ;; esac
for e in $EXPERIMENTS; do
	grep -q "^$e: " results/commands.txt || { echo "gpu-repro: EXPERIMENTS: $e is not a folder of results/commands.txt" >&2; exit 2; }
done
pooled="minecraft_main minecraft_inference_expts" # the experiments eqf paper pool pools
seeds="-seeds $SEEDS" seedsaid="training seeds 1 to $SEEDS" oneseed="-seeds $SEEDS -seed" # (oneseed K: a model of seed K)
if [ -n "$TRAIN_SEED" ]; then
	case $TRAIN_SEED in [1-9] | [1-9][0-9] | 100) ;; *) echo "gpu-repro: TRAIN_SEED=$TRAIN_SEED: must be a training seed in [1, 100]" >&2; exit 2 ;; esac
	for e in $EXPERIMENTS; do
		case " $pooled " in *" $e "*) ;; *) echo "gpu-repro: EXPERIMENTS: $e with TRAIN_SEED: must be one of $pooled (eqf paper pool pools their seeds)" >&2; exit 2 ;; esac
	done
	seeds="-seed $TRAIN_SEED" seedsaid="training seed $TRAIN_SEED" oneseed="-seed"
fi

# The experiments, with their committed results' flags (training seeds: $SEEDS; another recipe
# and $MODELS' backbones where set), each as "EXPERIMENT FOLDER FLAGS..."
experiments() {
	local line exp cmd flags dits
	dits=$(echo "$MODELS" | tr ' ' '\n' | grep -vx 'action-net\|gphi' | grep . | paste -sd, -)
	grep -v '^#' results/commands.txt | while IFS= read -r line; do
		exp=${line%%: *}
		cmd=${line#*: eqf paper }
		case $cmd in *-recipe*) continue ;; esac # other recipes' zoos are not the paper's
		[ -n "$EXPERIMENTS" ] && case " $EXPERIMENTS " in *" $exp "*) ;; *) continue ;; esac
		[ -n "$TRAIN_SEED" ] && case " $pooled " in *" $exp "*) ;; *) continue ;; esac
		flags=${cmd% *}
		[ "$flags" = "$cmd" ] && flags=
		if [ -n "$TRAIN_SEED" ]; then
			flags=$(echo "$flags" | sed "s/-train-seeds 3/-train-seed $TRAIN_SEED/")
		else
			flags=$(echo "$flags" | sed "s/-train-seeds 3/-train-seeds $SEEDS/")
		fi
		case $exp in minecraft_main | fixed_compute_scaling) [ -n "$dits" ] && flags="-models $dits $flags" ;; esac
		if [ -n "$QUICK" ]; then
			echo "$exp $exp -quick $flags"
		elif [ "$RECIPE" != paper ]; then
			echo "$exp $exp-$RECIPE -recipe $RECIPE $flags"
		else
			echo "$exp $exp $flags"
		fi
	done
}

# bash gpu-repro.sh --queue: the experiments a call would run, one "EXPERIMENT FOLDER FLAGS..."
# per line, and nothing else.
if [ "${1:-}" = --queue ]; then
	experiments
	exit 0
fi
end=$((SECONDS + STEP_S))
mkdir -p "$work/logs" "$work/done" "$OUT" || exit 2

if [ -n "${EQF_BIN:-}" ]; then
	eqf=$EQF_BIN
else
	[ -f bin/eqf-xla.gz ] || { echo "gpu-repro: bin/eqf-xla.gz is missing: run make gpu-bins where Go and gcc are, then carry bin/eqf-xla.gz" >&2; exit 2; }
	eqf=$work/eqf
	if [ ! -x "$eqf" ] || [ bin/eqf-xla.gz -nt "$eqf" ]; then
		gunzip -c bin/eqf-xla.gz > "$eqf.tmp" && chmod +x "$eqf.tmp" && mv "$eqf.tmp" "$eqf" || exit 2
	fi
fi
if [ -z "${EQF_ECHARTS_JS:-}" ]; then
	[ -f plots/assets/echarts.min.js ] || { echo "gpu-repro: plots/assets/echarts.min.js is missing: run make echarts and carry it" >&2; exit 2; }
	export EQF_ECHARTS_JS=$PWD/plots/assets/echarts.min.js
fi
sum=$(sha256sum "$eqf" | cut -c1-16) # a finished experiment counts as done for this binary and these flags only
recipe=$RECIPE zoo=out/models paperdir=out/paper
[ "$RECIPE" != paper ] && zoo=out/models-$RECIPE
[ -n "$QUICK" ] && recipe=quick zoo=out/models-quick paperdir=out/paper-quick
[ -n "$TRAIN_SEED" ] && paperdir=$paperdir-seed-$TRAIN_SEED
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
gpu=${gpu:-no GPU}

# bash gpu-repro.sh --paper EXPERIMENT FOLDER FLAGS...: one experiment (the pool below runs
# these) into $paperdir/FOLDER, then its run.txt and its mark in $work/done.
if [ "${1:-}" = --paper ]; then
	exp=$2 dir=$3
	shift 3
	t0=$SECONDS
	"$eqf" paper "$@" -out "$paperdir" "$exp" || exit
	printf '%s, %s (%s; eqf binary SHA-256 %s…): `eqf paper %s %s` by scripts/gpu-repro.sh (make gpu-repro), on the zoo it trained there%s (recipe %s, %s), finished in a call of %s s with up to %s experiments sharing the GPU (earlier calls of a resumed run: times.txt).\n' \
		"$(date -u +%F)" "$gpu" "$GOMLX_BACKEND" "$sum" "$*" "$exp" "${ACTION_NET:+ with the action net it was given (ACTION_NET=$ACTION_NET)}" "$recipe" "$seedsaid" "$((SECONDS - t0))" "$JOBS" > "$paperdir/$dir/run.txt"
	echo "$sum $exp $*" > "$work/done/$dir"
	exit 0
fi
# The carried action net, once per call (not in each experiment's --paper process).
if [ -n "${ACTION_NET:-}" ]; then
	[ -f "$ACTION_NET/action-net.eqf" ] && [ -f "$ACTION_NET/card.json" ] ||
		{ echo "gpu-repro: ACTION_NET=$ACTION_NET: not a trained action net: needs action-net.eqf and card.json there (out/models/action-net after make models)" >&2; exit 2; }
	if [ -f "$zoo/action-net/action-net.eqf" ]; then
		cmp -s "$ACTION_NET/action-net.eqf" "$zoo/action-net/action-net.eqf" ||
			{ echo "gpu-repro: ACTION_NET=$ACTION_NET: $zoo has another action net; remove $zoo/action-net to use this one" >&2; exit 2; }
	else # (a folder there without action-net.eqf is an unfinished training of one)
		mkdir -p "$zoo" && rm -rf "$zoo/action-net" "$zoo/action-net.tmp" && cp -r "$ACTION_NET" "$zoo/action-net.tmp" &&
			mv "$zoo/action-net.tmp" "$zoo/action-net" || exit 2
	fi
fi
echo "gpu-repro: $(date -u +%FT%TZ) on $gpu ($GOMLX_BACKEND), recipe $recipe, $seedsaid, $STEP_S s, $JOBS at a time${ACTION_NET:+, the action net of $ACTION_NET}" | tee -a "$work/times.txt"

left() { echo $((end - SECONDS)); }

# timed NAME COMMAND...: run COMMAND until the step's end, log it, record its wall time and status.
timed() {
	local name=$1 t0=$SECONDS rc
	shift
	if [ "$(left)" -lt 20 ]; then
		echo "$name not started (step over)" >> "$work/times.txt"
		return 124
	fi
	timeout -s TERM -k 30 "$(left)" "$@" > "$work/logs/$name.log" 2>&1
	rc=$?
	echo "$name rc=$rc wall_s=$((SECONDS - t0))" >> "$work/times.txt"
	return $rc
}

# pool: run the queued "NAME COMMAND..." lines, $JOBS at a time.
pool() {
	local line
	while IFS= read -r line; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
		# shellcheck disable=SC2086 # the line is a name and a command, split on blanks
		timed $line &
	done
	wait
}

# The zoo: the shared action net, then every model (of $MODELS) of every training seed at once.
list_models() {
	# shellcheck disable=SC2086 # $seeds is a flag and its value
	"$eqf" models -recipe "$recipe" $seeds -list > "$work/models-list.txt" 2>&1 ||
		{ cat "$work/models-list.txt" >&2; exit 2; }
}
# untrained_lines: the lines of every model (of $MODELS, and the action net) that the last
# list_models calls "not trained", with how far it has got (an interrupted one resumes from its
# checkpoint); untrained: their "MODEL SEED"
untrained_lines() {
	awk -v only=" $MODELS " '/not trained/ && (only == "  " || $1 == "action-net" || index(only, " " $1 " "))' "$work/models-list.txt"
}
untrained() { untrained_lines | awk '{print $1, $2}'; }
models_done() { [ -z "$(untrained)" ]; }
t0=$SECONDS
list_models
if [ -n "${ACTION_NET:-}" ] && untrained | grep -q '^action-net '; then
	echo "gpu-repro: ACTION_NET=$ACTION_NET: the zoo does not take it as recipe $recipe's action net (another configuration?): $(grep '^action-net' "$work/models-list.txt")" >&2
	exit 2
fi
if ! models_done; then
	timed models-action-net "$eqf" models -recipe "$recipe" action-net
	# fm-eqf waits for its seed's FM (the zoo's locks)
	untrained | grep -v '^action-net ' |
		while read -r m k; do echo "models-$m-$k $eqf models -recipe $recipe $oneseed $k $m"; done | pool
	list_models
fi
echo "models wall_s=$((SECONDS - t0))" >> "$work/times.txt"

longest_first="minecraft_inference_expts fixed_compute_scaling closed_open_nag abs_residual_and_fvd_over_time
minecraft_main fm_conditioning_ablation budget_adaptive planning_threshold adaptive_early_stopping mc_eq_finetune
unfinished_denoising bowls inpainting"
if models_done; then
	t0=$SECONDS
	queue=$(experiments | while read -r exp dir flags; do
		[ "$(cat "$work/done/$dir" 2>/dev/null)" = "$sum $exp $flags" ] && continue
		echo "paper-$dir bash $0 --paper $exp $dir $flags"
	done)
	# (a queued line: "paper-FOLDER bash SCRIPT --paper EXPERIMENT FOLDER FLAGS...")
	echo "$queue" | awk '$5 == "sampling_runtime"' | pool # alone: it times steps
	# the longest first (two CPU cores' hours, results/*/run.txt), so that the pool ends together
	echo "$queue" | awk '$5 != "sampling_runtime"' | grep . | awk -v order="$longest_first" '
		BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
		{ print ($5 in rank ? rank[$5] : n + 1), NR, $0 }' | sort -n -k1,1 -k2,2 | cut -d' ' -f3- | pool
	echo "paper wall_s=$((SECONDS - t0))" >> "$work/times.txt"
fi

# status and collection
total=0 done_n=0
while read -r exp dir flags; do
	total=$((total + 1))
	[ "$(cat "$work/done/$dir" 2>/dev/null)" = "$sum $exp $flags" ] && done_n=$((done_n + 1))
done < <(experiments)
if models_done && [ "$done_n" -ge "$total" ]; then
	status=complete
else
	untrained_lines | sed 's/^/gpu-repro: /' # a backbone's step, which the next call resumes from
	status="not complete: models not trained: $(untrained | wc -l); experiments done: $done_n of $total; run the same command again to resume"
fi
echo "$status" | tee "$OUT/status.txt"
if [ -n "$TRAIN_SEED" ] && [ "$status" = complete ]; then
	experiments | while read -r exp dir flags; do
		echo "gpu-repro: pool with the other seeds' $exp: eqf paper pool RESULT… $paperdir/$dir"
	done
fi
cp "$work/times.txt" "$OUT/times.txt"
files=$( { find "$zoo" \( -name card.json -o -name history.csv \) 2>/dev/null
	find "$paperdir" -path "$paperdir/.rollouts" -prune -o -type f ! -name '*.html' -print 2>/dev/null
	find "$work" -maxdepth 2 -type f ! -name eqf ! -path "$OUT/*" ! -path "$work/done/*" ! -name '*.tmp'; } | sort)
# shellcheck disable=SC2086 # one path per line, no blanks in them
tar czf "$OUT/repro.tgz" $files
echo "gpu-repro: $(du -h "$OUT/repro.tgz" | cut -f1) in $OUT/repro.tgz"
