package paper

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// What must hold in quick mode, whatever the tiny models' quality.

// num returns the value of the one number whose name contains every part.
func num(t *testing.T, r *Result, parts ...string) Number {
	t.Helper()
	var found []Number
	for _, n := range r.Numbers {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(n.Name, p)
		}
		if ok {
			found = append(found, n)
		}
	}
	if len(found) > 1 { // a difference names both its rows: the row's own number is meant
		found = slices.DeleteFunc(found, isDifference)
	}
	if len(found) != 1 {
		t.Fatalf("%s: %d numbers match %q", r.Name, len(found), parts)
	}
	return found[0]
}

// isDifference says whether n is a paired difference of two rows (or of one row at two
// settings) rather than a row's own number.
func isDifference(n Number) bool { return strings.Contains(n.Name, ", paired ") }

func finite(t *testing.T, r *Result) {
	t.Helper()
	for _, n := range r.Numbers {
		if math.IsNaN(n.Ours) || math.IsInf(n.Ours, 0) || math.IsNaN(n.Err) || n.Err < 0 {
			t.Errorf("%s: %s = %g ± %g", r.Name, n.Name, n.Ours, n.Err)
		}
	}
}

// Table minecraft_main: six rows with the paper's FVD beside; chunk-by-chunk rollouts cost D
// network evaluations per H-frame chunk for every fixed-step sampler, DDIM included.
func TestMinecraftMainQuick(t *testing.T) {
	r := run(t, "minecraft_main")
	finite(t, r)
	p, H := quick().protocol(), quickZoo.Recipe.Frames-quickZoo.Recipe.Context
	for _, m := range mainMethods(p.Depth) {
		if got := num(t, r, m.Name, "NFE per frame").Ours; got != float64(p.Depth)/float64(H) {
			t.Errorf("%s: %g NFE per frame, want D/H = %d/%d", m.Name, got, p.Depth, H)
		}
		fvd := num(t, r, m.Name, "FVD")
		if fvd.Paper == "" || fvd.Ours < 0 {
			t.Errorf("%s: FVD %+v", m.Name, fvd)
		}
		if a := num(t, r, m.Name, "agreement").Ours; a < 0 || a > 2 {
			t.Errorf("%s: action agreement %g", m.Name, a)
		}
	}
	// NU-FM and EqF GD share the backbone but not the warp: their rollouts must differ.
	if num(t, r, "NU-FM", "FVD").Ours == num(t, r, "EqF GD", "FVD").Ours {
		t.Error("NU-FM (identity) and EqF GD (c-function) gave the same FVD: the warp was not applied")
	}
	if len(r.Files["rollouts.png"]) == 0 {
		t.Error("no rollout strip")
	}
}

// With the identity warp η ≡ 1, closed and open loop take the same steps: the same rollouts.
func TestInferenceExptsIdentityClosedEqualsOpen(t *testing.T) {
	r := run(t, "minecraft_inference_expts")
	finite(t, r)
	rows := slices.DeleteFunc(slices.Clone(r.Numbers), isDifference)
	if len(rows) != 4*2*4*4 {
		t.Errorf("%d numbers besides the paired differences, want 4 warps × 2 feedbacks × 4 samplers (GD, NAG μ = 0.1, 0.3, 0.5) × 4", len(rows))
	}
	// The paper's best-μ value stands beside the row of that μ only (c-function open loop: μ = 0.1).
	if p := num(t, r, "c-function, open loop, NAG μ=0.1:", "FVD").Paper; p != "67.94 (μ=0.1)" {
		t.Errorf("c-function open loop NAG μ=0.1: paper %q", p)
	}
	if p := num(t, r, "c-function, open loop, NAG μ=0.3:", "FVD").Paper; p != "" {
		t.Errorf("c-function open loop NAG μ=0.3: paper %q, want none (the paper's best μ is 0.1)", p)
	}
	for _, s := range []string{"GD", "NAG μ=0.1", "NAG μ=0.3", "NAG μ=0.5"} {
		open, closed := num(t, r, "identity, open loop, "+s+":", "FVD"), num(t, r, "identity, closed loop, "+s+":", "FVD")
		if open.Ours != closed.Ours {
			t.Errorf("identity warp, %s: open-loop FVD %g ≠ closed-loop %g", s, open.Ours, closed.Ours)
		}
	}
	if a, b := num(t, r, "c-function, open loop, GD:", "FVD").Ours, num(t, r, "c-function, closed loop, GD:", "FVD").Ours; a == b {
		t.Error("c-function warp: closed loop gave the open-loop rollouts")
	}
}

// Budget sweeps: NFE per frame is D/H at every budget, for every method.
func TestDepthSweepsQuick(t *testing.T) {
	H := quickZoo.Recipe.Frames - quickZoo.Recipe.Context
	for _, name := range []string{"fixed_compute_scaling", "budget_adaptive", "closed_open_nag"} {
		r := run(t, name)
		finite(t, r)
		for _, d := range quick().depths() {
			for _, n := range r.Numbers {
				if strings.Contains(n.Name, "D="+strconv.Itoa(d)+":") && strings.Contains(n.Name, "NFE per frame") && n.Ours != float64(d)/float64(H) {
					t.Errorf("%s: %s = %g, want %d/%d", name, n.Name, n.Ours, d, H)
				}
			}
		}
	}
}

