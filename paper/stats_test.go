package paper

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// The 95 % t-interval against Student-t quantiles from a table (t₀.₉₇₅ = 12.706 at 1 degree
// of freedom, 4.303 at 2, 2.262 at 9).
func TestTInterval(t *testing.T) {
	for _, c := range []struct {
		v []float64
		t float64
	}{{[]float64{1, 3}, 12.706}, {[]float64{1, 2, 6}, 4.303}, {[]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 2.262}} {
		m, se := stat(c.v)
		mean, lo, hi := MeanInterval(c.v)
		if mean != m || math.Abs((hi-mean)/se-c.t) > 1e-3 || math.Abs((mean-lo)/se-c.t) > 1e-3 {
			t.Errorf("%v: [%g, %g] around %g (se %g): half-width %g·se, want %g·se", c.v, lo, hi, mean, se, (hi-mean)/se, c.t)
		}
	}
	if _, lo, hi := MeanInterval([]float64{5}); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("one value: [%g, %g], want no interval", lo, hi)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		lo, hi, paper float64
		want          string
	}{
		{-9, -1, -39.8, Agrees}, {1, 9, 12, Agrees},
		{1, 9, -39.8, Differs}, {-9, -1, 3, Differs},
		{-9, 1, -39.8, Inconclusive}, {-9, 1, 3, Inconclusive},
		{math.NaN(), math.NaN(), -3, Inconclusive}, {-9, -1, math.NaN(), Inconclusive}, {-9, -1, 0, Inconclusive},
	} {
		if got := verdict(c.lo, c.hi, c.paper); got != c.want {
			t.Errorf("verdict([%g, %g], paper %g) = %s, want %s", c.lo, c.hi, c.paper, got, c.want)
		}
	}
	// A stated size: only an interval that excludes it decides.
	for _, c := range []struct {
		lo, hi, paper float64
		want          string
	}{{-0.69, 0.06, -1, Differs}, {-1.5, -1.1, -1, Differs}, {-1.2, -0.5, -1, Inconclusive}, {math.NaN(), math.NaN(), -1, Inconclusive}} {
		if got := verdictAt(c.lo, c.hi, c.paper); got != c.want {
			t.Errorf("verdictAt([%g, %g], paper %g) = %s, want %s", c.lo, c.hi, c.paper, got, c.want)
		}
	}
	if v := paperValue("64.34 ± 1.78"); v != 64.34 {
		t.Errorf("paperValue = %g", v)
	}
	if v := paperValue("—"); !math.IsNaN(v) {
		t.Errorf("paperValue(—) = %g, want NaN", v)
	}
}

// Paired by training seed: each training seed's difference is the mean over its evaluation
// seeds; the interval is over training seeds, and the verdict follows the paper's sign.
func TestPairedByTrainingSeed(t *testing.T) {
	mk := func(name, paper string, fvd ...float64) methodScores { // 3 training seeds × 2 evaluation seeds
		s := methodScores{m: method{Name: name, Paper: paper}}
		for i, v := range fvd {
			s.per, s.run = append(s.per, &scores{FVD: v}), append(s.run, 1+i/2)
		}
		return s
	}
	fm := mk("FM Euler", "104.13 ± 4.33", 100, 110, 80, 90, 120, 130)
	eqf := mk("EqF NAG", "64.34 ± 1.78", 90, 96, 70, 78, 111, 117) // −12, −11, −11 per training seed
	noisy := mk("B", "77.63 ± 3.31", 130, 110, 60, 70, 120, 140)   // +15, −20, +5
	got := paired([]methodScores{eqf, fm, noisy}, 1)
	if len(got) != 2 {
		t.Fatalf("paired: %+v", got)
	}
	d := got[0]
	wantMean := (-12.0 - 11 - 11) / 3
	_, lo, hi := MeanInterval([]float64{-12, -11, -11})
	if math.Abs(d.Ours-wantMean) > 1e-12 || math.Abs(d.Lo-lo) > 1e-12 || math.Abs(d.Hi-hi) > 1e-12 || len(d.PerSeed) != 3 {
		t.Errorf("EqF − FM: %+v, want mean %g in [%g, %g] over 3 training seeds", d, wantMean, lo, hi)
	}
	if d.Verdict != Agrees || d.Paper != "-39.79" || !strings.Contains(d.Name, "paired by training seed") {
		t.Errorf("EqF − FM: verdict %q, paper %q, name %q; want agrees with −39.79", d.Verdict, d.Paper, d.Name)
	}
	if got[1].Verdict != Inconclusive {
		t.Errorf("B − FM (+15, −20, +5): verdict %q, want inconclusive", got[1].Verdict)
	}
	// Per training seed, each measure is the mean over evaluation seeds; ± is over training seeds.
	m, se := fm.of(fvdOf)
	if wm, wse := stat([]float64{105, 85, 125}); m != wm || se != wse {
		t.Errorf("FM FVD %g ± %g, want %g ± %g (over training seeds)", m, se, wm, wse)
	}
}

