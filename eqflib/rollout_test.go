package eqflib

import (
	"errors"
	"math"
	"testing"
)

// counterTrace returns the horizon counters (batch element 0) after evaluation n (1-based).
func counterTrace(r *Rollout, n, h int) []int { return r.Trace[n-1].Counter[:h] }

// The golden schedules of paper App. I (Alg. outer_rolling_inference, inner_denoising_loop; worked by hand in docs/derivations.md), on the exact FM oracle (a cheap stand-in field: frames are
// independent, so the check is about the bookkeeping).
func TestRollGoldenSchedules(t *testing.T) {
	_, _, fm, _ := gaussianOracles(t, 2)
	ctx, _ := Randn(NewRNG(3), 1, 25, 2, 1, 1)
	for _, tc := range []struct {
		stride, k, cycles int
	}{{1, 10, 24}, {5, 50, 4}} {
		cfg := RollConfig{Context: 25, Horizon: 25, Stride: tc.stride, Depth: 250}
		if cfg.Inner() != tc.k || cfg.BakeInCycles() != tc.cycles || cfg.Window() != 50 {
			t.Fatalf("S=%d: K=%d cycles=%d window=%d, want K=%d cycles=%d window=50", tc.stride, cfg.Inner(), cfg.BakeInCycles(), cfg.Window(), tc.k, tc.cycles)
		}
		res, err := Roll(fm, ctx, RollOptions{RollConfig: cfg, Sampler: FrameSampler{Sampler: Euler}, Frames: 2 * tc.stride, KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.BakeInCycles != tc.cycles || res.BakeInNFE != tc.cycles*tc.k {
			t.Errorf("S=%d: bake-in %d cycles, %d NFE; want %d, %d", tc.stride, res.BakeInCycles, res.BakeInNFE, tc.cycles, tc.cycles*tc.k)
		}
		// After bake-in: group g (1-based) has taken (G − g)·K steps; the last is pure noise.
		after := counterTrace(res, res.BakeInNFE, 25)
		for j, c := range after {
			g := j/tc.stride + 1
			if want := (25/tc.stride - g) * tc.k; c != want {
				t.Fatalf("S=%d after bake-in: frame %d counter %d, want %d (%v)", tc.stride, j, c, want, after)
			}
		}
		// After the first steady-state inner loop: K, 2K, …, D from the back; the first group is clean.
		first := res.Trace[res.BakeInNFE+tc.k-1]
		for j, c := range first.Counter {
			if want := (25/tc.stride - j/tc.stride) * tc.k; c != want {
				t.Fatalf("S=%d first emission: frame %d counter %d, want %d", tc.stride, j, c, want)
			}
			// FM Euler's scheduled σ is 1 − counter/D before the step.
			if want := 1 - float64(c-1)/250; !first.Active[j] || math.Abs(first.Sched[j]-want) > 1e-12 {
				t.Fatalf("S=%d: frame %d σ_sched %.6f, want %.6f", tc.stride, j, first.Sched[j], want)
			}
		}
		if first.Counter[0] != 250 {
			t.Errorf("S=%d: emitted frame has %d steps, want D = 250", tc.stride, first.Counter[0])
		}
		if want := res.BakeInNFE + 2*tc.k; res.NFE != want {
			t.Errorf("S=%d: NFE %d, want %d", tc.stride, res.NFE, want)
		}
		// Second cycle: frames slid by S, the new frames start at counter K.
		second := res.Trace[res.BakeInNFE+2*tc.k-1]
		if second.Frame[0] != tc.stride || second.Counter[24] != tc.k || second.Emitted != tc.stride {
			t.Errorf("S=%d second cycle: first frame %d counter(last) %d emitted %d", tc.stride, second.Frame[0], second.Counter[24], second.Emitted)
		}
	}
}

func TestRollRejectsBadConfigs(t *testing.T) {
	_, _, fm, _ := gaussianOracles(t, 2)
	ctx, _ := Randn(NewRNG(3), 1, 2, 2, 1, 1)
	for _, tc := range []struct {
		opts  RollOptions
		param string
	}{
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 1, Depth: 6}, Frames: 1}, "Depth"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 3, Depth: 12}, Frames: 3}, "Stride"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 3}, "Frames"},
		{RollOptions{RollConfig: RollConfig{Context: 3, Horizon: 4, Stride: 2, Depth: 8}, Frames: 2}, "context"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 2, Sampler: FrameSampler{Sampler: NAG, Options: Options{Momentum: 1}}}, "Options.Momentum"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 2, Sampler: FrameSampler{}}, "Sampler"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 2, Sampler: FrameSampler{Sampler: DDIM}}, "f"},
		{RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 2, Sampler: FrameSampler{Sampler: Euler}, Conditions: []float64{1}, CondDim: 1}, "f"},
	} {
		if tc.opts.Sampler.Sampler.IsZero() && tc.param != "Sampler" {
			tc.opts.Sampler.Sampler = Euler
		}
		_, err := Roll(fm, ctx, tc.opts)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != tc.param {
			t.Errorf("%+v: error %v, want a ParamError naming %q", tc.opts.RollConfig, err, tc.param)
		}
	}
}

