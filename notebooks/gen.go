//go:build ignore

// gen.go writes one notebook per experiment of paper.Experiments: the paper's claim, a
// parameter cell (quick by default), the experiment's run with its figures and table displayed
// inline, and what our full-mode run showed. Run by `go generate ./notebooks`.
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

// story is what a notebook says around its experiment: the paper's claim and number, and what
// our full-mode run on the cpu zoo showed (docs/paper.md).
type story struct{ claim, ours string }

var stories = map[string]story{
	"abs_residual_and_fvd_over_time": {
		"§3, Fig. 3. Over long Flow Matching rollouts the level g_φ reads from a sample drifts away from the level FM is told (left, growing over the rollout), and FVD over 25-frame chunks worsens; conditioning FM on g_φ's estimate helps a little, EqF (told nothing) does best.",
		"On the cpu zoo of 2026-11-24 (7,000 steps, no guidance; 3 seeds): FM's divergence grows slightly, 0.034 (frames 1–25) → 0.039 (frames 76–100); FVD FM 62.5 ± 5.6, FM conditioned on g_φ 62.6 ± 0.7, EqF NAG 85.8 ± 12.7: conditioning on g_φ changes nothing and EqF is not best here. On the 3,500-step zoo of 2026-11-23: EqF 85.5, FM 88.1, FM + g_φ 94.0."},
	"inference_schedule_vis": {
		"§4.4, Fig. inference_schedule_vis. The η warps: transport (identity, SD3) and attractor (c-function, linear log-SNR) shapes, their solver-time schedules ρ(s) and step sizes.",
		"Analytic: the figure is exact (golden numbers in docs/derivations.md)."},
	"minecraft_main": {
		"§5.2, Table minecraft_main. FVD of 300-frame Minecraft rollouts over 5 seeds: EqF NAG μ = 0.3 (closed loop, c-function) 64.34 ± 1.78 < EqM 77.02 ± 5.21 ≈ EqF GD 77.63 ± 3.31 < NU-FM 101.16 ± 3.57 < FM 104.13 ± 4.33 < Diffusion 106.00 ± 1.22.",
		"On the cpu zoo of 2026-11-24 (7,000 steps, sampled without guidance as the paper does; 3 seeds): Diffusion 60.4 ± 15.0, FM 62.5 ± 5.6, EqM 82.8 ± 19.6, EqF NAG 85.8 ± 12.7, EqF GD 86.1 ± 11.4, NU-FM 88.8 ± 10.0. Paired by seed every noise-unconditional method is behind FM (EqF NAG +23.3 ± 8.7, NU-FM +26.3 ± 6.5): this does not reproduce the paper. Their rollouts settle on a blue wall filling the view for frames ~8–57 where FM walks corridors. Action agreement: EqM 0.73, NU-FM 0.70, EqF 0.69–0.70, FM 0.69, Diffusion 0.62. On the 3,500-step zoo of 2026-11-23 the order was the reverse (EqM 80.4, NU-FM 84.5, EqF NAG 85.5, FM 88.1, Diffusion 108.2)."},
	"fixed_compute_scaling": {
		"§5.2, Fig. fixed_compute_scaling. EqF is best at every compute budget against its noise-conditional and noise-unconditional baselines.",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds, 50-frame rollouts), FVD at 5 / 10 / 20 NFE per frame: FM Euler 67.0 / 64.9 / 68.2 (± 3–5), EqM NAG 141.2 / 73.0 / 74.2 (± 12–19), EqF GD 86.7 / 83.2 / 84.2, NU-FM GD 90.6 / 86.7 / 81.0, EqF NAG μ = 0.3 89.7 / 87.7 / 84.6 (± 10–13). FM is best at every budget and flat across them; EqF gains 2–6 from 5 to 20; EqM's fixed step fails at 5. This does not reproduce the paper. On the 3,500-step zoo of 2026-11-23 EqF GD was best at 5 (83.1 against FM's 89.6) and FM gained 28 from 5 to 20."},
	"budget_adaptive": {
		"§5.3, Table main_budget_adaptive (Minecraft, 50 steps): budget-adaptive EqF NAG 91.45 ± 0.92, EqF NAG 92.08 ± 0.30, FM 135.37 ± 1.74; below 50 steps the adaptive sampler sets the frontier.",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds, 50-frame rollouts), FVD at 5 / 10 / 20 NFE per frame: budget-adaptive NAG μ = 0.1 88.4 / 86.0 / 78.9, closed-loop NAG μ = 0.1 93.6 / 86.1 / 78.4 (± 10–11), FM Euler 67.0 / 64.9 / 68.2 (± 3–5). The budget-adaptive sampler matches closed-loop NAG within 1 SE (5 lower at the smallest budget), as in the paper, but FM has the lowest FVD at every budget; all three follow the actions alike (agreement 0.69–0.71). On the 3,500-step zoo of 2026-11-23: budget-adaptive 87.0 / 86.6 / 81.6, FM 89.6 / 74.1 / 61.3, and EqF followed the actions better (0.74–0.76 against 0.63–0.66)."},
	"minecraft_inference_expts": {
		"§5.3, Table minecraft_inference_expts. Closed-loop NAG on an attractor warp is best (c-function 64.12, log-SNR 67.70); SD3 (a transport warp) overshoots with NAG (203.73 closed loop); the identity warp takes the same steps open or closed loop (80.25).",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 1 seed, as the paper, 100-frame rollouts): NAG μ = 0.5 beats GD on every warp open loop (c-function 104.6 → 69.0, log-SNR 104.9 → 57.4), but follows the actions less (agreement 0.51–0.63 against 0.68) and draws over-saturated blue walls; closed loop does not help (c-function NAG μ = 0.3: 103.7 closed, 94.6 open); SD3 closed loop is the best row at μ = 0.3 (62.0) and blows up at μ = 0.5 (315.6, agreement 0.41), the paper's overshoot at a larger μ; log-SNR closed loop leaves coloured noise in frames 15–29; the identity warp gives the same rollouts open and closed loop. Every EqF row faces a blue wall over frames ~8–57, the unguided attractor of these small models. On the 3,500-step zoo of 2026-11-23: c-function open loop 92.6 → 74.1 at μ = 0.5, closed 94.5 against open 81.4 at μ = 0.3, SD3 closed 68.5."},
	"closed_open_nag": {
		"§5.3, Fig. closed_open_nag. NAG is best closed loop on the c-function warp, against open loop and the SD3 transport warp.",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds, 50-frame rollouts, NAG μ = 0.3): on the c-function warp open loop beats closed loop at every budget (77.9 against 84.6 at D = 40; by 6–9, within 1 SE of ± 9–15), and SD3 is best (64.9 open, 65.4 closed at D = 40): this does not reproduce the paper. On the 3,500-step zoo of 2026-11-23 the order was the same (open 68.7 against closed 80.6 at D = 40)."},
	"fm_eqf_field_agreement": {
		"§5.5, Table fm_eqf_field_agreement (Minecraft): FM and EqF fields on identical noisy inputs: field MSE 0.0425, v-losses 0.576 and 0.576, relative field MSE 7.4 %, Pearson 0.984. Prop. 4.1: the loss gap equals the field MSE for the optimal FM.",
		"On the cpu zoo of 2026-11-24 (3 seeds): Pearson 0.987, relative field MSE 2.6 %, v-losses FM 0.073 and EqF 0.097; the loss gap (0.023) is below the field MSE (0.048): our FM is not the optimum Prop. 4.1 assumes."},
	"eqm_weighting": {
		"App. A.1, Prop. A.1. Written as x-prediction, FM/EqF weight the loss by 1/σ², EqM by c(σ)²/σ²: EqM's weighting relative to EqF is c(σ)², e.g. 16 at σ = 0.5.",
		"Analytic: checked against c(σ)² in closed form by the tests."},
	"unfinished_denoising": {
		"App. B.1, B.4. Flow Matching samples end at a nonzero noise level (the readout stays above the schedule); closed-loop EqF ends almost an order of magnitude lower.",
		"On the cpu zoo of 2026-11-24: g_φ reads FM's finished frames at 0.051 on average, NU-FM's at 0.057, closed-loop EqF NAG's at 0.038 (miss rate at σ = 0.05: 0.44, 0.50, 0.34). The direction agrees; the factor is smaller than the paper's, and g_φ's own error near σ = 0 (~0.02) bounds what it can read."},
	"bowls": {
		"App. B.2, Fig. bowls. Telling FM a wrong level σ_stable + δ raises its loss, more with |δ| (left); also corrupting the context's level raises it further (right).",
		"On the cpu zoo of 2026-11-24: FM's loss rises with the size of δ at every σ_stable (δ = −0.07: +0.161 at σ_stable = 0.2); corrupting the context's level adds nothing measurable on our FM (the paper sees it add)."},
	"fm_conditioning_ablation": {
		"App. B.3, Table fm_conditioning_ablation. FM conditioned on g_φ's estimate instead of its schedule improves FVD (Euler c-function 103.6 → 94.5); NAG on FM diverges open loop (1045.6) and works closed loop on g_φ (81.2).",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds): conditioning FM on g_φ changes little (Euler, identity: 62.7 ± 6.4 with σ, 59.9 ± 4.4 with g_φ; c-function: 62.5 ± 5.6 and 62.6 ± 0.7), and its g_φ rollouts keep grain on the walls. Open-loop NAG on FM does not diverge: its FVD is the lowest of the table (42.7 ± 0.8, action agreement 0.69), its rollouts sharp but kept to red corridors and walls; NAG on g_φ scores 52.2 ± 4.1. On the 3,500-step zoo of 2026-11-23: Euler 76.6 / 96.5 (identity), 88.1 / 94.0 (c-function), NAG 70.4 / 86.6."},
	"adaptive_early_stopping": {
		"App. C.1, Table minecraft_adaptive_early_stopping. Stopping each chunk once its σ̂ < σ_thresh (then C_s = 8 cleanup steps) reaches the fixed-step FVD with fewer steps: e.g. GD σ_thresh = 0.3, 49.8 steps, FVD 86.70 against 98.99 at 100 fixed steps.",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds, 50-frame rollouts, C_s = 8): EqF GD stopping at σ_thresh 0.7 → 0.1 takes 6.5 → 10.1 NFE per frame at FVD 89.0 → 88.7 (86.6 at 0.3; ± 10–12), against fixed steps 91.4 / 86.1 / 80.5 at 5 / 10 / 20 NFE per frame; NAG μ = 0.1 stopping at σ_thresh = 0.7 reaches 85.9 with 6.5 NFE per frame, D = 20's FVD (86.1) with 35 % fewer steps. Every gap is within 1 SE, and the largest fixed budget is best. On the 3,500-step zoo of 2026-11-23: GD 6.5 → 10.0 NFE per frame at 86.4 → 85.4 (± 2–3), fixed 88.4 / 83.6 / 81.7."},
	"inpainting": {
		"App. C.3 (Table re10k_inpaint, on RealEstate10K). Here the same task on the maze: the frames between a known first and last frame, PSNR against the real ones.",
		"On the cpu zoo of 2026-11-24 (3 seeds): in-between PSNR FM 24.1 ± 0.5 dB, EqF GD 22.5 ± 0.3, EqF NAG 22.5 ± 0.3; the in-between frames blend the known ends."},
	"forward_compute": {
		"App. D.6, Table forward_compute. FM and EqF backbones cost the same; g_φ costs 0.89 % of a forward, h_ω less than 1/10,000.",
		"On the cpu zoo: 0.446 GFLOPs per 4-frame window for either backbone; g_φ costs 0.99 % of it (paper 0.89 %), h_ω 0.59 % (relatively larger on a 5M-parameter backbone)."},
	"sampling_runtime": {
		"App. D.6, Table sampling_runtime (one H200): FM Euler 34.41, EqF GD and NAG 34.46, EqF NAG + h_ω 34.86, FM Euler + g_φ 35.10 ms per step.",
		"On two cores of a Zen 5 (AVX-512), batch 1, the cpu zoo of 2026-11-25: FM Euler 3.89, EqF GD 3.63, EqF NAG 3.62, EqF NAG + h_ω 3.61, FM Euler + g_φ 5.19 ms per step (the machine's speed drifts: two runs minutes earlier gave 5.39–8.31 for the same rows). In every run EqF's steps cost FM's or less and the readout adds at most 3 %, as in the paper; g_φ, a second network run on the host path, adds 31–54 %. (On an AVX2 Zen 3 on 2026-11-23: 7.3, 8.1, 8.9, 9.2, 12.8.)"},
	"mc_eq_finetune": {
		"App. E.1, Table mc_eq_finetune. An FM model finetuned into EqF (level input zeroed, EqF loss) with NAG μ = 0.2 reaches FVD 74.54 against 100.48 for FM trained on as long.",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds): the 500-step finetune with closed-loop NAG μ = 0.2 scores FVD 66.3 ± 7.4 (GD 73.7 ± 5.8) against EqF from scratch 86.2 ± 9.6 and FM 62.5 ± 5.6: paired by seed it is 19.8 ± 2.6 below EqF from scratch and 3.8 ± 2.9 above FM. Its loss is still falling after 500 steps (0.69 at the start, 0.15 at the end, FM's 0.086). On the 3,500-step zoo of 2026-11-23 the finetune scored 100.0 against FM's 88.1."},
	"nle": {
		"App. F.2, Fig. nle. The readout h_ω on EqF's activations learns the noise level far faster than g_φ from raw frames (10k against 100k steps).",
		"On the cpu zoo of 2026-11-24 (858 steps each): h_ω's training loss ends lower (logit MSE 0.14 against 0.24) and its held-out σ MAE too (0.019 against 0.030; 0.031 against 0.063 at the first evaluation), but both settle within a few hundred steps."},
	"margred": {
		"App. F.2, Fig. margred. Both estimators are accurate; h_ω especially near σ ≈ 0.",
		"On the cpu zoo of 2026-11-24: for σ < 0.1 h_ω's mean absolute error is 0.019 against g_φ's 0.025, as in the paper, and h_ω stays within 0.016–0.031 at every level."},
	"sampler_warp_conversions": {
		"App. G, Fig. sampler_warp_conversions. Conversions between noise level, solver time and the induced warp for the four warps.",
		"Analytic: the figure is exact."},
	"planning_threshold": {
		"App. J.2, Fig. planning_threshold. Replanning only when the plan's compatibility score exceeds τ trades quality for compute smoothly; budget-adaptive EqF has the best trade-off, FM the worst (13–29 % more compute for the same FVD).",
		"On the cpu zoo of 2026-11-25 (7,000 steps, no guidance; 3 seeds, 20 committed frames, FVD on 10-frame clips): from τ = ∞ to τ = 0 (21 → 40 frame evaluations per committed frame) FVD falls for every method: FM Euler 12.7 → 7.3, EqF NAG μ = 0.3 36.1 → 14.0, budget-adaptive EqF 38.6 → 16.2 (± 0.4–4.5). Replanning helps EqF the most, but FM is best at every compute level: this does not reproduce the paper. On the 3,500-step zoo of 2026-11-23: FM 39.7 → 23.0, EqF NAG 41.8 → 34.6, budget-adaptive 43.5 → 36.4."},
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
	for i, e := range paper.Experiments {
		st, ok := stories[e.Name]
		if !ok {
			fail(fmt.Errorf("no story for experiment %q: add one to notebooks/gen.go", e.Name))
		}
		name := fmt.Sprintf("%02d-%s.ipynb", 10+i, strings.ReplaceAll(e.Name, "_", "-"))
		fail(write(filepath.Join(dir, name), notebook(e, st)))
	}
}

