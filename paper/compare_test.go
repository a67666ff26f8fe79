package paper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// Compare over two training runs of the quick zoo: every number is the two runs' values side by
// side (each what Compare of that run alone gives), their mean and standard error; each EqF
// sampler's FVD minus FM Euler's is paired by training run with its interval; a run given twice,
// under its own name or another, is refused.
func TestCompareOverTrainingRuns(t *testing.T) {
	var runs []ComparePair
	for _, k := range []int{1, 2} {
		z := quickZoo.WithTrainSeed(k)
		if err := z.Build("action-net", "fm", "eqf"); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, ComparePair{FM: z.ModelDir("fm"), EqF: z.ModelDir("eqf")})
	}
	o := CompareOptions{Features: filepath.Join(quickZoo.ModelDir("action-net"), "action-net.eqf"), Warp: "c:0.8:0.001", Clips: 2, Frames: 10,
		RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 4}, ClipFrames: 5, TimeChunk: 5, Momentum: 0.2, Seed: 3, FeatureSteps: 3}
	var alone []*Result
	for _, run := range runs {
		one := o
		one.FM, one.EqF = run.FM, run.EqF
		r, err := Compare(context.Background(), one)
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, r)
	}
	o.Runs = runs
	var done []*Result // what RunDone is given, run by run
	o.RunDone = func(k int, r *Result) error {
		if k != len(done)+1 {
			t.Errorf("RunDone(%d) after %d runs", k, len(done))
		}
		done = append(done, r)
		return nil
	}
	r, err := Compare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Fatalf("RunDone was given %d runs, want 2", len(done))
	}
	for k, d := range done { // each run's own result: what Compare of that run alone gives
		for i, n := range d.Numbers {
			if a := alone[k].Numbers[i]; n.Name != a.Name || n.Ours != a.Ours && !strings.HasSuffix(n.Name, ": seconds") {
				t.Errorf("run %d's own result: %q = %g, Compare of the run alone %q = %g", k+1, n.Name, n.Ours, a.Name, a.Ours)
			}
		}
		if len(d.Files["rollouts.png"]) == 0 || !strings.Contains(strings.Join(d.Notes, " "), runs[k].EqF) {
			t.Errorf("run %d's own result lacks its rollouts or its checkpoints: %v", k+1, d.Notes)
		}
	}
	// A run that stops (here: interrupted after the first) leaves the runs before it with RunDone.
	ctx, cancel := context.WithCancel(context.Background())
	stopped := 0
	o.RunDone = func(k int, _ *Result) error { stopped = k; cancel(); return nil }
	if _, err := Compare(ctx, o); !errors.Is(err, context.Canceled) || stopped != 1 {
		t.Errorf("interrupted after run 1: %v, RunDone given run %d", err, stopped)
	}
	o.RunDone = nil
	byName := map[string]Number{}
	for _, n := range r.Numbers {
		byName[n.Name] = n
	}
	for i, n := range alone[0].Numbers {
		p, ok := byName[n.Name]
		if !ok {
			t.Errorf("%q: not in the pooled result", n.Name)
			continue
		}
		if strings.HasSuffix(n.Name, ": seconds") {
			continue // wall time: not the same twice
		}
		a, b := n.Ours, alone[1].Numbers[i].Ours
		if !slices.Equal(p.PerSeed, []float64{a, b}) || math.Abs(p.Ours-(a+b)/2) > 1e-9*math.Abs(a+b) || math.Abs(p.Err-math.Abs(a-b)/2) > 1e-9*math.Abs(a-b)+1e-12 {
			t.Errorf("%q: pooled %g ± %g per run %v, want the runs' %g and %g", n.Name, p.Ours, p.Err, p.PerSeed, a, b)
		}
	}
	value := func(r *Result, name string) float64 {
		for _, n := range r.Numbers {
			if n.Name == name {
				return n.Ours
			}
		}
		t.Fatalf("%s: no number %q", r.Title, name)
		return 0
	}
	diffs := 0
	for _, m := range []string{"EqF GD (open loop, c:0.8:0.001)", "EqF NAG μ=0.2 (closed loop, c:0.8:0.001)", "EqF budget-adaptive NAG μ=0.2"} {
		for _, space := range []string{"maze-I3D", "pixels-4x4"} {
			name := m + ": FVD (" + space + ") − FM Euler's, paired by training run"
			d, ok := byName[name]
			if !ok {
				t.Errorf("no number %q in %v", name, r.Numbers)
				continue
			}
			diffs++
			var want []float64
			for _, a := range alone {
				want = append(want, value(a, m+": FVD ("+space+")")-value(a, "FM Euler: FVD ("+space+")"))
			}
			mean, lo, hi := MeanInterval(want)
			if !slices.Equal(d.PerSeed, want) || d.Ours != mean || d.Lo != lo || d.Hi != hi || !(d.Lo < d.Ours && d.Ours < d.Hi) {
				t.Errorf("%q: %g [%g, %g] per run %v, want %g [%g, %g] per run %v", name, d.Ours, d.Lo, d.Hi, d.PerSeed, mean, lo, hi, want)
			}
			if d.Note != direction(d.Lo, d.Hi, "FM Euler")+runsNeeded(want) || d.Verdict != "" || d.Paper != "" {
				t.Errorf("%q: note %q, verdict %q, paper %q: want what the interval says and no verdict against the paper", name, d.Note, d.Verdict, d.Paper)
			}
		}
	}
	if diffs != 6 {
		t.Errorf("%d paired differences, want 6 (three EqF samplers in two feature spaces)", diffs)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"2 training runs", runs[0].EqF, runs[1].FM, "paired by training run", "not one of the paper's experiments", "maze-I3D = "} {
		if !strings.Contains(notes+r.Title, want) {
			t.Errorf("the notes and title lack %q:\n%s\n%s", want, r.Title, notes)
		}
	}
	if f := r.Figures["fvd_over_time"]; f == nil || !strings.Contains(f.Title, "mean of 2 training runs") || len(f.Panels) != 1 || len(f.Panels[0].Series) != 4 {
		t.Errorf("FVD over time: %+v, want one panel of the four samplers", f)
	} else {
		for _, c := range f.Panels[0].Series { // each chunk's FVD, the runs' mean
			for i, y := range c.Y {
				name := fmt.Sprintf("%s: FVD (maze-I3D), frames %d–%d", c.Name, 5*i+1, 5*i+5)
				if want := byName[name]; math.Abs(y-want.Ours) > 1e-9*math.Abs(y) {
					t.Errorf("FVD over time: %s's chunk %d is %g, want the runs' mean %g (%q)", c.Name, i+1, y, want.Ours, name)
				}
			}
		}
	}
	if f := r.Figures["fvd"]; f == nil || len(f.Panels) != 1 || len(f.Panels[0].Series) != 2 || len(f.Panels[0].XTicks) != 4 {
		t.Errorf("FVD per sampler: %+v, want one panel of each run's FVD and their mean over four samplers", f)
	} else {
		runs, mean := f.Panels[0].Series[0], f.Panels[0].Series[1]
		for j, tick := range f.Panels[0].XTicks {
			name := alone[0].Numbers[0].Name // FM Euler's headline FVD first; the others by their sampler
			for _, n := range alone[0].Numbers {
				if strings.HasSuffix(n.Name, ": FVD (maze-I3D)") && shortName(strings.TrimSuffix(n.Name, ": FVD (maze-I3D)")) == tick {
					name = n.Name
				}
			}
			got := []float64{runs.Y[2*j], runs.Y[2*j+1]}
			if want := []float64{value(alone[0], name), value(alone[1], name)}; !slices.Equal(got, want) || mean.Y[j] != byName[name].Ours ||
				math.Abs(mean.Hi[j]-mean.Lo[j]-2*byName[name].Err) > 1e-9*byName[name].Err || math.Abs(mean.X[j]-float64(j+1)) > 0 || math.Abs(runs.X[2*j]-float64(j+1)) > 0.3 {
				t.Errorf("FVD per sampler, %s: runs %v at %v, mean %g ± %g at %g; want %v and %q's %g ± %g at %d", tick, got, runs.X[2*j:2*j+2],
					mean.Y[j], (mean.Hi[j]-mean.Lo[j])/2, mean.X[j], want, name, byName[name].Ours, byName[name].Err, j+1)
			}
		}
	}
	if len(r.Files["rollouts.png"]) == 0 {
		t.Error("no rollouts.png: want training run 1's")
	}

	copied := filepath.Join(t.TempDir(), "eqf-copy.eqf")
	raw, err := os.ReadFile(eqflib.LatestCheckpoint(runs[0].EqF))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for what, bad := range map[string]CompareOptions{
		"a run twice":                 {Runs: []ComparePair{runs[0], runs[0]}},
		"a copy under another name":   {Runs: []ComparePair{runs[0], {FM: runs[1].FM, EqF: copied}}},
		"FM and EqF beside the runs":  {Runs: runs, FM: runs[0].FM, EqF: runs[0].EqF},
		"a checkpoint that is absent": {Runs: []ComparePair{runs[0], {FM: runs[1].FM, EqF: filepath.Join(copied, "missing")}}},
		"an EqF without h_ω":          {Runs: []ComparePair{runs[0], {FM: runs[1].FM, EqF: runs[1].FM}}},
	} {
		var log strings.Builder
		bad.Log = &log
		bad.Features, bad.Warp, bad.Clips, bad.Frames, bad.RollConfig, bad.ClipFrames, bad.TimeChunk = o.Features, o.Warp, o.Clips, o.Frames, o.RollConfig, o.ClipFrames, o.TimeChunk
		if _, err := Compare(context.Background(), bad); err == nil {
			t.Errorf("%s: no error", what)
		} else {
			t.Logf("%s: %v", what, err)
		}
		if strings.Contains(log.String(), "rolling out") {
			t.Errorf("%s: refused after rollouts:\n%s", what, log.String())
		}
	}
}