// With C = 0 and S = H (one group, K = D) a rollout chunk is exactly the one-shot sampler run on
// the same noise: the per-frame rules reproduce every sampler of sampler.go bit for bit.
func TestRollOneGroupEqualsSampler(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 3)
	diff, _ := NewOracle(data, OracleDiffusion)
	const B, H, D, seed = 2, 3, 6, 11
	c, _ := CFunctionWarp(0.8, 0.001)
	cases := []struct {
		name string
		f    Field
		fs   FrameSampler
		one  SamplerFunc
	}{
		{"euler", fm, FrameSampler{Sampler: Euler}, SampleEuler},
		{"euler closed", fm, FrameSampler{Sampler: Euler, Options: Options{ClosedLoop: true, Estimator: eqf}}, SampleEuler},
		{"gd open", eqf, FrameSampler{Sampler: GD, Options: Options{Warp: c}}, SampleGD},
		{"gd closed", eqf, FrameSampler{Sampler: GD, Options: Options{Warp: c, ClosedLoop: true}}, SampleGD},
		{"nag closed", eqf, FrameSampler{Sampler: NAG, Options: Options{Warp: c, ClosedLoop: true, Momentum: 0.3}}, SampleNAG},
		{"budget nag", eqf, FrameSampler{Sampler: Budget, Options: Options{Momentum: 0.2}}, SampleBudgetAdaptive},
		{"earlystop", eqf, FrameSampler{Sampler: EarlyStop, Options: Options{Warp: c, SigmaThresh: 0.3, Cleanup: 2}}, SampleEarlyStopping},
		{"ddim", diff, FrameSampler{Sampler: DDIM}, SampleDDIM},
	}
	for _, tc := range cases {
		tmpl := MustNewWindow(B, 1, 3, 1, 1)
		res, err := Roll(tc.f, tmpl, RollOptions{RollConfig: RollConfig{Horizon: H, Stride: H, Depth: D}, Sampler: tc.fs, Frames: H, Seed: seed})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		x0, _ := Randn(NewRNG(seed), B, H, 3, 1, 1)
		o := tc.fs.Options
		o.Steps = D
		want, err := tc.one(tc.f, x0, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, v := range want.X.Data {
			if res.Frames.Data[i] != v {
				t.Fatalf("%s: rollout differs from the sampler at %d: %v vs %v", tc.name, i, res.Frames.Data[i], v)
			}
		}
		if res.NFE != want.NFE {
			t.Errorf("%s: NFE %d, sampler %d", tc.name, res.NFE, want.NFE)
		}
	}
}