// runStat: the mean over training seeds of each one's mean over evaluation seeds, ± SE over the
// training seeds; one training seed: ± SE over its evaluation seeds.
func TestRunStat(t *testing.T) {
	m, se := runStat([][]float64{{1, 3}, {10}, {4, 6, 8}})
	if wm, wse := stat([]float64{2, 10, 6}); m != wm || se != wse {
		t.Errorf("runStat: %g ± %g, want %g ± %g", m, se, wm, wse)
	}
	m, se = runStat([][]float64{{1, 3, 5}})
	if wm, wse := stat([]float64{1, 3, 5}); m != wm || se != wse {
		t.Errorf("runStat, one training seed: %g ± %g, want %g ± %g", m, se, wm, wse)
	}
}

// EqM's fixed step follows the paper's normaliser at every depth (App. G: A_α/(λ·D) with
// A_α = α + (1−α)·ln((1−α)/σ_end) = 1.8597 for α = 0.8, σ_end = 0.001, λ = 4).
func TestEqMStep(t *testing.T) {
	for _, d := range []int{10, 20, 40} {
		if got, want := eqmStep(d), 1.8596634733096074/(4*float64(d)); math.Abs(got-want) > 1e-9 {
			t.Errorf("D = %d: EqM step %g, want %g", d, got, want)
		}
	}
	for _, m := range mainMethods(20) {
		if m.Model == "eqm" && (!m.eqmStep || m.Sampler.StepSize != eqmStep(20)) {
			t.Errorf("%s: step %g (recomputed per depth: %v)", m.Name, m.Sampler.StepSize, m.eqmStep)
		}
	}
}

// The paper's best-μ values stand beside the row of that μ only.
func TestInferenceGrid(t *testing.T) {
	if bestMomentum("67.94 (μ=0.1)") != 0.1 || !math.IsNaN(bestMomentum("78.69")) {
		t.Error("bestMomentum")
	}
	want := map[float64]bool{0: true, 0.1: true, 0.3: true, 0.5: true}
	for _, mu := range inferenceMomenta {
		delete(want, mu)
	}
	if len(want) != 0 {
		t.Errorf("μ grid %v misses %v", inferenceMomenta, want)
	}
}

