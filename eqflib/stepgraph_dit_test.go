package eqflib_test

import (
	"math"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// The DiT with its state on the backend (float32 update in the same call as the network) rolls
// out the same video as with its state on the host (float64 update), up to float32 rounding:
// closed-loop NAG with readout and actions, the zoo's default sampler.
func TestDiTBackendStateMatchesHost(t *testing.T) {
	d, ctx, cond, ro := backendTestRollout(t, false)
	cfg := d.Config
	a, err := eqflib.Roll(d, ctx, ro)
	if err != nil {
		t.Fatal(err)
	}
	d.HostState = true
	b, err := eqflib.Roll(d, ctx, ro)
	if err != nil {
		t.Fatal(err)
	}
	// The field is not trivial (a zero-initialised DiT predicts v̂ = 0 until it trains).
	out, err := d.WithConditions(cond[:2*cfg.CondDim]).Eval(ctx, nil, eqflib.EvalOptions{Readout: true})
	if err != nil {
		t.Fatal(err)
	}
	var vAbs float64
	for _, v := range out.V.Data {
		vAbs += math.Abs(v) / float64(len(out.V.Data))
	}
	if vAbs < 0.05 {
		t.Fatalf("mean |v̂| = %.3g: the test field is trivial", vAbs)
	}
	maxDiff, scale := frameDiff(a, b)
	if maxDiff > 1e-4*scale || a.NFE != b.NFE {
		t.Fatalf("backend and host rollouts differ by %.3g (scale %.3g), NFE %d vs %d", maxDiff, scale, a.NFE, b.NFE)
	}
	t.Logf("max |backend − host| = %.3g (scale %.3g, mean |v̂| %.3g, σ̂ %.3g)", maxDiff, scale, vAbs, out.SigmaHat[0])
}

// backendTestRollout is a tiny EqF DiT trained for 30 steps with an (untrained) readout h_ω, two
// context frames of noise, actions for the rollout, and closed-loop NAG rolling options; with
// fm, a Flow Matching DiT (noise-conditional, so its step takes the plain, unmodulated form)
// without readout, and Euler.
func backendTestRollout(t *testing.T, fm bool) (d *eqflib.DiT, ctx *eqflib.Window, cond []float64, ro eqflib.RollOptions) {
	t.Helper()
	cfg := eqflib.DiTPresets["tiny"]
	m, err := eqflib.NewDiT(cfg, fm, 3, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	// An (untrained) readout h_ω: two steps of its trainer create its variables.
	train, val, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), 4, cfg.Height, cfg.Width, 4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	kind := eqflib.EqF
	if fm {
		kind = eqflib.FM
	}
	obj, _ := eqflib.NewObjective(kind)
	tc := eqflib.DefaultTrainConfig(obj)
	tc.Batch, tc.Warmup, tc.LR = 2, 1, 3e-3
	tr, err := eqflib.NewTrainer(m, train, val, tc)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(30, eqflib.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, _ = eqflib.Randn(eqflib.NewRNG(1), 1, 2, cfg.Channels, cfg.Height, cfg.Width)
	cond = make([]float64, 1*(2+8+4-2)*cfg.CondDim)
	for i := range cond {
		cond[i] = float64(i%3) - 1
	}
	ro = eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 8, Seed: 2,
		Conditions: cond, CondDim: cfg.CondDim, Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler}}
	if fm {
		return m, ctx, cond, ro
	}
	pc := eqflib.DefaultProbeConfig()
	pc.Batch = 2
	rt, err := eqflib.NewReadoutTrainer(m, train, pc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Train(2); err != nil {
		t.Fatal(err)
	}
	d = m // the live weights: the EMA is still near the zero-initialised start
	if err := d.AttachReadout(pc.Proj); err != nil {
		t.Fatal(err)
	}
	warp, _ := eqflib.ParseWarp("c")
	ro.Sampler = eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, ClosedLoop: true, Momentum: 0.3}}
	return d, ctx, cond, ro
}

// Classifier-free guidance on the backend path (both evaluations as one batch of 2B, the update
// in the same call) rolls out the host path's video (two evaluations, the combination and the
// update in float64) up to float32 rounding, with w = 0, 1 and 3: closed-loop NAG on the EqF DiT
// (the modulated step) and Euler on the FM DiT (the plain step, the level an input).
func TestGuidedBackendMatchesHost(t *testing.T) {
	for _, fm := range []bool{false, true} {
		d, ctx, _, ro := backendTestRollout(t, fm)
		for _, w := range []float64{0, 1, 3} {
			g, err := eqflib.Guide(d, w)
			if err != nil {
				t.Fatal(err)
			}
			d.HostState = false
			a, err := eqflib.Roll(g, ctx, ro)
			if err != nil {
				t.Fatal(err)
			}
			d.HostState = true
			b, err := eqflib.Roll(g, ctx, ro)
			if err != nil {
				t.Fatal(err)
			}
			d.HostState = false
			maxDiff, scale := frameDiff(a, b)
			if maxDiff > 1e-4*scale || a.NFE != b.NFE || maxDiff == 0 {
				t.Errorf("fm %v, w = %g: backend and host rollouts differ by %.3g (scale %.3g; 0 means both took one path), NFE %d vs %d",
					fm, w, maxDiff, scale, a.NFE, b.NFE)
			}
			t.Logf("fm %v, w = %g: max |backend − host| = %.3g (scale %.3g)", fm, w, maxDiff, scale)
		}
	}
	d, ctx, _, ro := backendTestRollout(t, false)
	// w = 1 is the unguided field: the guided rollout equals the plain one to float32 rounding.
	g1, _ := eqflib.Guide(d, 1)
	a, _ := eqflib.Roll(g1, ctx, ro)
	b, _ := eqflib.Roll(d, ctx, ro)
	if maxDiff, _ := frameDiff(a, b); maxDiff > 1e-3 {
		t.Errorf("guidance w = 1 differs from the plain field by %.3g", maxDiff)
	}
}

// frameDiff is the largest |a − b| over two rollouts' frames, and the largest |b| (the scale).
func frameDiff(a, b *eqflib.Rollout) (maxDiff, scale float64) {
	for i := range a.Frames.Data {
		maxDiff = math.Max(maxDiff, math.Abs(a.Frames.Data[i]-b.Frames.Data[i]))
		scale = math.Max(scale, math.Abs(b.Frames.Data[i]))
	}
	return maxDiff, scale
}
