package eqflib

import (
	"math"
	"testing"
)

// Known frames come back bit-exact for every frame sampler, DDIM included.
func TestInpaintKeepsKnownFramesExact(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 3)
	diff, _ := NewOracle(data, OracleDiffusion)
	cw, _ := CFunctionWarp(0.8, 0.001)
	x, _ := data.Sample(NewRNG(4), 2, 6, 3, 1, 1)
	known, err := InpaintEnds(6, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f  Field
		fs FrameSampler
	}{
		{fm, FrameSampler{Sampler: Euler, Depth: 8}},
		{eqf, FrameSampler{Sampler: NAG, Depth: 8, Options: Options{Warp: cw, ClosedLoop: true, Momentum: 0.3}}},
		{eqf, FrameSampler{Sampler: Budget, Depth: 8, Options: Options{Momentum: 0.2}}},
		{eqf, FrameSampler{Sampler: EarlyStop, Depth: 8, Options: Options{Warp: cw, SigmaThresh: 0.2, Cleanup: 2}}},
		{diff, FrameSampler{Sampler: DDIM, Depth: 8}},
	} {
		res, err := Inpaint(tc.f, x, known, InpaintOptions{Sampler: tc.fs, Seed: 9, KeepTrace: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.fs.Sampler, err)
		}
		for fr := 0; fr < x.NumFrames(); fr++ {
			got, want := res.X.Frame(fr), x.Frame(fr)
			same := true
			for i := range got {
				same = same && got[i] == want[i]
			}
			if known[fr%6] != same {
				t.Fatalf("%s: frame %d known=%v but unchanged=%v", tc.fs.Sampler, fr, known[fr%6], same)
			}
		}
		if res.X.HasNaN() || res.NFE < 1 || len(res.Trace[0].Frame) != 2*3 {
			t.Fatalf("%s: NaN, NFE %d or trace frames %d", tc.fs.Sampler, res.NFE, len(res.Trace[0].Frame))
		}
	}
	if _, err := InpaintEnds(4, 2, 2); err == nil {
		t.Error("InpaintEnds accepted no unknown frame")
	}
}

// τ = 0 and τ = ∞ against their definitions in Alg. closed_loop_planning.
func TestReplanThresholds(t *testing.T) {
	data, _, fm, _ := gaussianOracles(t, 3)
	const B, C, H, S, R, D = 2, 2, 4, 1, 6, 4
	gt, _ := data.Sample(NewRNG(4), B, C+R, 3, 1, 1)
	base := ReplanOptions{Context: C, Horizon: H, Stride: S, Frames: R, Sampler: FrameSampler{Sampler: Euler, Depth: D}, Seed: 3}

	// τ = ∞: never replan. The first H committed frames are the bootstrap plan itself, which is
	// the inpainting of the horizon after the context with the same noise.
	never := base
	never.Tau = math.Inf(1)
	var masks [][]bool
	never.OnDenoise = func(_ int, _ *Window, m []bool) { masks = append(masks, append([]bool(nil), m...)) }
	resN, err := Replan(fm, gt, never)
	if err != nil {
		t.Fatal(err)
	}
	win := MustNewWindow(B, C+H, 3, 1, 1)
	copyFrames(win, 0, gt, 0, C)
	known, _ := InpaintEnds(C+H, C, 0)
	boot, err := Inpaint(fm, win, known, InpaintOptions{Sampler: base.Sampler, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < B; b++ {
		for i := 0; i < H; i++ {
			got, want := resN.Frames.Frame(b*R+i), boot.X.Frame(b*(C+H)+C+i)
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("τ=∞: committed frame %d is not the bootstrap plan's", i)
				}
			}
		}
	}
	for i, m := range masks[1:] {
		for j, a := range m {
			if a != (j >= H-S) {
				t.Fatalf("τ=∞ round %d: mask %v, want only the last %d frames", i+1, m, S)
			}
		}
	}
	rounds := R/S - 1
	if len(resN.Replanned) != rounds || resN.NFE != D*(1+rounds) || resN.ProbeNFE != 0 {
		t.Errorf("τ=∞: %d rounds, NFE %d, probes %d; want %d, %d, 0", len(resN.Replanned), resN.NFE, resN.ProbeNFE, rounds, D*(1+rounds))
	}
	for _, r := range resN.Replanned {
		if r {
			t.Error("τ=∞ replanned")
		}
	}

	// τ = 0: always replan the whole horizon.
	always := base
	masks = nil
	always.OnDenoise = never.OnDenoise
	resA, err := Replan(fm, gt, always)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range masks {
		for _, a := range m {
			if !a {
				t.Fatalf("τ=0: a denoise kept part of the plan: %v", m)
			}
		}
	}
	for _, r := range resA.Replanned {
		if !r {
			t.Error("τ=0 reused a plan")
		}
	}
	if resA.NFE != resN.NFE || resA.ProbeNFE != 0 {
		t.Errorf("τ=0: NFE %d (+%d probes), want %d", resA.NFE, resA.ProbeNFE, resN.NFE)
	}

	// An intermediate τ replans exactly where the score reaches it and pays M probes per round.
	probe := base
	probe.Tau = 1e-300
	resP, err := Replan(fm, gt, probe)
	if err != nil {
		t.Fatal(err)
	}
	sorted := append([]float64(nil), resP.Scores...)
	mid := sorted[len(sorted)/2]
	probe.Tau = mid
	resM, err := Replan(fm, gt, probe)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range resM.Scores {
		if math.IsNaN(s) || resM.Replanned[i] != (s >= mid) {
			t.Fatalf("round %d: score %v, τ %v, replanned %v", i+1, s, mid, resM.Replanned[i])
		}
	}
	if resM.ProbeNFE != DefaultNumProbes*rounds {
		t.Errorf("probe NFE %d, want %d", resM.ProbeNFE, DefaultNumProbes*rounds)
	}
	if want := float64(resM.NFE+resM.ProbeNFE) / R; resM.NFEPerFrame() != want {
		t.Errorf("NFE per frame %v, want %v", resM.NFEPerFrame(), want)
	}
	if got := DefaultProbes(5); got[0] != 0.1 || math.Abs(got[4]-0.9) > 1e-15 {
		t.Errorf("DefaultProbes(5) = %v", got)
	}
}