// Replanning: τ = 0 replans every round, τ = ∞ never; neither scores plans, so both cost the
// same window evaluations (D per round), while in frame evaluations τ = 0 regenerates the whole
// horizon every round and τ = ∞ only the appended frame; intermediate τ pay for their probes.
func TestPlanningThresholdLimits(t *testing.T) {
	r := run(t, "planning_threshold")
	finite(t, r)
	D, H := quick().protocol().Depth, quickZoo.Recipe.Frames-quickZoo.Recipe.Context
	R := quick().protocol().Frames
	for _, m := range []string{"FM Euler", "EqF budget-adaptive NAG μ=0.1", "EqF NAG μ=0.3"} {
		if f := num(t, r, m+", τ=0:", "replanned").Ours; f != 1 {
			t.Errorf("%s, τ = 0: replanned %g of the rounds, want all", m, f)
		}
		if f := num(t, r, m+", τ=+Inf:", "replanned").Ours; f != 0 {
			t.Errorf("%s, τ = ∞: replanned %g of the rounds, want none", m, f)
		}
		w0, wInf := num(t, r, m+", τ=0:", "window evaluations").Ours, num(t, r, m+", τ=+Inf:", "window evaluations").Ours
		if w0 != wInf || w0 != float64(D) {
			t.Errorf("%s: %g window evaluations per frame at τ = 0 and %g at τ = ∞, want D = %d for both", m, w0, wInf, D)
		}
		// Frame evaluations: R rounds of H frames × D at τ = 0, of 1 frame × D at τ = ∞ (after
		// the first plan of H frames).
		f0, fInf := num(t, r, m+", τ=0:", "NFE per frame").Ours, num(t, r, m+", τ=+Inf:", "NFE per frame").Ours
		if want := float64(D * H); f0 != want {
			t.Errorf("%s, τ = 0: %g frame evaluations per frame, want D·H = %g", m, f0, want)
		}
		if want := float64(D*(H+R-1)) / float64(R); fInf != want {
			t.Errorf("%s, τ = ∞: %g frame evaluations per frame, want D·(H + R − 1)/R = %g", m, fInf, want)
		}
		for _, n := range r.Numbers {
			if strings.HasPrefix(n.Name, m+", τ=") && strings.Contains(n.Name, "window evaluations") && !strings.Contains(n.Name, "τ=0:") &&
				!strings.Contains(n.Name, "τ=+Inf:") && n.Ours <= w0 {
				t.Errorf("%s: %g, want more than τ = 0's %g (probe evaluations)", n.Name, n.Ours, w0)
			}
		}
	}
	// Replanning slides by one frame: the protocol note says S = 1, never the zoo's chunk stride.
	said := false
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "Protocol:") {
			said = strings.Contains(n, "S = 1,")
		}
	}
	if !said {
		t.Errorf("planning_threshold's protocol note does not say S = 1: %q", r.Notes)
	}
	for _, n := range r.Numbers {
		if n.Stride != 1 {
			t.Errorf("%s: stride %d, want 1", n.Name, n.Stride)
		}
	}
	// The frontier draws each point's FVD ± its standard error (the table's ±) as an error bar,
	// and a note says so.
	fig := r.Figures["planning_threshold"]
	if fig == nil || len(fig.Panels) != 1 || len(fig.Panels[0].Series) != 3 {
		t.Fatalf("planning_threshold's figure: %+v, want one panel of 3 methods", fig)
	}
	for _, s := range fig.Panels[0].Series {
		if !s.Bars || len(s.Lo) != len(s.Y) {
			t.Errorf("%s: bars %v, %d lows for %d points; want error bars at every point", s.Name, s.Bars, len(s.Lo), len(s.Y))
			continue
		}
		for j, label := range s.Labels {
			n := num(t, r, s.Name+", "+label+":", "FVD (maze-I3D)")
			if s.Y[j] != n.Ours || math.Abs(s.Lo[j]-(n.Ours-n.Err)) > 1e-12 || math.Abs(s.Hi[j]-(n.Ours+n.Err)) > 1e-12 {
				t.Errorf("%s, %s: drawn %g [%g, %g], want the table's %g ± %g", s.Name, label, s.Y[j], s.Lo[j], s.Hi[j], n.Ours, n.Err)
			}
		}
	}
	if !slices.Contains(r.Notes, "The figure's error bars are each FVD ± its standard error, as the table gives it.") {
		t.Errorf("no note says what the error bars are: %q", r.Notes)
	}
}

// Over two evaluation seeds the frontier's error bars have a length: budget_adaptive's points
// are drawn at FVD ± the standard error the table gives, not at the point.
func TestFrontierErrorBarsOverSeeds(t *testing.T) {
	e, _ := ByName("budget_adaptive")
	c := quick()
	c.Seeds = 2
	r, err := e.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var fvds []Number // the table's FVDs with a standard error
	for _, n := range r.Numbers {
		if strings.HasSuffix(n.Name, ": FVD (maze-I3D)") && !isDifference(n) && n.Err > 0 {
			fvds = append(fvds, n)
		}
	}
	drawn := 0
	for _, f := range r.Figures {
		for _, p := range f.Panels {
			for _, s := range p.Series {
				for j := range s.Lo {
					if !s.Bars || s.Hi[j] == s.Lo[j] {
						continue
					}
					drawn++
					k := slices.IndexFunc(fvds, func(n Number) bool { return n.Ours == s.Y[j] })
					if k < 0 || math.Abs(s.Lo[j]-(fvds[k].Ours-fvds[k].Err)) > 1e-12 || math.Abs(s.Hi[j]-(fvds[k].Ours+fvds[k].Err)) > 1e-12 {
						t.Errorf("%s: a bar [%g, %g] at FVD %g that is no table FVD ± its standard error", s.Name, s.Lo[j], s.Hi[j], s.Y[j])
					}
				}
			}
		}
	}
	if len(fvds) == 0 || drawn != len(fvds) {
		t.Errorf("%d error bars drawn, %d FVDs with a standard error in the table: want as many, more than none", drawn, len(fvds))
	}
}

// Early stopping never takes more than its cap plus its cleanup per frame chunk.
func TestAdaptiveEarlyStoppingQuick(t *testing.T) {
	r := run(t, "adaptive_early_stopping")
	finite(t, r)
	p := quick().protocol()
	for _, n := range r.Numbers {
		if isDifference(n) {
			if strings.Contains(n.Name, "NFE per frame") && math.Abs(n.Ours) > float64(p.Depth+2) {
				t.Errorf("%s = %g, want within ±(D + C_s) = ±%d", n.Name, n.Ours, p.Depth+2)
			}
			continue
		}
		if strings.Contains(n.Name, "σ_thresh") && strings.Contains(n.Name, "NFE per frame") && (n.Ours <= 0 || n.Ours > float64(p.Depth+2)) {
			t.Errorf("%s = %g, want in (0, D + C_s = %d]", n.Name, n.Ours, p.Depth+2)
		}
	}
}

