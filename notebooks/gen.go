//go:build ignore

// gen.go writes one notebook per experiment of paper.Experiments: the paper's claim; the
// committed full result (results/<experiment>/, shown from its data); one method's rollout in a
// cell to edit (model, sampler, D, S), shown as a video and a strip with its metrics; and one
// switch to rerun the whole experiment (full mode where the zoo has the models, else quick).
// Run by `go generate ./notebooks`.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/paper"
)

// story is what a notebook says around its experiment: the paper's claim and number. What ours
// shows comes from the committed result (results/<experiment>/results.json), never typed here.
type story struct{ claim string }

// roll is the method an experiment notebook rolls out in its editable cell: a zoo model, a
// sampler as eqflib.ParseSampler reads it, depth D, and what to try next. Analytic
// experiments have none.
type roll struct{ model, sampler, try string }

var rolls = map[string]roll{
	"abs_residual_and_fvd_over_time": {"fm", "euler,warp=c:0.8:0.001", `model = "eqf", sampler = "nag:0.3,closed,warp=c:0.8:0.001" (EqF, told nothing about the level)`},
	"minecraft_main":                 {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001"; "eqm" with "nag:0.1,step=0.023246" (A_α/(λ·D) at D = 20, App. G); "diffusion" with "ddim"`},
	"fixed_compute_scaling":          {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `D = 10 or 40 (the sweep's other budgets); model = "fm", sampler = "euler,warp=c:0.8:0.001" at the same D`},
	"budget_adaptive":                {"eqf", "budget:0.1", `sampler = "nag:0.1,closed,warp=c:0.8:0.001" at the same D; model = "fm", sampler = "euler,warp=c:0.8:0.001"`},
	"minecraft_inference_expts":      {"eqf", "nag:0.1,warp=c:0.8:0.001", `μ ∈ {0, 0.1, 0.3, 0.5}; add ",closed"; warp=sd3 or warp=identity`},
	"closed_open_nag":                {"eqf", "nag:0.3,warp=c:0.8:0.001", `add ",closed" (the readout h_ω sets each step); warp=sd3:3 (the transport warp)`},
	"fm_eqf_field_agreement":         {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001"`},
	"unfinished_denoising":           {"fm", "euler,warp=c:0.8:0.001", `model = "eqf", sampler = "nag:0.3,closed,warp=c:0.8:0.001"`},
	"bowls":                          {"fm", "euler", "fewer steps per frame (D = 5)"},
	"fm_conditioning_ablation":       {"fm", "euler", `sampler = "nag:0.2,warp=c:0.8:0.001" (NAG on FM, open loop)`},
	"adaptive_early_stopping":        {"eqf", "earlystop:0.1,closed,warp=c:0.8:0.001,thresh=0.3,cleanup=8", "thresh=0.7 (stops earlier) or 0.1; earlystop:0 (GD)"},
	"inpainting":                     {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001"`},
	"forward_compute":                {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001" (the same cost per evaluation)`},
	"sampling_runtime":               {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001"`},
	"mc_eq_finetune":                 {"fm-eqf", "nag:0.2,closed,warp=c:0.8:0.001", `model = "fm", sampler = "euler,warp=c:0.8:0.001"; model = "eqf" (EqF from scratch)`},
	"nle":                            {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `drop ",closed" (the readout unused)`},
	"margred":                        {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `drop ",closed" (the readout unused)`},
	"planning_threshold":             {"eqf", "nag:0.3,closed,warp=c:0.8:0.001", `S = 1 (the staircase that replanning builds on)`},
}

var stories = map[string]story{
	"abs_residual_and_fvd_over_time": {
		"§3, Fig. 3. Over long Flow Matching rollouts the level g_φ reads from a sample drifts away from the level FM is told (left, growing over the rollout), and FVD over 25-frame chunks worsens; conditioning FM on g_φ's estimate helps a little, EqF (told nothing) does best."},
	"inference_schedule_vis": {
		"§4.4, Fig. inference_schedule_vis. The η warps: transport (identity, SD3) and attractor (c-function, linear log-SNR) shapes, their solver-time schedules ρ(s) and step sizes."},
	"minecraft_main": {
		"§5.2, Table minecraft_main. FVD of 300-frame Minecraft rollouts over 5 seeds: EqF NAG μ = 0.3 (closed loop, c-function) 64.34 ± 1.78 < EqM 77.02 ± 5.21 ≈ EqF GD 77.63 ± 3.31 < NU-FM 101.16 ± 3.57 < FM 104.13 ± 4.33 < Diffusion 106.00 ± 1.22."},
	"fixed_compute_scaling": {
		"§5.2, Fig. fixed_compute_scaling. EqF is best at every compute budget against its noise-conditional and noise-unconditional baselines."},
	"budget_adaptive": {
		"§5.3, Table main_budget_adaptive (Minecraft, 50 steps): budget-adaptive EqF NAG 91.45 ± 0.92, EqF NAG 92.08 ± 0.30, FM 135.37 ± 1.74; below 50 steps the adaptive sampler sets the frontier."},
	"minecraft_inference_expts": {
		"§5.3, Table minecraft_inference_expts. Closed-loop NAG on an attractor warp is best (c-function 64.12, log-SNR 67.70); SD3 (a transport warp) overshoots with NAG (203.73 closed loop); the identity warp takes the same steps open or closed loop (80.25)."},
	"closed_open_nag": {
		"§5.3, Fig. closed_open_nag. NAG is best closed loop on the c-function warp, against open loop and the SD3 transport warp."},
	"fm_eqf_field_agreement": {
		"§5.5, Table fm_eqf_field_agreement (Minecraft): FM and EqF fields on identical noisy inputs: field MSE 0.0425, v-losses 0.576 and 0.576, relative field MSE 7.4 %, Pearson 0.984. Prop. 4.1: the loss gap equals the field MSE for the optimal FM."},
	"eqm_weighting": {
		"App. A.1, Prop. A.1. Written as x-prediction, FM/EqF weight the loss by 1/σ², EqM by c(σ)²/σ²: EqM's weighting relative to EqF is c(σ)², e.g. 16 at σ = 0.5."},
	"unfinished_denoising": {
		"App. B.1, B.4. Flow Matching samples end at a nonzero noise level (the readout stays above the schedule); closed-loop EqF ends almost an order of magnitude lower."},
	"bowls": {
		"App. B.2, Fig. bowls. Telling FM a wrong level σ_stable + δ raises its loss, more with |δ| (left); also corrupting the context's level raises it further (right)."},
	"fm_conditioning_ablation": {
		"App. B.3, Table fm_conditioning_ablation. FM conditioned on g_φ's estimate instead of its schedule improves FVD (Euler c-function 103.6 → 94.5); NAG on FM diverges open loop (1045.6) and works closed loop on g_φ (81.2)."},
	"adaptive_early_stopping": {
		"App. C.1, Table minecraft_adaptive_early_stopping. Stopping each chunk once its σ̂ < σ_thresh (then C_s = 8 cleanup steps) reaches the fixed-step FVD with fewer steps: e.g. GD σ_thresh = 0.3, 49.8 steps, FVD 86.70 against 98.99 at 100 fixed steps."},
	"inpainting": {
		"App. C.3 (Table re10k_inpaint, on RealEstate10K). Here the same task on the maze: the frames between a known first and last frame, PSNR against the real ones."},
	"forward_compute": {
		"App. D.6, Table forward_compute. FM and EqF backbones cost the same; g_φ costs 0.89 % of a forward, h_ω less than 1/10,000."},
	"sampling_runtime": {
		"App. D.6, Table sampling_runtime (one H200): FM Euler 34.41, EqF GD and NAG 34.46, EqF NAG + h_ω 34.86, FM Euler + g_φ 35.10 ms per step."},
	"mc_eq_finetune": {
		"App. E.1, Table mc_eq_finetune. An FM model finetuned into EqF (level input zeroed, EqF loss) with NAG μ = 0.2 reaches FVD 74.54 against 100.48 for FM trained on as long."},
	"nle": {
		"App. F.2, Fig. nle. The readout h_ω on EqF's activations learns the noise level far faster than g_φ from raw frames (10k against 100k steps)."},
	"margred": {
		"App. F.2, Fig. margred. Both estimators are accurate; h_ω especially near σ ≈ 0."},
	"sampler_warp_conversions": {
		"App. G, Fig. sampler_warp_conversions. Conversions between noise level, solver time and the induced warp for the four warps."},
	"planning_threshold": {
		"App. J.2, Fig. planning_threshold. Replanning only when the plan's compatibility score exceeds τ trades quality for compute smoothly; budget-adaptive EqF has the best trade-off, FM the worst (13–29 % more compute for the same FVD)."},
}

// main writes the notebooks into the folder named by its argument (default "."): the teaching
// notebooks from src/NN-name.txt, the experiment notebooks from paper.Experiments.
func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	srcs, err := filepath.Glob(filepath.Join("src", "*.txt"))
	fail(err)
	for _, src := range srcs {
		cells, err := parse(src)
		fail(err)
		fail(write(filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".txt")+".ipynb"), cells))
	}
	var rows strings.Builder
	for i, e := range paper.Experiments {
		st, ok := stories[e.Name]
		if !ok {
			fail(fmt.Errorf("no story for experiment %q: add one to notebooks/gen.go", e.Name))
		}
		stem := fmt.Sprintf("%02d-%s", 10+i, strings.ReplaceAll(e.Name, "_", "-"))
		summary, status := committedSummary(e.Name)
		fail(write(filepath.Join(dir, stem+".ipynb"), notebook(e, st, summary)))
		fmt.Fprintf(&rows, "| %s | %s | %s |\n", stem, e.Where, strings.ReplaceAll(status, "|", `\|`))
	}
	// The index: src/README.md with the experiments' table in place of its marker.
	tmpl, err := os.ReadFile(filepath.Join("src", "README.md"))
	fail(err)
	const marker = "<!-- experiments -->\n"
	if !strings.Contains(string(tmpl), marker) {
		fail(fmt.Errorf("src/README.md has no %q line", strings.TrimSpace(marker)))
	}
	index := "<!-- Generated from src/README.md and results/ by `go generate ./notebooks`; DO NOT EDIT. -->\n\n" +
		strings.Replace(string(tmpl), marker, "| notebook | paper | committed result (results/, docs/results.md) |\n|---|---|---|\n"+rows.String(), 1)
	fail(os.WriteFile(filepath.Join(dir, "README.md"), []byte(index), 0o644))
}

func notebook(e paper.Experiment, st story, committed string) []cell {
	cells := []cell{
		md(fmt.Sprintf("# %s — %s\n\n**The paper.** %s\n\nThe experiment is `paper.ByName(%q)` (in `paper/`), on the maze world in place of Minecraft; "+
			"`paper/README.md` says where our protocol differs from the paper's.\n\n"+
			"*Generated by `notebooks/gen.go` (`go generate ./notebooks`): edit the generator, not this file.*", e.Name, e.Where, st.claim, e.Name)),
		code(`// Set-up cell (once per kernel): lets gopls see the checkout.
%goworkfix`),
		md("## Our committed result\n\n" + committed),
		code(fmt.Sprintf(`import (
	"github.com/equilibriumforcing/eqf/notebooks/display"
)

%%%%
display.Committed(%q)`, e.Name)),
	}
	if r, ok := rolls[e.Name]; ok {
		cells = append(cells,
			md("## One method, rolled out here\n\nThe protocol of every rollout in this experiment, in one cell to edit: the zoo's model "+
				"(the paper recipe's when `make models` has trained it, else the quick zoo's tiny model, trained on first use in about a minute), "+
				"real validation clips (their first C frames as context, their actions as conditions), the sampler at D steps per frame and stride S "+
				"(0: chunk by chunk; 1: the paper's staircase), then FVD, action agreement and PSNR against the real continuation. "+
				"A sampler reads `name[:μ][,closed][,warp=…][,step=…][,thresh=…][,cleanup=…]` (`eqflib.ParseSampler`). Try: "+r.try+"."),
			code(fmt.Sprintf(`import (
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/notebooks/display"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

var (
	model   = %q
	sampler = %q
	D, S    = 20, 0 // steps per frame; stride (0: chunk by chunk, 1: the staircase)
	clips   = 4     // rollouts, one per validation clip
	frames  = 40    // generated frames per rollout
)

%%%%
z := display.Must(zoo.OpenTrained(model))
m := display.Must(z.Load(model))
fs := display.Must(eqflib.ParseSampler(sampler))
cl := display.Must(z.Clips(m.Stats, clips, frames, 7))
res := display.Must(cl.Roll(m.DiT, eqflib.RollOptions{RollConfig: z.Geometry(D, S), Sampler: fs, Seed: 7}))
s := display.Must(cl.Score(display.Must(z.LoadActionNet()), res.Frames, zoo.ScoreConfig{FVDClip: 10, Chunk: 10}))
fmt.Printf("%%s %%s on the %%q zoo, %%d rollouts of %%d frames: FVD %%.1f (%%d clips per side: a glimpse, not the protocol's), "+
	"FVD per 10 frames %%.0f, action agreement %%.2f, PSNR %%.1f dB, %%.1f evaluations per frame\n",
	model, sampler, z.Recipe.Name, clips, frames, s.FVD, clips*frames/10, s.FVDOverTime, s.Agreement.Ratio, s.PSNR, res.NFEPerFrame())
vo := plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std, Scale: 4}
videos := []plots.Video{{Name: "real", Frames: cl.Truth}, {Name: model + " " + sampler, Frames: res.Frames}}
display.Videos("the first clip: real (top), generated (below)", videos, vo)
display.Strip(videos, vo)`, r.model, r.sampler)))
	}
	return append(cells,
		md("## Rerun the whole experiment\n\n`rerun = true` runs it here: in full mode on the paper recipe's zoo when `make models` has trained "+
			"the models it needs (every training seed the zoo has, 3 evaluation seeds, 64 rollouts each: hours on two cores, minutes on a GPU), otherwise in quick mode "+
			"on the quick zoo (about a minute; labelled quick: it checks the code, not the paper's numbers). Saved under `out/paper/"+e.Name+
			"` (quick: `out/paper-quick/"+e.Name+"`)."),
		code(fmt.Sprintf(`import (
	"context"
	"fmt"
	"os"

	"github.com/equilibriumforcing/eqf/notebooks/display"
	"github.com/equilibriumforcing/eqf/paper"
)

var rerun = false

%%%%
if !rerun {
	fmt.Println("rerun = false: nothing rerun; set rerun = true to run the experiment here")
	return
}
e := display.Must(paper.ByName(%q))
r, quick, err := e.RunFullOrQuick(context.Background(), paper.Config{Log: os.Stdout})
display.Check(err)
display.Check(r.Save(paper.Dir(r.Name, quick)))
label := "**Full mode** on the paper recipe's zoo."
if quick {
	label = "**Quick mode** (tiny models): it checks the code; its numbers are not the paper's."
}
display.Result(r, label)`, e.Name)))
}

// committedSummary says what an experiment's committed result shows, from its results.json: the
// training seeds, where it ran, and its comparisons (paired differences with their intervals
// and verdicts) and FVDs; or that there is none yet. Results on another zoo recipe
// (results/<name>-<recipe>/) follow, said the same way.
func committedSummary(name string) (summary, status string) {
	r, err := paper.LoadResult(filepath.Join("..", "results", name))
	if err != nil {
		summary, status = "None yet on the paper recipe (the older single-seed runs on the guided cpu zoo are in docs/paper.md); the cell says how to make one.",
			"— (no committed result yet)"
	} else {
		summary, status = describeResult(r)
	}
	others, _ := paper.LoadOtherRecipes(filepath.Join("..", "results"), name) // a broken one fails docs/results.md's generation
	for _, o := range others {
		sum, st := describeResult(o)
		summary += fmt.Sprintf("\n\nOn the zoo recipe %s: %s", o.Recipe, sum)
		status += fmt.Sprintf("; recipe %s: %s", o.Recipe, st)
	}
	return summary, status
}

// describeResult is committedSummary's text for one committed result.
func describeResult(r *paper.Result) (summary, status string) {
	const maxStatusComparisons = 5
	const maxInlineFVDs = 6 // more (a sweep's every point) are counted; the cell below shows them
	var fvds, comps, bullets []string
	verdicts := map[string]int{}
	for _, n := range r.Numbers {
		if n.Verdict != "" || n.Lo != 0 || n.Hi != 0 {
			name := strings.TrimSuffix(n.Name, ", paired by training seed")
			comps = append(comps, fmt.Sprintf("%s: %s", name, n.Format()))
			paperText := ""
			if n.Paper != "" {
				paperText = " (paper: " + n.Paper + ")"
			}
			bullets = append(bullets, fmt.Sprintf("- %s: %s%s", name, n.Format(), paperText))
			verdicts[n.Verdict]++
		} else if strings.Contains(n.Name, "FVD") {
			fvds = append(fvds, fmt.Sprintf("%s %s", n.Name, n.Format()))
		}
	}
	seeds := make([]string, len(r.TrainSeeds))
	for i, k := range r.TrainSeeds {
		seeds[i] = fmt.Sprint(k)
	}
	dir := r.Dir()
	if len(seeds) == 0 { // an analytic experiment: exact, no model
		return fmt.Sprintf("`results/%s/` (docs/results.md): analytic, exact (no model, no seed). The cell shows it: how it ran, its figures (drawn from the saved data) and our numbers beside the paper's.", dir), "committed (analytic, exact)"
	}
	shown := strings.Join(fvds, "; ")
	if len(fvds) > maxInlineFVDs {
		shown = fmt.Sprintf("%d FVD values (one per method and setting)", len(fvds))
	}
	summary = fmt.Sprintf("`results/%s/` (docs/results.md), training seeds %s: %s. The cell shows it: where and how it ran, its figures (drawn from the saved data) and our numbers beside the paper's.", dir, strings.Join(seeds, ", "), shown)
	if len(bullets) > 0 {
		summary += fmt.Sprintf("\n\nIts paired comparisons (mean ± SE over training seeds [95 %% t-interval] — the verdict against the sign of the paper's difference, where it has one):\n\n%s", strings.Join(bullets, "\n"))
	}
	trained := fmt.Sprintf("%d training seeds", len(r.TrainSeeds))
	if len(r.TrainSeeds) == 1 {
		trained = "1 training seed"
	}
	status = trained + "; " + strings.Join(comps, "; ")
	if len(comps) > maxStatusComparisons { // a sweep's claims at every budget: count the verdicts
		status = fmt.Sprintf("%s; %d paired comparisons: %d agree, %d differ, %d inconclusive, %d without a paper value (docs/results.md)",
			trained, len(comps), verdicts[paper.Agrees], verdicts[paper.Differs], verdicts[paper.Inconclusive], verdicts[""])
	}
	if len(comps) == 0 {
		status = trained + " (no paired comparison)"
	}
	return summary, status
}

// parse reads a teaching notebook's source: cells introduced by a line "<<< markdown", "<<< code"
// or "<<< answer" (an exercise's answer: Go code shown collapsed, not run by Run All). The first
// markdown cell gets the generated-file notice.
func parse(path string) ([]cell, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cells []cell
	var kind string
	var body []string
	flush := func() {
		if kind == "" {
			return
		}
		src := strings.TrimRight(strings.Join(body, "\n"), "\n")
		switch kind {
		case "markdown":
			if len(cells) == 0 {
				src += "\n\n*Generated from `notebooks/" + filepath.ToSlash(path) + "` by `go generate ./notebooks`: edit the source, not this file.*"
			}
			cells = append(cells, md(src))
		case "code":
			cells = append(cells, code(src))
		case "answer":
			cells = append(cells, answer(src))
		}
	}
	for i, line := range strings.Split(string(b), "\n") {
		if k, ok := strings.CutPrefix(line, "<<< "); ok {
			flush()
			if k != "markdown" && k != "code" && k != "answer" {
				return nil, fmt.Errorf("%s:%d: cell kind %q: must be markdown, code or answer", path, i+1, k)
			}
			kind, body = k, nil
			continue
		}
		if kind == "" && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("%s:%d: text before the first \"<<< kind\" line", path, i+1)
		}
		body = append(body, line)
	}
	flush()
	return cells, nil
}

// cell is one nbformat 4.5 cell: markdown cells have no outputs, code cells start unexecuted.
type cell map[string]any

func lines(s string) []string {
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func md(s string) cell {
	return cell{"cell_type": "markdown", "metadata": map[string]any{}, "source": lines(s)}
}

func code(s string) cell {
	return cell{"cell_type": "code", "execution_count": nil, "metadata": map[string]any{}, "outputs": []any{}, "source": lines(s)}
}

// answer is an exercise's answer: a collapsed Markdown cell holding the answer's Go code, so
// Run All does not run it (a reader opens it, and pastes the code into a cell to run it). The
// notebook tests run every answer (kernel/jupyter: answerCells).
func answer(src string) cell {
	c := md("<details><summary><b>Answer</b> (click to open; paste the code into a cell to run it)</summary>\n\n```go\n" + src + "\n```\n\n</details>")
	c["metadata"] = map[string]any{"tags": []string{"answer"}}
	return c
}

func write(name string, cells []cell) error {
	for i := range cells {
		h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", filepath.Base(name), i)))
		cells[i]["id"] = hex.EncodeToString(h[:4])
	}
	nb := map[string]any{
		"cells":    cells,
		"metadata": map[string]any{"kernelspec": map[string]any{"display_name": "Go (eqf)", "language": "go", "name": "eqf"}, "language_info": map[string]any{"name": "go"}},
		"nbformat": 4, "nbformat_minor": 5,
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "notebooks/gen.go:", err)
		os.Exit(1)
	}
}