// runsNeeded: an inconclusive difference says what its runs detect and what its own size needs
// (the power of the paired t-test, power.go); a conclusive one says nothing more.
func TestRunsNeeded(t *testing.T) {
	d := []float64{10, -4, 6} // mean 4, SD 7.21: inconclusive with three runs
	got := runsNeeded(d)
	sd := sampleSD(d)
	det, need := detectable(3, sd, planningPower), seedsFor(4, sd, planningPower)
	if math.Abs(tPower(3, det, sd)-planningPower) > 1e-6 || tPower(need, 4, sd) < planningPower || tPower(need-1, 4, sd) >= planningPower {
		t.Fatalf("detectable %g, runs needed %d: not where the power crosses %g", det, need, planningPower)
	}
	for _, want := range []string{"SD 7.21", fmt.Sprintf("3 runs detect a difference of %.3g or more with probability 80 %%", det), fmt.Sprintf("one of this size (4) needs %d runs", need)} {
		if !strings.Contains(got, want) {
			t.Errorf("runsNeeded(%v) = %q, want %q in it", d, got, want)
		}
	}
	// The textbook approximation for a paired t-test: n ≈ ((z_0.975 + z_0.8)/(δ/σ))² + z_0.975²/2 = 27.4.
	if need < 27 || need > 29 {
		t.Errorf("a difference of 0.555 SD needs %d runs, want about 28", need)
	}
	for _, conclusive := range [][]float64{{10, 11, 12}, {-3, -4, -3.5}, {5, 5, 5}} {
		if got := runsNeeded(conclusive); got != "" {
			t.Errorf("runsNeeded(%v) = %q, want nothing", conclusive, got)
		}
	}
}

// direction reads a paired difference's interval: lower or higher only when it excludes 0.
func TestDirection(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{-3, -1, "lower than FM Euler's"}, {1, 3, "higher than FM Euler's"}, {-1, 2, "inconclusive"}, {0, 2, "inconclusive"},
		{math.NaN(), math.NaN(), "inconclusive"},
	} {
		if got := direction(c.lo, c.hi, "FM Euler"); !strings.HasPrefix(got, c.want) {
			t.Errorf("direction(%g, %g) = %q, want %q…", c.lo, c.hi, got, c.want)
		}
	}
}
