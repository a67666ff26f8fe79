package paper

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// NLE is Fig. nle (App. F.2): how fast each noise-level estimator learns. A fresh readout h_ω on
// the zoo's frozen EqF backbone and a fresh framewise predictor g_φ on raw frames are trained with
// the zoo's own settings; each records its logit-space training loss per step and its held-out
// σ MAE along the way. The paper: h_ω converges in 10k steps, g_φ needs 100k and ends higher.
func NLE(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "eqf")
	if err != nil {
		return nil, err
	}
	rc := l.z.Recipe
	train, val, err := rc.Data()
	if err != nil {
		return nil, err
	}
	steps := max(rc.ReadoutSteps, rc.GPhiSteps)
	every := max(steps/12, 1)
	evalBatches := 64 // 512 held-out frames per evaluation (16 batches left ±0.01 of noise)
	if c.Quick {
		evalBatches = 8
	}

	// h_ω: the zoo backbone's live weights (their EMA is what h_ω reads), its trained h_ω dropped.
	path := eqflib.LatestCheckpoint(filepath.Join(l.z.Dir, "eqf"))
	live, err := eqflib.LoadDiT(path)
	if err != nil {
		return nil, err
	}
	if err := live.DropReadout(); err != nil {
		return nil, err
	}
	rt, err := eqflib.NewReadoutTrainer(live, train, rc.ReadoutConfig())
	if err != nil {
		return nil, err
	}
	g, err := eqflib.NewNoisePredictor(3, rc.Size, rc.Size, nil, rc.GPhiConfig(), rc.Seed)
	if err != nil {
		return nil, err
	}
	var gLoss []float64
	var ema *eqflib.DiT
	var at, maeH, maeG []float64
	for done := 0; done < steps; done += every {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := rt.Train(every); err != nil {
			return nil, err
		}
		for i := 0; i < every; i++ {
			v, err := g.Train(train, 1)
			if err != nil {
				return nil, err
			}
			gLoss = append(gLoss, v)
		}
		if ema == nil {
			if ema, err = live.EMA(); err != nil {
				return nil, err
			}
			if err := ema.AttachReadout(0); err != nil {
				return nil, err
			}
		}
		h, err := eqflib.SigmaMAE(val, evalBatches, 99, readoutEstimate(ema))
		if err != nil {
			return nil, err
		}
		gm, err := eqflib.SigmaMAE(val, evalBatches, 99, gphiEstimate(g))
		if err != nil {
			return nil, err
		}
		at, maeH, maeG = append(at, float64(done+every)), append(maeH, h), append(maeG, gm)
		l.logf("  step %4d: held-out σ MAE h_ω %.4f, g_φ %.4f\n", done+every, h, gm)
	}
	r := &Result{Models: l.provenance(), TrainSeeds: l.usedRuns(), Name: "nle", Title: "Training dynamics of the noise-level estimators", Where: "App. F.2, Fig. nle", Figures: map[string]*plots.Figure{}}
	r.Numbers = []Number{
		{Name: fmt.Sprintf("h_ω held-out σ MAE after %d steps", int(at[len(at)-1])), Ours: maeH[len(maeH)-1]},
		{Name: fmt.Sprintf("g_φ held-out σ MAE after %d steps", int(at[len(at)-1])), Ours: maeG[len(maeG)-1]},
		{Name: "h_ω held-out σ MAE after the first evaluation", Ours: maeH[0], Note: fmt.Sprintf("%d steps", every)},
		{Name: "g_φ held-out σ MAE after the first evaluation", Ours: maeG[0], Note: fmt.Sprintf("%d steps", every)},
		{Name: "h_ω training loss (logit MSE), mean of the last 100 steps", Ours: tailOf(rt.History, 100), Paper: "lower than g_φ's (Fig. nle)"},
		{Name: "g_φ training loss (logit MSE), mean of the last 100 steps", Ours: tailOf(gLoss, 100)},
		{Name: "steps until h_ω's MAE is within 10 % of its last", Ours: firstWithin(at, maeH, 1.1), Paper: "h_ω converges in 10k steps"},
		{Name: "steps until g_φ's MAE is within 10 % of its last", Ours: firstWithin(at, maeG, 1.1), Paper: "g_φ needs 100k steps"},
	}
	loss := plots.Panel{Title: "training loss", XLabel: "training step", YLabel: "logit MSE (20-step mean)", LogY: true}
	loss.Series = []plots.Series{
		{Name: "h_ω (EqF activations)", X: steps1(len(rt.History)), Y: movingMean(rt.History, 20), Color: 2},
		{Name: "g_φ (raw frames)", X: steps1(len(gLoss)), Y: movingMean(gLoss, 20), Color: 1},
	}
	mae := plots.Panel{Title: "held-out accuracy", XLabel: "training step", YLabel: "σ MAE on held-out noised frames", LogY: true}
	mae.Series = []plots.Series{
		{Name: "h_ω", X: at, Y: maeH, Style: plots.LinePoints, Color: 2},
		{Name: "g_φ", X: at, Y: maeG, Style: plots.LinePoints, Color: 1},
	}
	r.Figures["nle"] = &plots.Figure{Title: "Noise-level estimation: readout h_ω against framewise g_φ", Panels: []plots.Panel{loss, mae}}
	r.Notes = append(r.Notes, fmt.Sprintf("Both trained %d steps with the %s recipe's settings (batch, learning rate, warm-up); the paper trains h_ω 10k and g_φ 100k steps.", steps, rc.Name))
	return r, nil
}

