package eqflib_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// sigmaMAE is eqflib.SigmaMAE on 32 batches of two held-out windows.
func sigmaMAE(t *testing.T, est func(x *eqflib.Window, cond []float64) []float64, ds eqflib.Dataset, seed uint64) float64 {
	t.Helper()
	mae, err := eqflib.SigmaMAE(ds, 32, seed, func(x *eqflib.Window, cond []float64) ([]float64, error) { return est(x, cond), nil })
	if err != nil {
		t.Fatal(err)
	}
	return mae
}

func TestReadoutsPredictSigma(t *testing.T) {
	// The random-walk maze at 16×16, where this bound was set when the readouts were first
	// trained: their quality on the default corridor world at the zoo's 32×32 is in the zoo's cards.
	train, val := tinyWorld(t, data.RandomWalkMazeConfig(), 4)
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

	// SigmaResiduals is SigmaMAE's measurement frame by frame.
	est := func(x *eqflib.Window, cond []float64) ([]float64, error) {
		out, err := ema.WithConditions(cond).Eval(x, nil, eqflib.EvalOptions{Readout: true})
		return out.SigmaHat, err
	}
	sig, got, err := eqflib.SigmaResiduals(val, 4, 5, est)
	mae, err2 := eqflib.SigmaMAE(val, 4, 5, est)
	if err != nil || err2 != nil || len(sig) != len(got) || len(sig) == 0 {
		t.Fatalf("SigmaResiduals: %d, %d values: %v %v", len(sig), len(got), err, err2)
	}
	var sum float64
	for i := range sig {
		sum += math.Abs(got[i] - sig[i])
	}
	if d := math.Abs(sum/float64(len(sig)) - mae); d > 1e-12 {
		t.Errorf("mean |σ̂ − σ| of SigmaResiduals differs from SigmaMAE by %g", d)
	}
	// DropReadout: h_ω is gone (a new view cannot attach one), and a fresh one trains.
	if err := m.DropReadout(); err != nil || m.HasReadout() {
		t.Fatalf("DropReadout: %v, readout still attached: %v", err, m.HasReadout())
	}
	if v, _ := m.EMA(); v.AttachReadout(0) == nil {
		t.Error("a view attached h_ω after DropReadout")
	}
	rt2, err := eqflib.NewReadoutTrainer(m, train, pc)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := rt2.Train(5); err != nil || !(l > loss) {
		t.Errorf("a fresh h_ω after DropReadout: loss %g after 5 steps, want above the trained one's %g (%v)", l, loss, err)
	}

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
	// g_φ saved and loaded gives the same estimates; a truncated file is refused.
	path := filepath.Join(t.TempDir(), "g.eqf")
	if err := g.Save(path); err != nil {
		t.Fatal(err)
	}
	g2, err := eqflib.LoadNoisePredictor(path)
	if err != nil {
		t.Fatal(err)
	}
	x, _, _ := eqflib.LoadBatch(val, []int{0, 1})
	a, _ := g.EstimateSigma(x)
	b, err := g2.EstimateSigma(x)
	if err != nil || len(a) != len(b) {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("reloaded g_φ estimates %v, want %v", b, a)
		}
	}
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, raw[:len(raw)/2], 0o644)
	if _, err := eqflib.LoadNoisePredictor(path); err == nil {
		t.Error("a truncated g_φ loaded")
	}
	if hMAE >= 0.05 {
		t.Errorf("h_ω held-out MAE %.4f ≥ 0.05", hMAE)
	}
	if gMAE > 0.05 {
		t.Errorf("g_φ held-out MAE %.4f ≥ 0.05", gMAE)
	}
}