// Miss rates fall with the level; FM's told schedule is what the figure draws dashed.
func TestUnfinishedDenoisingQuick(t *testing.T) {
	r := run(t, "unfinished_denoising")
	finite(t, r)
	for _, m := range []string{"FM Euler", "NU-FM", "EqF NAG"} {
		prev := 2.0
		for _, a := range []string{"0.005", "0.01", "0.02", "0.05", "0.1"} {
			v := num(t, r, m, "miss rate at σ = "+a+"").Ours
			if v > prev || v < 0 || v > 1 {
				t.Errorf("%s: miss rate %g at σ = %s after %g", m, v, a, prev)
			}
			prev = v
		}
	}
	// Paired differences need two training seeds (TestAnalysesOverTrainingSeeds has them).
	for _, n := range r.Numbers {
		if strings.Contains(n.Name, "paired") {
			t.Errorf("%q with one training seed", n.Name)
		}
	}
}

// Field agreement: a correlation, non-negative MSEs, and the relative MSE as defined.
func TestFieldAgreementQuick(t *testing.T) {
	r := run(t, "fm_eqf_field_agreement")
	finite(t, r)
	if p := num(t, r, "Pearson").Ours; p < -1 || p > 1 {
		t.Errorf("Pearson %g", p)
	}
	if f := num(t, r, "FM/EqF field MSE").Ours; !(f > 0) {
		t.Errorf("field MSE %g: the two fields were identical", f)
	}
}

// The analyses average over training seeds as the rollout experiments do: with two training
// seeds a result lists both (TrainSeeds, Models) and its numbers move from the first seed's
// (were the second seed's models the first's, they would not), with ± over the training seeds.
func TestAnalysesOverTrainingSeeds(t *testing.T) {
	c := quick()
	c.TrainSeeds = 2
	for _, name := range []string{"fm_eqf_field_agreement", "bowls", "inpainting", "margred", "unfinished_denoising"} {
		t.Run(name, func(t *testing.T) {
			one := run(t, name)
			e, err := ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			two, err := e.Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(two.TrainSeeds) != "[1 2]" || fmt.Sprint(one.TrainSeeds) != "[1]" {
				t.Errorf("TrainSeeds %v (one seed: %v), want [1 2] ([1])", two.TrainSeeds, one.TrainSeeds)
			}
			seed2 := false
			for k := range two.Models {
				seed2 = seed2 || strings.Contains(k, "training seed 2")
			}
			if !seed2 {
				t.Errorf("Models %v: no training seed 2", two.Models)
			}
			if name == "margred" { // h_ω − g_φ near σ = 0, paired by training seed, with its interval
				d := num(t, two, "h_ω − g_φ", "paired by training seed")
				if len(d.PerSeed) != 2 || !(d.Lo <= d.Ours && d.Ours <= d.Hi) || d.Verdict == "" {
					t.Errorf("margred's paired difference: %+v", d)
				}
			}
			if name == "unfinished_denoising" { // App. B.4's claims: each seed's difference of the per-method rows
				checkTerminationPairs(t, two)
			}
			a, b := one.Numbers[0], two.Numbers[0]
			if a.Name != b.Name || a.Ours == b.Ours || !(b.Err > 0) {
				t.Errorf("%q: one seed %g ± %g, two seeds %g ± %g: want another mean with a spread over seeds", b.Name, a.Ours, a.Err, b.Ours, b.Err)
			}
		})
	}
}

