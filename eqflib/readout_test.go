package eqflib_test

import (
	"math"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// sigmaMAE measures a noise-level estimate on held-out frames, each noised with its own σ.
func sigmaMAE(t *testing.T, est func(x *eqflib.Window, cond []float64) []float64, ds eqflib.Dataset, seed uint64) float64 {
	t.Helper()
	rng := eqflib.NewRNG(seed)
	var mae float64
	n := 0
	for b := 0; b < 32; b++ {
		idx := []int{rng.IntN(ds.Len()), rng.IntN(ds.Len())}
		x, cond, err := eqflib.LoadBatch(ds, idx)
		if err != nil {
			t.Fatal(err)
		}
		sigma, _ := eqflib.SampleSigmaIndependent(rng, x.Shape[0], x.Shape[1])
		eps, _ := eqflib.Randn(rng, x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4])
		xs, _ := eqflib.Noise(x, eps, sigma)
		got := est(xs, cond)
		for i, s := range sigma {
			mae += math.Abs(got[i] - s)
			n++
		}
	}
	return mae / float64(n)
}

func TestReadoutsPredictSigma(t *testing.T) {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch, cfg.LR, cfg.Warmup, cfg.EMADecay = 8, 2e-3, 20, 0.99
	tr, err := eqflib.NewTrainer(m, train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// The readout can only be as good as the backbone's features: on a 200-step backbone h_ω
	// plateaus at MAE ≈ 0.07 whatever its own training; 3,000 steps bring it under 0.05.
	const backboneSteps = 3000
	if err := tr.Run(backboneSteps, eqflib.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("EqF tiny: %d steps in %v, last loss %.4f", backboneSteps, time.Since(start).Round(time.Millisecond), tr.History[backboneSteps-1].Loss)

	pc := eqflib.DefaultProbeConfig()
	pc.Batch = 16
	rt, err := eqflib.NewReadoutTrainer(m, train, pc)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	loss, err := rt.Train(2000)
	if err != nil {
		t.Fatal(err)
	}
	ema, _ := m.EMA()
	if err := ema.AttachReadout(pc.Proj); err != nil {
		t.Fatal(err)
	}
	hMAE := sigmaMAE(t, func(x *eqflib.Window, cond []float64) []float64 {
		out, err := ema.WithConditions(cond).Eval(x, nil, eqflib.EvalOptions{Readout: true})
		if err != nil {
			t.Fatal(err)
		}
		return out.SigmaHat
	}, val, 99)
	t.Logf("h_ω: 2000 steps in %v, last logit MSE %.4f, held-out MAE %.4f", time.Since(start).Round(time.Millisecond), loss, hMAE)

	gc := eqflib.DefaultProbeConfig()
	gc.LR = 3e-3
	g, err := eqflib.NewNoisePredictor(3, 16, 16, nil, gc, 1)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	gl, err := g.Train(train, 800)
	if err != nil {
		t.Fatal(err)
	}
	gMAE := sigmaMAE(t, func(x *eqflib.Window, _ []float64) []float64 {
		s, err := g.EstimateSigma(x)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, val, 99)
	t.Logf("g_φ: 800 steps in %v, last logit MSE %.4f, held-out MAE %.4f", time.Since(start).Round(time.Millisecond), gl, gMAE)
	if hMAE >= 0.05 {
		t.Errorf("h_ω held-out MAE %.4f ≥ 0.05", hMAE)
	}
	if gMAE > 0.05 {
		t.Errorf("g_φ held-out MAE %.4f ≥ 0.05", gMAE)
	}
}