func notebook(e paper.Experiment, st story) []cell {
	return []cell{
		md(fmt.Sprintf("# %s — %s\n\n**The paper.** %s\n\nThe experiment is `paper.ByName(%q)` (in `paper/`), on the maze world in place of Minecraft; "+
			"`paper/README.md` says where our protocol differs from the paper's.\n\n"+
			"*Generated by `notebooks/gen.go` (`go generate ./notebooks`): edit the generator, not this file.*", e.Name, e.Where, st.claim, e.Name)),
		code(`// Set-up cell (once per kernel): pins GoNB's display package to eqf's go.mod version and lets
// gopls see the checkout.
!*go get github.com/janpfeifer/gonb@v0.11.5
%goworkfix`),
		md("**Parameters.** `quick = true` runs on the quick zoo (tiny models, trained on first use, about a minute); " +
			"`false` loads the cpu zoo that `make models` trains (full mode: 3 seeds, minutes to half an hour)."),
		code("// quick: tiny models and sizes; false: the cpu zoo and the full protocol.\nvar quick = true"),
		md("**Run.** The figures, then the numbers beside the paper's. Results are also saved under `out/paper/" + e.Name + "` (quick: `out/paper-quick/" + e.Name + "`)."),
		code(fmt.Sprintf(`import (
	"context"
	"os"

	"github.com/equilibriumforcing/eqf/paper"
	"github.com/janpfeifer/gonb/gonbui"
)

%%%%
e, err := paper.ByName(%q)
if err != nil {
	panic(err)
}
r, err := e.Run(context.Background(), paper.Config{Quick: quick, Log: os.Stdout})
if err != nil {
	panic(err)
}
if err := r.Save(paper.Dir(r.Name, quick)); err != nil {
	panic(err)
}
pngs, err := r.PNGs()
if err != nil {
	panic(err)
}
for _, png := range pngs {
	gonbui.DisplayPNG(png)
}
gonbui.DisplayHTML(r.HTML())
gonbui.Sync() // wait until GoNB has the outputs before the cell's program exits`, e.Name)),
		md("**What our full-mode run shows.** " + st.ours),
	}
}

// parse reads a teaching notebook's source: cells introduced by a line "<<< markdown", "<<< code"
// or "<<< answer" (a code cell whose source starts hidden: the exercise's answer). The first
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
			c := code(src)
			c["metadata"] = map[string]any{"jupyter": map[string]any{"source_hidden": true}, "tags": []string{"answer"}}
			cells = append(cells, c)
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