// Budget-adaptive in the rolling loop divides each frame's σ̂ by that frame's remaining steps.
func TestRollBudgetPerFrameRemainingSteps(t *testing.T) {
	_, _, _, eqf := gaussianOracles(t, 2)
	ctx, _ := Randn(NewRNG(3), 1, 2, 2, 1, 1)
	res, err := Roll(eqf, ctx, RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 1, Depth: 8},
		Sampler: FrameSampler{Sampler: Budget, Options: Options{Momentum: 0.1}}, Frames: 4, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, st := range res.Trace {
		for j := range st.Counter {
			if !st.Active[j] {
				if st.StepSize[j] != 0 {
					t.Fatalf("inactive frame moved")
				}
				continue
			}
			want := st.SigmaHat[j] / float64(8-(st.Counter[j]-1))
			if math.Abs(st.StepSize[j]-want) > 1e-15 {
				t.Fatalf("step %d frame %d: step %.6g, want σ̂/(D − c) = %.6g", st.Eval, j, st.StepSize[j], want)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d per-frame steps checked", checked)
	}
}

// condField records the conditions it is evaluated with.
type condField struct {
	Field
	seen *[][]float64
}

func (c condField) WithConditions(cond []float64) Field {
	*c.seen = append(*c.seen, append([]float64(nil), cond...))
	return c.Field
}

// The rollout whose conditions slide with its windows (TestRollStreamAndConditionsSlide,
// TestGuideRoll): B clips of C context frames, horizon H, stride S, one condition per frame
// along a timeline of L frames per clip.
const slideB, slideC, slideH, slideS, slideFrames = 2, 2, 4, 2, 6
const slideL = slideC + slideFrames + slideH - slideS

// slideRoll is that rollout with Euler on the FM oracle and condition cond(i) at timeline
// index i (batch b, frame t: i = b·L + t).
func slideRoll(t *testing.T, cond func(i int) float64) (fm *Oracle, ctx *Window, opts RollOptions) {
	_, _, fm, _ = gaussianOracles(t, 2)
	c := make([]float64, slideB*slideL)
	for i := range c {
		c[i] = cond(i)
	}
	ctx, _ = Randn(NewRNG(3), slideB, slideC, 2, 1, 1)
	opts = RollOptions{RollConfig: RollConfig{Context: slideC, Horizon: slideH, Stride: slideS, Depth: 4},
		Sampler: FrameSampler{Sampler: Euler}, Frames: slideFrames, Conditions: c, CondDim: 1, Seed: 5}
	return fm, ctx, opts
}

func TestRollStreamAndConditionsSlide(t *testing.T) {
	const B, C, H, S, L, frames = slideB, slideC, slideH, slideS, slideL, slideFrames
	fm, ctx, opts := slideRoll(t, func(i int) float64 { return float64(i) })
	var seen [][]float64
	f := condField{fm, &seen}
	full, err := Roll(f, ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	K := opts.Inner()
	for i, c := range seen {
		emitted := 0
		if i >= opts.BakeInCycles()*K {
			emitted = (i - opts.BakeInCycles()*K) / K * S
		}
		for b := 0; b < B; b++ {
			for tt := 0; tt < C+H; tt++ {
				if want := float64(b*L + emitted + tt); c[b*(C+H)+tt] != want {
					t.Fatalf("eval %d: condition of batch %d window frame %d = %v, want %v", i, b, tt, c[b*(C+H)+tt], want)
				}
			}
		}
	}
	// The stream yields the same frames chunk by chunk, and stopping early stops the work.
	seen = nil
	n := 0
	for ch, err := range RollStream(f, ctx, opts) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Start != n*S || ch.Frames.Frames() != S {
			t.Fatalf("chunk %d starts at %d with %d frames", n, ch.Start, ch.Frames.Frames())
		}
		for b := 0; b < B; b++ {
			for s := 0; s < S; s++ {
				got, want := ch.Frames.Frame(b*S+s), full.Frames.Frame(b*frames+ch.Start+s)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("stream chunk %d differs from Roll", n)
					}
				}
			}
		}
		n++
		if n == 2 {
			break
		}
	}
	if len(seen) >= full.NFE {
		t.Errorf("stopping the stream after 2 of 3 chunks still ran %d of %d evaluations", len(seen), full.NFE)
	}
	// Context frames are never modified: the first emitted chunk conditions on them unchanged.
	for i, v := range ctx.Data {
		if math.IsNaN(v) {
			t.Fatalf("context corrupted at %d", i)
		}
	}
}

// Early stopping in the rolling loop: lower thresholds cost more evaluations per frame, and
// every emitted chunk finished its cleanup.
func TestRollEarlyStopping(t *testing.T) {
	_, _, _, eqf := gaussianOracles(t, 2)
	ctx, _ := Randn(NewRNG(3), 1, 2, 2, 1, 1)
	nfe := map[float64]float64{}
	cw, _ := CFunctionWarp(0.8, 0.001)
	for _, th := range []float64{0, 0.3, 0.7} {
		res, err := Roll(eqf, ctx, RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 20},
			Sampler: FrameSampler{Sampler: EarlyStop, Options: Options{Warp: cw, SigmaThresh: th, Cleanup: 3}}, Frames: 6, KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		nfe[th] = res.NFEPerFrame()
		if res.Frames.HasNaN() {
			t.Fatal("NaN in rollout")
		}
	}
	if !(nfe[0.7] < nfe[0.3] && nfe[0.3] < nfe[0]) {
		t.Errorf("NFE per frame not decreasing with σ_thresh: %v", nfe)
	}
}

// RollOptions.Done stops a rollout between network evaluations: closed after the third, Roll
// returns ErrRollStopped with no fourth evaluation; closed before, with none; open (or nil),
// the rollout runs to its end.
func TestRollStopsWhenDone(t *testing.T) {
	_, _, fm, _ := gaussianOracles(t, 2)
	ctx, _ := Randn(NewRNG(3), 1, 4, 2, 1, 1)
	for _, stopAt := range []int{0, 3, -1} {
		done := make(chan struct{})
		if stopAt == 0 {
			close(done)
		}
		evals := 0
		opts := RollOptions{RollConfig: RollConfig{Context: 4, Horizon: 4, Stride: 1, Depth: 8}, Sampler: FrameSampler{Sampler: Euler}, Frames: 6, Done: done,
			OnStep: func(RollStep, *Window) {
				if evals++; evals == stopAt {
					close(done)
				}
			}}
		res, err := Roll(fm, ctx, opts)
		switch {
		case stopAt >= 0 && (!errors.Is(err, ErrRollStopped) || evals != stopAt):
			t.Errorf("Done closed after %d evaluations: err = %v after %d evaluations, want ErrRollStopped after %d", stopAt, err, evals, stopAt)
		case stopAt < 0 && (err != nil || res.NFE != evals || res.Frames.Frames() != 6):
			t.Errorf("Done open: err = %v, %d evaluations, want the whole rollout", err, evals)
		}
	}
}