// The full protocol's FVDs rest on more clips per side than the features have dimensions; quick
// mode's do not, and its notes say so; a negative Config.Clips is refused by name.
func TestFVDWellPosed(t *testing.T) {
	p := Config{}.protocol()
	d := 2 * eqflib.DefaultActionHidden
	if n, nt := p.Clips*(p.Frames/p.FVDClip), p.Clips*(p.Chunk/5); p.Clips != DefaultRollouts || n <= d || nt <= d {
		t.Errorf("full protocol: %d rollouts, FVD on %d clips per side, over time on %d: want > %d", p.Clips, n, nt, d)
	}
	if q := (Config{Clips: 16}).protocol(); q.Clips != 16 {
		t.Errorf("Config.Clips = 16 gives %d rollouts", q.Clips)
	}
	r := run(t, "minecraft_main")
	found := false
	for _, n := range r.Notes {
		found = found || strings.Contains(n, "not well posed")
	}
	if !found {
		t.Errorf("quick minecraft_main (2 rollouts) does not flag its FVDs as not well posed: %q", r.Notes)
	}
	// What the note says of each protocol: the full one, too few rollouts for FVD over time only,
	// rollouts shorter than a chunk (no FVD over time), planning_threshold's 30 frames, too few
	// clips with the full number of rollouts (its 20 frames of 2026-11-27), and quick mode's.
	net := &eqflib.ActionNet{NetConfig: eqflib.NetConfig{Hidden: eqflib.DefaultActionHidden}}
	for _, c := range []struct {
		p    Protocol
		want string
	}{
		{p, "FVD rests on 640 clips per side (each chunk of FVD over time on 320), above the features' 128 dimensions."},
		{Protocol{Clips: 20, Frames: 100, FVDClip: 10, Chunk: 25}, "FVD rests on 200 clips per side, above the features' 128 dimensions; each chunk of FVD over time on 100, " +
			"no more than the dimensions: their feature covariances are singular, so FVD over time is not well posed (the full protocol has 64 rollouts per seed)."},
		{Protocol{Clips: 100, Frames: 20, FVDClip: 10, Chunk: 25}, "FVD rests on 200 clips per side, above the features' 128 dimensions."},
		{Protocol{Clips: DefaultRollouts, Frames: planningFrames, FVDClip: p.FVDClip, Chunk: p.Chunk}, "FVD rests on 192 clips per side (each chunk of FVD over time on 320), above the features' 128 dimensions."},
		{Protocol{Clips: 64, Frames: 20, FVDClip: 10, Chunk: 25}, "FVD rests on 128 clips per side in 128 feature dimensions: no more clips than dimensions make the feature covariances singular, " +
			"so these FVDs are not well posed (more than 128 clips need more rollouts per seed, Config.Clips, or longer ones)."},
		{Config{Quick: true}.protocol(), "FVD rests on 8 clips per side (each chunk of FVD over time on 4) in 128 feature dimensions: no more clips than dimensions make the feature covariances singular, " +
			"so these FVDs are not well posed (the full protocol has 64 rollouts per seed)."},
	} {
		if got := (&setup{p: c.p, net: net}).fvdNote(); got != c.want {
			t.Errorf("fvdNote of %+v:\n got %q\nwant %q", c.p, got, c.want)
		}
	}
	e, _ := ByName("minecraft_main")
	c := quick()
	c.Clips = -1
	if _, err := e.Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "Config.Clips") {
		t.Errorf("Config.Clips = -1: error %v, want one naming Config.Clips", err)
	}
}

// Full mode reads a paper recipe only: "paper-8" is the paper recipe on 8-frame windows (C = H
// = 4, everything else the same), a guided recipe is refused by name.
func TestPaperRecipes(t *testing.T) {
	z, err := Config{Recipe: "paper-8"}.zoo()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Config{}.zoo()
	r8, r := z.Recipe, p.Recipe
	if r8.Frames != 8 || r8.Context != 4 || !strings.HasSuffix(z.Dir, "models-paper-8") {
		t.Errorf("paper-8: frames %d, context %d, folder %s", r8.Frames, r8.Context, z.Dir)
	}
	r8.Name, r8.Frames, r8.Context = r.Name, r.Frames, r.Context
	if !reflect.DeepEqual(r8, r) {
		t.Errorf("paper-8 differs from the paper recipe beyond its window:\n%+v\n%+v", r8, r)
	}
	if g := z.Geometry(20, 1); g.Horizon != 4 || g.Depth%g.Horizon != 0 {
		t.Errorf("paper-8 at S = 1: %+v, want H = 4 and D a multiple of it", g)
	}
	if _, err := (Config{Recipe: "cpu"}).zoo(); err == nil || !strings.Contains(err.Error(), "Config.Recipe") {
		t.Errorf("Config.Recipe = cpu: %v, want an error naming Config.Recipe", err)
	}
}

// Number.PerSeed holds a measure's value per training seed (each averaged over its evaluation
// seeds), and nothing with one training seed.
func TestPerSeed(t *testing.T) {
	s := methodScores{run: []int{1, 1, 2, 2, 3}}
	for _, v := range []float64{1, 3, 10, 20, 7} {
		s.per = append(s.per, &scores{FVD: v, NFEPerFrame: 2 * v})
	}
	if got := s.perSeed(fvdOf); !slices.Equal(got, []float64{2, 15, 7}) {
		t.Errorf("perSeed(FVD) = %v, want [2 15 7]", got)
	}
	if got := s.perSeed(nfeOf); !slices.Equal(got, []float64{4, 30, 14}) {
		t.Errorf("perSeed(NFE) = %v, want [4 30 14]", got)
	}
	s.run = []int{1, 1, 1, 1, 1}
	if got := s.perSeed(fvdOf); got != nil {
		t.Errorf("one training seed: perSeed = %v, want nil", got)
	}
}