// MargRed is Fig. margred (App. F.2): the residuals σ̂ − σ of the zoo's g_φ and h_ω (on the EqF
// backbone) on held-out noised frames, binned by the true σ. The paper: both accurate, h_ω
// especially near σ ≈ 0.
func MargRed(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "eqf", "gphi")
	if err != nil {
		return nil, err
	}
	_, val, err := l.z.Recipe.Data()
	if err != nil {
		return nil, err
	}
	batches := 64
	if c.Quick {
		batches = 8
	}
	r := &Result{Models: l.provenance(), TrainSeeds: l.usedRuns(), Name: "margred", Title: "Marginalised residuals of the noise-level estimators", Where: "App. F.2, Fig. margred", Figures: map[string]*plots.Figure{}}
	const bins = 10
	var panels []plots.Panel
	for _, e := range []struct {
		name  string
		color int
		est   func(x *eqflib.Window, cond []float64) ([]float64, error)
	}{
		{"g_φ (raw frames)", 1, gphiEstimate(l.gphi)},
		{"h_ω (EqF activations)", 2, readoutEstimate(l.models["eqf"].DiT)},
	} {
		sigma, got, err := eqflib.SigmaResiduals(val, batches, 99, e.est)
		if err != nil {
			return nil, err
		}
		var xs, mres, mabs, lo, hi []float64
		for b := 0; b < bins; b++ {
			var res []float64
			for i, s := range sigma {
				if int(math.Min(s*bins, bins-1)) == b {
					res = append(res, got[i]-s)
				}
			}
			if len(res) == 0 {
				continue
			}
			m, _ := stat(res)
			var a float64
			for _, v := range res {
				a += math.Abs(v) / float64(len(res))
			}
			sd := 0.0
			for _, v := range res {
				sd += (v - m) * (v - m) / float64(len(res))
			}
			sd = math.Sqrt(sd)
			xs, mres, mabs, lo, hi = append(xs, (float64(b)+0.5)/bins), append(mres, m), append(mabs, a), append(lo, m-sd), append(hi, m+sd)
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: mean |σ̂ − σ| for σ in [%.1f, %.1f)", e.name, float64(b)/bins, float64(b+1)/bins), Ours: a,
				Paper: map[bool]string{true: "h_ω below g_φ (Fig. margred)"}[b == 0]})
		}
		p := plots.Panel{Title: e.name, XLabel: "true noise level σ (bin centre)", YLabel: "residual σ̂ − σ", Legend: "bl", YMin: -0.3, YMax: 0.3}
		p.Series = []plots.Series{
			{Name: "mean ± 1 sd", X: xs, Y: mres, Lo: lo, Hi: hi, Style: plots.LinePoints, Color: e.color},
			{Name: "mean |σ̂ − σ|", X: xs, Y: mabs, Style: plots.Dashed, Color: e.color},
		}
		panels = append(panels, p)
	}
	r.Figures["margred"] = &plots.Figure{Title: "Residuals of σ estimates, binned by σ", Panels: panels}
	r.Notes = append(r.Notes, fmt.Sprintf("%d held-out frames per estimator, each noised to its own σ ~ U[0, 1].", batches*2*l.z.Recipe.Frames))
	return r, nil
}

func readoutEstimate(m *eqflib.DiT) func(x *eqflib.Window, cond []float64) ([]float64, error) {
	return func(x *eqflib.Window, cond []float64) ([]float64, error) {
		out, err := m.WithConditions(cond).Eval(x, nil, eqflib.EvalOptions{Readout: true})
		if err != nil {
			return nil, err
		}
		return out.SigmaHat, nil
	}
}

func gphiEstimate(g *eqflib.NoisePredictor) func(x *eqflib.Window, cond []float64) ([]float64, error) {
	return func(x *eqflib.Window, _ []float64) ([]float64, error) { return g.EstimateSigma(x) }
}

// tailOf is the mean of v's last n values.
func tailOf(v []float64, n int) float64 { return mean(v[max(len(v)-n, 0):]) }

// firstWithin is the first step whose value is within factor of the last value.
func firstWithin(at, v []float64, factor float64) float64 {
	last := v[len(v)-1]
	for i, x := range v {
		if x <= factor*last {
			return at[i]
		}
	}
	return at[len(at)-1]
}

func steps1(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}

// movingMean smooths v with a trailing window of w.
func movingMean(v []float64, w int) []float64 {
	out := make([]float64, len(v))
	var s float64
	for i, x := range v {
		s += x
		if i >= w {
			s -= v[i-w]
		}
		out[i] = s / float64(min(i+1, w))
	}
	return out
}