// FLOPs: FM and EqF share the architecture; the count is read off the model's weights, so it
// must equal the hand count of the quick DiT.
func TestForwardComputeQuick(t *testing.T) {
	r := run(t, "forward_compute")
	if a, b := num(t, r, "FM backbone").Ours, num(t, r, "EqF backbone").Ours; a != b || !(a > 0) {
		t.Errorf("FM %g and EqF %g GFLOPs", a, b)
	}
	c := quickZoo.Recipe.DiT
	T := quickZoo.Recipe.Frames
	N := (c.Height / c.Patch) * (c.Width / c.Patch)
	d, pp, mlp := c.Hidden, c.Channels*c.Patch*c.Patch, int(c.MLPRatio*float64(c.Hidden))
	L := T * N
	tokens := pp*d + c.Depth*(3*d*d+d*d+d*mlp+mlp*d) + d*pp
	frames := c.LevelFreqs*d + d*d + c.CondDim*d + c.Depth*6*d*d + 2*d*d
	want := 2*float64(tokens*L+frames*T) + float64(c.Depth)*4*float64(L*L*d)
	if got := num(t, r, "FM backbone").Ours * 1e9; math.Abs(got-want) > 1e-6*want {
		t.Errorf("backbone FLOPs %g, want the hand count %g", got, want)
	}
	// The benchmarks' analytic count (DiTConfig.FLOPs) agrees with the weights on every CPU preset.
	for _, name := range []string{"tiny", "small", "medium"} {
		cfg := eqflib.DiTPresets[name]
		m, err := eqflib.NewDiT(cfg, false, 1, dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		// The variables are created by the first forward pass.
		x := eqflib.MustNewWindow(1, 4, cfg.Channels, cfg.Height, cfg.Width)
		if _, err := m.WithConditions(make([]float64, 4*cfg.CondDim)).Eval(x, nil, eqflib.EvalOptions{}); err != nil {
			t.Fatal(err)
		}
		fromWeights, err := DiTFLOPs(m, 4)
		if err != nil {
			t.Fatal(err)
		}
		if f := cfg.FLOPs(4); math.Abs(f-fromWeights) > 1e-9*fromWeights {
			t.Errorf("%s: DiTConfig.FLOPs %g, weights count %g", name, f, fromWeights)
		}
	}
}

// Every timed sampler took a positive time per step; runtime is reported, never asserted.
func TestSamplingRuntimeQuick(t *testing.T) {
	r := run(t, "sampling_runtime")
	finite(t, r)
	for _, n := range r.Numbers {
		if !(n.Ours > 0) {
			t.Errorf("%s = %g", n.Name, n.Ours)
		}
	}
}

// A readout can be dropped and trained afresh (Fig. nle's protocol).
func TestNLEQuick(t *testing.T) {
	r := run(t, "nle")
	finite(t, r)
	for _, n := range []string{"h_ω held-out σ MAE after", "g_φ held-out σ MAE after"} {
		for _, x := range r.Numbers {
			if strings.HasPrefix(x.Name, n) && (x.Ours <= 0 || x.Ours > 1) {
				t.Errorf("%s = %g", x.Name, x.Ours)
			}
		}
	}
}

// Paired differences cancel what the seeds share: methods that differ by a constant on every
// seed differ by exactly it, with no standard error, however much the seeds vary.
func TestPairedDifferences(t *testing.T) {
	mk := func(name string, fvd ...float64) methodScores {
		s := methodScores{m: method{Name: name}}
		for _, v := range fvd {
			s.per = append(s.per, &scores{FVD: v})
		}
		return s
	}
	rows := []methodScores{mk("A", 90, 60, 120), mk("FM Euler", 95, 65, 125), mk("B", 100, 60, 125)}
	got := paired(rows, 1)
	if len(got) != 2 || got[0].Ours != -5 || got[0].Err != 0 || !strings.Contains(got[0].Name, "FVD − FM Euler's") {
		t.Fatalf("paired: %+v", got)
	}
	if m, se := got[1].Ours, got[1].Err; math.Abs(m-0) > 1e-12 || math.Abs(se-math.Sqrt(50.0/2/3)) > 1e-12 {
		t.Errorf("B − FM: %g ± %g, want 0 ± √(50/6)", m, se)
	}
}

// The paper's rolling staircase (S = 1) runs every rollout experiment's protocol: each emitted
// frame costs D·S/H evaluations plus the bake-in, every rollout number records S = 1, and a
// stride the horizon does not allow is refused by name.
func TestStaircaseQuick(t *testing.T) {
	c := quick()
	c.Stride = 1
	r, err := AbsResidualAndFVDOverTime(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	finite(t, r)
	p, H := quick().protocol(), quickZoo.Recipe.Frames-quickZoo.Recipe.Context
	for _, n := range r.Numbers {
		if n.Stride != 1 {
			t.Errorf("%s: stride %d, want 1", n.Name, n.Stride)
		}
	}
	nfe := num(t, r, "FM Euler (c-function)", "NFE per frame").Ours
	if lo, hi := float64(p.Depth)/float64(H), float64(p.Depth)/float64(H)*2; nfe <= lo || nfe > hi {
		t.Errorf("FM Euler at S = 1: %g NFE per frame, want D·S/H = %g plus the bake-in's share (≤ %g)", nfe, lo, hi)
	}
	chunked := run(t, "abs_residual_and_fvd_over_time")
	if s := num(t, chunked, "FM Euler (c-function)", "FVD").Stride; s != H {
		t.Errorf("default protocol: stride %d, want H = %d", s, H)
	}
	c.Stride = H + 1
	if _, err := AbsResidualAndFVDOverTime(context.Background(), c); err == nil || !strings.Contains(err.Error(), "Config.Stride") {
		t.Errorf("stride H+1: %v, want an error naming Config.Stride", err)
	}
}

// Both protocols side by side in one result: every method at S = H and S = 1, rows named by
// their stride, comparisons between methods only within a stride, and each method's S = 1
// against its S = H (strideEffects) with no verdict.
func TestStridesSideBySideQuick(t *testing.T) {
	c := quick()
	c.Strides, c.Seeds = []int{0, 1}, 2 // two evaluation seeds, so that there is something to pair
	r, err := AbsResidualAndFVDOverTime(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	H := quickZoo.Recipe.Frames - quickZoo.Recipe.Context
	for _, s := range []int{H, 1} {
		n := num(t, r, fmt.Sprintf("S=%d: FM Euler (c-function)", s), "FVD (maze")
		if n.Stride != s {
			t.Errorf("S=%d row: stride %d", s, n.Stride)
		}
	}
	pairs, across, growths, claimed := 0, 0, 0, 0
	for _, n := range r.Numbers {
		if strings.Contains(n.Name, "frames 1–") && strings.Contains(n.Name, "paired") { // a curve's last chunk − its first
			growths++
			told := strings.Contains(n.Name, "FM Euler (c-function)")
			if told != (n.Paper != "") || told != (n.Verdict != "") {
				t.Errorf("%+v: the paper claims growth for FM told its schedule only", n)
			}
			if told {
				claimed++
			}
			continue
		}
		if strings.Contains(n.Name, fmt.Sprintf("FVD at S=1 − at S=%d, paired", H)) {
			across++
			if n.Verdict != "" || n.Paper != "" || len(n.PerSeed) != 0 && n.Lo == 0 {
				t.Errorf("%+v: the paper compares no strides", n)
			}
			continue
		}
		if strings.Contains(n.Name, "paired") {
			pairs++
			if want := fmt.Sprintf("S=%d: ", n.Stride); !strings.HasPrefix(n.Name, want) || !strings.Contains(n.Name, "− "+want) {
				t.Errorf("%q (stride %d): a comparison across strides", n.Name, n.Stride)
			}
		}
	}
	if pairs != 6 { // FM on g_φ and EqF against FM Euler, EqF against FM on g_φ, at each of two strides
		t.Errorf("%d paired comparisons, want 6", pairs)
	}
	if growths != 12 || claimed != 4 { // FVD and divergence of each method at each stride; FM Euler's claimed
		t.Errorf("%d growths over the rollout (%d with the paper's claim), want 12 (4)", growths, claimed)
	}
	if across != 3 || !slices.Contains(r.Notes, strideEffectNote) { // each of the three methods
		t.Errorf("%d comparisons across strides, want 3 and the note saying what they are", across)
	}
	// The figures put the strides side by side: a point per method and stride, and a row of
	// panels per stride on shared y axes (one per quantity), the methods named without a tag.
	if f := r.Figures["fvd"]; len(f.Panels[0].Series) != 2 || f.Panels[0].Series[1].Name != "S=1" || len(f.Panels[0].XTicks) != 3 {
		t.Errorf("fvd: %d series, ticks %q: want one series per stride over the 3 methods", len(f.Panels[0].Series), f.Panels[0].XTicks)
	}
	if f := r.Figures["abs_residual_and_fvd_over_time"]; len(f.Panels) != 4 || f.Cols != 2 || !strings.HasPrefix(f.Panels[2].Title, "S=1: ") || f.Panels[0].YMax != f.Panels[2].YMax ||
		f.Panels[1].YMax != f.Panels[3].YMax || f.Panels[0].YMax == f.Panels[1].YMax || strings.HasPrefix(f.Panels[1].Series[0].Name, "S=") {
		t.Errorf("divergence and FVD over time: want a row of 2 panels per stride, each column on one y range")
	}
	// The compute frontiers pair each method's strides at every depth.
	f, err := FixedComputeScaling(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	across = 0
	for _, n := range f.Numbers {
		if strings.Contains(n.Name, fmt.Sprintf(": FVD at S=1 − at S=%d, paired", H)) {
			across++
		}
	}
	if want := len(c.depths()) * (len(mainMethods(1)) - 1); across != want { // minecraft_main's methods but Diffusion
		t.Errorf("fixed_compute_scaling: %d comparisons across strides, want %d (every method at every depth)", across, want)
	}
	// Its figure: a panel per stride on shared axes, a curve per method named without its tag,
	// the legend in the first panel only.
	g := f.Figures["fixed_compute_scaling"]
	if len(g.Panels) != 2 || g.Cols != 2 || g.Panels[0].Title != fmt.Sprintf("S = %d: chunk by chunk", H) || g.Panels[1].Title != "S = 1: the paper's staircase" {
		t.Fatalf("fixed_compute_scaling: %d panels in %d columns, titled %q, %q: want one per stride", len(g.Panels), g.Cols, g.Panels[0].Title, g.Panels[len(g.Panels)-1].Title)
	}
	a, b := g.Panels[0], g.Panels[1]
	if a.YMin != b.YMin || a.YMax != b.YMax || a.XMin != b.XMin || a.XMax != b.XMax || !(a.XMin < a.XMax) || a.Legend == "none" || b.Legend != "none" {
		t.Errorf("fixed_compute_scaling: the stride panels do not share their axes and legend: %+v / %+v", a, b)
	}
	for _, p := range g.Panels {
		if len(p.Series) != len(mainMethods(1))-1 || strings.HasPrefix(p.Series[0].Name, "S=") {
			t.Errorf("fixed_compute_scaling panel %q: %d curves, the first %q: want one per method, untagged", p.Title, len(p.Series), p.Series[0].Name)
		}
	}
}

// checkTerminationPairs checks unfinished_denoising's paired rows against its per-method rows:
// each mean is the mean over training seeds of the per-seed differences (or log10 ratios), whose
// per-seed values average to the per-method means' difference for the linear ones.
func checkTerminationPairs(t *testing.T, r *Result) {
	t.Helper()
	fm := num(t, r, "FM Euler (c-function): mean termination")
	gd := num(t, r, "NU-FM GD (open loop, identity): mean termination")
	eqf := num(t, r, "EqF NAG μ=0.3 (closed loop, c-function): mean termination")
	for _, c := range []struct {
		name string
		want float64 // NaN: not linear in the per-method means
	}{{"EqF NAG − FM Euler", eqf.Ours - fm.Ours}, {"log10(EqF NAG / FM Euler)", math.NaN()}, {"EqF NAG (closed loop) − NU-FM GD", eqf.Ours - gd.Ours}} {
		n := num(t, r, c.name)
		if len(n.PerSeed) != 2 || !(n.Lo <= n.Ours && n.Ours <= n.Hi) || n.Verdict == "" || math.Abs(n.Ours-(n.PerSeed[0]+n.PerSeed[1])/2) > 1e-12 ||
			!math.IsNaN(c.want) && math.Abs(n.Ours-c.want) > 1e-12 {
			t.Errorf("%s: %+v, want two per-seed values averaging to %g within [Lo, Hi], with a verdict", c.name, n, c.want)
		}
	}
}

// Table fm_conditioning_ablation's claim is paired per sampler and stride: each g_φ row minus
// the σ row before it, never across samplers or strides, with the paper's difference beside.
func TestConditioningPairs(t *testing.T) {
	mk := func(name string, stride int, fvd ...float64) methodScores {
		s := methodScores{m: method{Name: name, Stride: stride}, run: []int{1, 2, 3}}
		for _, v := range fvd {
			s.per = append(s.per, &scores{FVD: v})
		}
		return s
	}
	var rows []methodScores
	for _, s := range []int{2, 1} {
		rows = append(rows,
			mk("FM Euler, identity, σ", s, 100, 110, 120), mk("FM Euler, identity, g_φ", s, 95, 104, 116),
			mk("FM Euler, c-function, σ", s, 90, 90, 90), mk("FM Euler, c-function, g_φ", s, 91, 92, 93),
			mk("FM NAG μ=0.2, c-function, σ", s, 78, 80, 82), mk("FM NAG μ=0.2, c-function, g_φ", s, 79, 81, 83))
	}
	rows[0].m.Paper, rows[1].m.Paper = "126.633", "121.145"
	rows[2].m.Paper, rows[4].m.Paper = "103.610", "1045.633"
	got := conditioningPairs(rows, 6)
	if len(got) != 8 {
		t.Fatalf("%d pairs, want 8 (three samplers and NAG against Euler × two strides): %+v", len(got), got)
	}
	id, c, nag := got[0], got[1], got[3]
	if !strings.HasPrefix(id.Name, "FM Euler, identity, g_φ: FVD − FM Euler, identity, σ's") || id.Stride != 2 || got[4].Stride != 1 {
		t.Errorf("pair names/strides: %q S=%d, S=%d", id.Name, id.Stride, got[4].Stride)
	}
	// Open-loop NAG against Euler: −10 on average where the paper's NAG diverges (+942.02).
	if !strings.HasPrefix(nag.Name, "FM NAG μ=0.2, c-function, σ: FVD − FM Euler, c-function, σ's") || nag.Ours != -10 || nag.Paper != "+942.02" || nag.Verdict != Differs {
		t.Errorf("NAG against Euler: %+v, want −10, paper +942.02, differs", nag)
	}
	if math.Abs(id.Ours-(-5)) > 1e-12 || id.Paper != "-5.49" || id.Verdict != Agrees || !(id.Hi < 0) {
		t.Errorf("identity pair: %+v, want −5 with an interval below 0, paper −5.49, agrees", id)
	}
	if math.Abs(c.Ours-2) > 1e-12 || c.Paper != "" || c.Verdict != "" {
		t.Errorf("c-function pair: %+v, want +2 with no paper value", c)
	}
}

// App. J.2's compute-at-equal-FVD claim, paired by training seed: FM's cheapest point at or
// below adaptive EqF's best FVD against EqF's compute there; an upper bound, so it can only
// differ from the paper's 13–29 % (below 13 %), never agree.
func TestExtraComputeAtEqualFVD(t *testing.T) {
	pt := func(nfe float64, fvd ...float64) methodScores { // one evaluation seed per training seed
		s := methodScores{}
		for k, v := range fvd {
			s.per, s.run = append(s.per, &scores{FVD: v, NFEPerFrame: nfe}), append(s.run, k+1)
		}
		return s
	}
	eqf := curve{name: "EqF budget-adaptive NAG μ=0.1", points: []methodScores{pt(40, 10, 11, 12), pt(30, 15, 16, 17), pt(20, 19, 20, 21)}}
	fm := curve{name: "FM Euler", points: []methodScores{pt(40, 4, 4, 4), pt(30, 6, 6, 13), pt(20, 8, 9, 30)}}
	n, ok := extraComputeAtEqualFVD(fm, eqf)
	// Seeds 1 and 2: FM's 20-evaluation point (FVD 8, 9) beats EqF's best (10, 11) at 40: −50 %;
	// seed 3: FVD 13 > 12 at 30 evaluations, so the 40-evaluation point: 0 %.
	if !ok || len(n.PerSeed) != 3 || n.PerSeed[0] != -50 || n.PerSeed[1] != -50 || n.PerSeed[2] != 0 {
		t.Fatalf("extra compute: ok %v, %+v; want per seed −50, −50, 0 %%", ok, n)
	}
	if n.Verdict != Inconclusive || !(n.Lo < -50 && n.Hi > 13) {
		t.Errorf("interval [%g, %g] reaches above 13 %%: verdict %q, want inconclusive", n.Lo, n.Hi, n.Verdict)
	}
	fm.points[1].per[2].FVD = 6 // seed 3 now −25 %: every seed well below 13 %
	if n, _ = extraComputeAtEqualFVD(fm, eqf); n.Verdict != Differs || !(n.Hi < 13) {
		t.Errorf("%+v: want differs (an upper bound below the paper's 13 %%)", n)
	}
	for _, p := range fm.points { // FM never reaches EqF's best FVD: no row
		for _, s := range p.per {
			s.FVD = 50
		}
	}
	if _, ok := extraComputeAtEqualFVD(fm, eqf); ok {
		t.Error("a row although FM never reaches EqF's best FVD")
	}
}

// Table mc_eq_finetune states its claims as paired differences by training seed: every row
// against FM Euler (the finetune with NAG carries the paper's 74.54 − 100.48) and the finetune
// against EqF trained from scratch with the same sampler (no paper number, so no verdict),
// within each stride when two are run side by side.
func TestFinetunePairs(t *testing.T) {
	mk := func(name, paper string, stride int, fvd ...float64) methodScores {
		s := methodScores{m: method{Name: name, Paper: paper, Stride: stride}, run: []int{1, 2, 3}}
		for _, v := range fvd {
			s.per = append(s.per, &scores{FVD: v})
		}
		return s
	}
	var rows []methodScores
	for _, s := range []int{2, 1} {
		p := fmt.Sprintf("S=%d: ", s)
		rows = append(rows,
			mk(p+"FM → EqF finetune, NAG μ=0.2 (closed loop, c-function)", "74.54", s, 60, 64, 65),
			mk(p+"FM → EqF finetune, GD (open loop, c-function)", "", s, 61, 63, 59),
			mk(p+"FM Euler (c-function)", "100.48 (FM trained on as long)", s, 50, 52, 54),
			mk(p+"EqF from scratch, NAG μ=0.2 (closed loop, c-function)", "", s, 50, 46, 55))
	}
	got := finetunePairs(rows, 4)
	if len(got) != 8 {
		t.Fatalf("%d paired numbers, want per stride 3 against FM and 1 against EqF from scratch: %+v", len(got), got)
	}
	want := []struct {
		name, paper, verdict string
		mean                 float64
	}{
		{"S=_: FM → EqF finetune, NAG μ=0.2 (closed loop, c-function): FVD − S=_: FM Euler's", "-25.94", Differs, 11},               // 10, 12, 11: [8.5, 13.5]
		{"S=_: FM → EqF finetune, GD (open loop, c-function): FVD − S=_: FM Euler's", "", "", 9},                                    // 11, 11, 5
		{"S=_: EqF from scratch, NAG μ=0.2 (closed loop, c-function): FVD − S=_: FM Euler's", "", "", -5.0 / 3},                     // 0, −6, 1
		{"S=_: FM → EqF finetune, NAG μ=0.2 (closed loop, c-function): FVD − S=_: EqF from scratch, NAG μ=0.2's", "", "", 38.0 / 3}, // 10, 18, 10
	}
	for i, g := range got {
		w, s := want[i%4], []int{2, 1}[i/4]
		w.name = strings.ReplaceAll(w.name, "S=_", fmt.Sprintf("S=%d", s))
		if !strings.HasPrefix(g.Name, w.name) || g.Stride != s || g.Paper != w.paper || g.Verdict != w.verdict || math.Abs(g.Ours-w.mean) > 1e-12 || len(g.PerSeed) != 3 {
			t.Errorf("pair %d: %q paper %q verdict %q = %g (per seed %v); want %q paper %q verdict %q = %g",
				i, g.Name, g.Paper, g.Verdict, g.Ours, g.PerSeed, w.name, w.paper, w.verdict, w.mean)
		}
	}
}

// TestFrontierPairs checks the claims of the compute figures against hand-computed paired
// differences: per stride and depth, a − b per training seed, its t-interval and the verdict
// against the claim's sign; with one training seed, no interval and an inconclusive verdict.
func TestFrontierPairs(t *testing.T) {
	pt := func(name string, stride int, run []int, fvd ...float64) methodScores {
		s := methodScores{m: method{Name: name, Stride: stride}, run: run}
		for _, v := range fvd {
			s.per = append(s.per, &scores{FVD: v})
		}
		return s
	}
	seeds := []int{1, 2, 3}
	var curves []curve
	for _, s := range []int{2, 1} {
		p := fmt.Sprintf("S=%d: ", s)
		curves = append(curves,
			curve{name: p + "ref", labels: []string{"D=10", "D=20"}, points: []methodScores{pt("ref", s, seeds, 50, 52, 54), pt("ref", s, seeds, 40, 41, 42)}},
			curve{name: p + "one", labels: []string{"D=10", "D=20"}, points: []methodScores{pt("one", s, seeds, 60, 64, 65), pt("one", s, seeds, 41, 40, 45)}},
			curve{name: p + "two", labels: []string{"D=10", "D=20"}, points: []methodScores{pt("two", s, seeds, 48, 48, 51), pt("two", s, seeds, 40, 41, 42)}})
	}
	claims := []claim{{a: 1, b: 0, sign: +1, paper: "> 0"}, {a: 2, b: 0, sign: +1, paper: "> 0"}}
	got := frontierPairs(curves, 3, claims)
	want := []struct {
		name, verdict string
		mean          float64
	}{
		{"S=_: one − ref at D=10: FVD, paired by training seed", Agrees, 11},      // 10, 12, 11: [8.5, 13.5]
		{"S=_: one − ref at D=20: FVD, paired by training seed", Inconclusive, 1}, // 1, −1, 3: [−4.0, 6.0]
		{"S=_: two − ref at D=10: FVD, paired by training seed", Differs, -3},     // −2, −4, −3: [−5.5, −0.5]
		{"S=_: two − ref at D=20: FVD, paired by training seed", Inconclusive, 0}, // 0, 0, 0: no interval
	}
	if len(got) != 2*len(want) {
		t.Fatalf("%d paired numbers, want %d (2 strides × 2 claims × 2 depths): %+v", len(got), 2*len(want), got)
	}
	for i, g := range got {
		w, s := want[i%4], []int{2, 1}[i/4]
		w.name = strings.ReplaceAll(w.name, "S=_", fmt.Sprintf("S=%d", s))
		if g.Name != w.name || g.Stride != s || g.Paper != "> 0" || g.Verdict != w.verdict || math.Abs(g.Ours-w.mean) > 1e-12 || len(g.PerSeed) != 3 {
			t.Errorf("pair %d: %q stride %d paper %q verdict %q = %g (per seed %v); want %q stride %d verdict %q = %g",
				i, g.Name, g.Stride, g.Paper, g.Verdict, g.Ours, g.PerSeed, w.name, s, w.verdict, w.mean)
		}
	}
	// One training seed (three evaluation seeds): a standard error, no interval, no verdict.
	one := []curve{
		{name: "ref", labels: []string{"D=10"}, points: []methodScores{pt("ref", 2, []int{1, 1, 1}, 50, 52, 54)}},
		{name: "one", labels: []string{"D=10"}, points: []methodScores{pt("one", 2, []int{1, 1, 1}, 60, 64, 65)}},
	}
	got = frontierPairs(one, 2, claims[:1])
	if len(got) != 1 || got[0].Name != "one − ref at D=10: FVD, paired by evaluation seed (one training seed)" || got[0].Verdict != Inconclusive || math.Abs(got[0].Ours-11) > 1e-12 {
		t.Errorf("one training seed: %+v; want one pair by evaluation seed = 11, inconclusive", got)
	}
	// One rollout set (one training and one evaluation seed): its difference alone.
	one = []curve{
		{name: "ref", labels: []string{"D=10"}, points: []methodScores{pt("ref", 2, []int{1}, 50)}},
		{name: "one", labels: []string{"D=10"}, points: []methodScores{pt("one", 2, []int{1}, 63)}},
	}
	got = frontierPairs(one, 2, claims[:1])
	if len(got) != 1 || got[0].Name != "one − ref at D=10: FVD"+pairedOnOneSet || got[0].Ours != 13 || got[0].Err != 0 || got[0].Verdict != Inconclusive {
		t.Errorf("one rollout set: %+v; want its difference 13, no error, inconclusive", got)
	}
}

// TestEarlyStopPairs checks adaptive_early_stopping's claims on hand-made scores: NAG's NFE −
// GD's at every σ_thresh (paper < 0), and FVD at σ_thresh = 0.3 minus at 0.7 and at 0.1 for
// each sampler (paper < 0), paired by training seed with the paper's difference beside.
func TestEarlyStopPairs(t *testing.T) {
	seeds := []int{1, 2, 3}
	pt := func(paper string, nfe, fvd [3]float64) methodScores {
		s := methodScores{m: method{Paper: paper, Stride: 2}, run: seeds}
		for i := range 3 {
			s.per = append(s.per, &scores{NFEPerFrame: nfe[i], FVD: fvd[i]})
		}
		return s
	}
	threshes := []float64{0.7, 0.3, 0.1}
	gd := curve{name: "GD", labels: []string{"a", "b", "c"}, points: []methodScores{
		pt("161.67", [3]float64{8, 8, 9}, [3]float64{70, 72, 80}),
		pt("86.70", [3]float64{12, 13, 14}, [3]float64{50, 52, 54}),
		pt("94.75", [3]float64{18, 18, 18}, [3]float64{51, 51, 57})}}
	nag := curve{name: "NAG", labels: gd.labels, points: []methodScores{
		pt("161.59", [3]float64{6, 7, 7}, [3]float64{69, 75, 75}),
		pt("86.55", [3]float64{14, 16, 18}, [3]float64{50, 50, 50}),
		pt("98.12", [3]float64{18, 18, 18}, [3]float64{46, 47, 47})}}
	got := earlyStopPairs(gd, nag, threshes)
	want := []struct {
		name, paper, verdict string
		mean                 float64
	}{
		{"NAG − GD at σ_thresh=0.7: NFE per frame, paired by training seed", "-1.7 (26.0 − 27.7)", Agrees, -5.0 / 3},                          // −2, −1, −2: [−3.1, −0.23]
		{"NAG − GD at σ_thresh=0.3: NFE per frame, paired by training seed", "-4.1 (45.7 − 49.8)", Differs, 3},                                // 2, 3, 4: [0.52, 5.48]
		{"NAG − GD at σ_thresh=0.1: NFE per frame, paired by training seed", "-10.2 (57.4 − 67.6)", Inconclusive, 0},                          // 0, 0, 0: [0, 0] touches 0
		{"GD, σ_thresh=0.3 − σ_thresh=0.7: FVD, paired by training seed", "-74.97 (86.70 − 161.67; 0.3 the table's best)", Agrees, -22},       // −20, −20, −26: [−30.6, −13.4]
		{"GD, σ_thresh=0.3 − σ_thresh=0.1: FVD, paired by training seed", "-8.05 (86.70 − 94.75; 0.3 the table's best)", Inconclusive, -1},    // −1, 1, −3: [−6, 4]
		{"NAG, σ_thresh=0.3 − σ_thresh=0.7: FVD, paired by training seed", "-75.04 (86.55 − 161.59; 0.3 the table's best)", Agrees, -23},      // −19, −25, −25: [−31.6, −14.4]
		{"NAG, σ_thresh=0.3 − σ_thresh=0.1: FVD, paired by training seed", "-11.57 (86.55 − 98.12; 0.3 the table's best)", Differs, 10.0 / 3}, // 4, 3, 3: [1.9, 4.8]
	}
	if len(got) != len(want) {
		t.Fatalf("%d paired numbers, want %d: %+v", len(got), len(want), got)
	}
	for i, g := range got {
		w := want[i]
		if g.Name != w.name || g.Paper != w.paper || g.Verdict != w.verdict || math.Abs(g.Ours-w.mean) > 1e-12 || len(g.PerSeed) != 3 {
			t.Errorf("pair %d: %q paper %q verdict %q = %g [%g, %g] (per seed %v); want %q paper %q verdict %q = %g",
				i, g.Name, g.Paper, g.Verdict, g.Ours, g.Lo, g.Hi, g.PerSeed, w.name, w.paper, w.verdict, w.mean)
		}
	}
}

// Config.Models: minecraft_main and fixed_compute_scaling roll out only the named backbones'
// methods and say which they left out; an experiment that needs a backbone left out, a model
// that is no backbone, and fixed_compute_scaling without EqF are errors naming Config.Models.
func TestModelsSubsetQuick(t *testing.T) {
	c := quick()
	c.Models = []string{"fm", "eqf"}
	r, err := MinecraftMain(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, n := range r.Numbers {
		if name, ok := strings.CutSuffix(n.Name, ": FVD (maze-I3D)"); ok {
			rows = append(rows, name)
		}
	}
	var want []string
	for _, m := range mainMethods(1) {
		if m.Model == "fm" || m.Model == "eqf" {
			want = append(want, m.Name)
		}
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows %q, want %q", rows, want)
	}
	if !slices.Contains(r.Notes, "Run with Config.Models (-models) = fm, eqf: EqM NAG μ=0.1 (fixed step); Diffusion DDIM left out.") || slices.Contains(r.Notes, eqmStepNote) {
		t.Errorf("notes %q: want the methods left out named, and no EqM step", r.Notes)
	}
	if _, ok := r.Models["eqm"]; ok {
		t.Errorf("models %v: EqM was not rolled out", r.Models)
	}
	c.Seeds = 2 // something to pair the claims over
	f, err := FixedComputeScaling(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	// FVD and NFE of want's 4 curves at every depth, and the claims against EqF NAG of FM Euler
	// and NU-FM (EqF GD is the same model, EqM is left out).
	if n, w := len(f.Numbers), len(c.depths())*(2*len(want)+2); n != w {
		t.Errorf("fixed_compute_scaling: %d numbers, want %d", n, w)
	}
	c.Seeds = 0
	for _, tc := range []struct {
		models []string
		run    func(context.Context, Config) (*Result, error)
		want   string
	}{
		{[]string{"fm"}, FMEqFFieldAgreement, `leaves out "eqf", which this experiment needs`},
		{[]string{"gphi"}, MinecraftMain, `"gphi" is out of range`},
		{[]string{"eqm"}, FixedComputeScaling, "must include eqf"},
	} {
		c.Models = tc.models
		if _, err := tc.run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "Config.Models") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Models %v: %v, want an error naming Config.Models: %s", tc.models, err, tc.want)
		}
	}
}
