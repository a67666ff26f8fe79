package eqflib

import (
	"math"
	"slices"
	"testing"
)

// The paper's staircase (S = 1 with bake-in, App. D) gives every frame the same D steps as
// chunk by chunk (S = H) does, only spread over H rounds at different window positions. On the
// exact oracle of i.i.d. Gaussian frames a frame's steps depend on that frame and its starting
// noise alone, and the rollout draws the same noise values at every stride (in another order
// of clips and frames), so every rule must emit the same values at S = H = 2, at S = 1 with
// H = 2 and at S = 1 with H = 4: compared sorted, coordinate by coordinate. A frame that took
// another frame's step size, momentum, step count or σ̂ after the window slid (the staircase's
// bookkeeping) would come out different.
func TestStaircaseStepsEachFrameAsChunkByChunk(t *testing.T) {
	const d, B, C, frames, D = 8, 16, 2, 8, 24
	data, _, fm, eqf := gaussianOracles(t, d)
	diff, _ := NewOracle(data, OracleDiffusion)
	c := mustWarp(t, "c")
	ctx, err := data.Sample(NewRNG(9), B, C, d, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    Field
		fs   FrameSampler
	}{
		{"FM Euler", fm, FrameSampler{Sampler: Euler, Options: Options{Warp: c}}},
		{"FM Euler closed loop", fm, FrameSampler{Sampler: Euler, Options: Options{Warp: c, ClosedLoop: true, Estimator: fm}}},
		{"EqF GD open loop", eqf, FrameSampler{Sampler: GD, Options: Options{Warp: c}}},
		{"EqF GD closed loop", eqf, FrameSampler{Sampler: GD, Options: Options{Warp: c, ClosedLoop: true}}},
		{"EqF NAG μ=0.3 closed loop", eqf, FrameSampler{Sampler: NAG, Options: Options{Warp: c, ClosedLoop: true, Momentum: 0.3}}},
		{"EqF NAG μ=0.5 open loop", eqf, FrameSampler{Sampler: NAG, Options: Options{Warp: c, Momentum: 0.5}}},
		{"EqF LGD μ=0.3 closed loop", eqf, FrameSampler{Sampler: LGD, Options: Options{Warp: c, ClosedLoop: true, Momentum: 0.3}}},
		{"EqF budget-adaptive", eqf, FrameSampler{Sampler: Budget, Options: Options{Momentum: 0.1}}},
		{"EqM-style fixed step", eqf, FrameSampler{Sampler: NAG, Options: Options{StepSize: 0.02, Momentum: 0.1}}},
		{"Diffusion DDIM", diff, FrameSampler{Sampler: DDIM}},
	}
	for _, tc := range cases {
		chunked, err := Roll(tc.f, ctx, RollOptions{RollConfig: RollConfig{Context: C, Horizon: 2, Stride: 2, Depth: D}, Sampler: tc.fs, Frames: frames, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, H := range []int{2, 4} {
			stair, err := Roll(tc.f, ctx, RollOptions{RollConfig: RollConfig{Context: C, Horizon: H, Stride: 1, Depth: D}, Sampler: tc.fs, Frames: frames, Seed: 3})
			if err != nil {
				t.Fatalf("%s, H = %d, S = 1: %v", tc.name, H, err)
			}
			worst := 0.0
			for k := range d {
				a, b := coordinate(chunked.Frames, k, d), coordinate(stair.Frames, k, d)
				for i := range a {
					worst = max(worst, math.Abs(a[i]-b[i]))
				}
			}
			if worst > 1e-12 || stair.NFE <= 0 {
				t.Errorf("%s: S = 1, H = %d emits frames up to %.3g away from S = H = 2's", tc.name, H, worst)
			}
		}
	}
}

// coordinate is coordinate k of every frame of w (d values a frame), sorted.
func coordinate(w *Window, k, d int) []float64 {
	var v []float64
	for i := k; i < len(w.Data); i += d {
		v = append(v, w.Data[i])
	}
	slices.Sort(v)
	return v
}