// Table minecraft_inference_expts's comparisons pair the cells they name, within a stride: with
// every FVD made from its row's index and seed, each difference is known exactly; the paper's
// value is its printed cells' difference where it prints both, else the claim's side.
func TestInferencePairs(t *testing.T) {
	ms := inferenceMethods()
	if len(ms) != len(inferenceWarps)*2*len(inferenceMomenta) {
		t.Fatalf("%d rows", len(ms))
	}
	var rows []methodScores
	for _, stride := range []int{2, 1} {
		for i, m := range ms {
			m.Stride = stride
			m.Name = fmt.Sprintf("S=%d: %s", stride, m.Name)
			s := methodScores{m: m}
			for seed := 1; seed <= 3; seed++ {
				s.per, s.run = append(s.per, &scores{FVD: 100*float64(i) + float64(seed*seed)*float64(i%5)}), append(s.run, seed)
			}
			rows = append(rows, s)
		}
	}
	got := inferencePairs(rows, len(ms))
	if len(got) != 2*len(inferenceClaims) {
		t.Fatalf("%d comparisons, want %d per stride", len(got), len(inferenceClaims))
	}
	// c-function closed NAG μ = 0.3 (row 6) − open NAG μ = 0.1 (row 1): the paper's 64.12 − 67.94.
	n := got[4]
	a, b := inferenceRow(0, true, 0.3), inferenceRow(0, false, 0.1)
	if a != 6 || b != 1 {
		t.Fatalf("rows %d, %d", a, b)
	}
	want := []float64{500, 500, 500} // rows 6 and 1: i%5 = 1 for both, so the seed terms cancel
	if !strings.HasPrefix(n.Name, "S=2: c-function, closed loop, NAG μ=0.3 − c-function, open loop, NAG μ=0.1: FVD") ||
		fmt.Sprint(n.PerSeed) != fmt.Sprint(want) || !strings.HasPrefix(n.Paper, "-3.82 (64.12 − 67.94") || n.Stride != 2 {
		t.Errorf("%+v, per seed want %v", n, want)
	}
	if n.Verdict != Differs { // +500 on every seed against the paper's −3.82
		t.Errorf("verdict %q, want %q", n.Verdict, Differs)
	}
	// Open − closed at μ = 0.3 (rows 2 and 6: −400 plus seed², below zero on every seed); the
	// paper prints no open-loop μ = 0.3 cell, so only the side.
	if n := got[0]; n.Paper != "> 0 (closed loop needed for higher μ, Table caption)" || n.Verdict != Differs {
		t.Errorf("%+v", n)
	}
	for _, n := range got[len(inferenceClaims):] {
		if n.Stride != 1 || !strings.HasPrefix(n.Name, "S=1: ") || strings.Contains(n.Name, "− S=") {
			t.Errorf("%q: stride %d", n.Name, n.Stride)
		}
	}
}

// TestStrideEffects: each method's FVD at S = 1 minus its FVD at S = 2, paired by training
// seed, for rows whose per-seed FVDs are known; a method that ran at one stride only (its own
// Stride) has none, and no number carries a verdict (the paper compares no strides).
func TestStrideEffects(t *testing.T) {
	ms := []method{{Name: "A"}, {Name: "B"}, {Name: "C", Stride: 1}}
	var rows []methodScores
	for _, stride := range []int{2, 1} {
		for i, m := range ms {
			if m.Stride != 0 && stride != m.Stride {
				continue
			}
			m.Stride = stride
			m.Name = fmt.Sprintf("S=%d: %s", stride, m.Name)
			s := methodScores{m: m}
			for seed := 1; seed <= 3; seed++ { // S = 1 adds seed·(i+1) to S = 2's 10·i
				s.per, s.run = append(s.per, &scores{FVD: 10*float64(i) + float64(2-stride)*float64(seed*(i+1))}), append(s.run, seed)
			}
			rows = append(rows, s)
		}
	}
	got := strideEffects(rows, "")
	if len(got) != 2 {
		t.Fatalf("%d effects, want 2 (A and B): %+v", len(got), got)
	}
	for i, n := range got {
		want := fmt.Sprint([]float64{float64(i + 1), float64(2 * (i + 1)), float64(3 * (i + 1))})
		name := fmt.Sprintf("%s: FVD at S=1 − at S=2, paired by training seed", ms[i].Name)
		if n.Name != name || fmt.Sprint(n.PerSeed) != want || n.Ours != float64(2*(i+1)) || n.Verdict != "" || n.Paper != "" || !(n.Lo < n.Ours && n.Ours < n.Hi) {
			t.Errorf("%+v, want %q with per seed %s", n, name, want)
		}
	}
}
