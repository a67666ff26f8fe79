package paper

import (
	"context"
	"fmt"
	"math"

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

	// One fresh h_ω and one fresh g_φ per training seed: h_ω on that seed's backbone (its live
	// weights; their EMA is what h_ω reads, its trained h_ω dropped), g_φ with that seed's
	// initialisation and batches.
	type curves struct{ at, maeH, maeG, hLoss, gLoss []float64 }
	var runs []curves
	err = l.eachRun(func(k int) error {
		rz := l.z.WithTrainSeed(k)
		live, err := eqflib.LoadDiT(eqflib.LatestCheckpoint(rz.ModelDir("eqf")))
		if err != nil {
			return err
		}
		if err := live.DropReadout(); err != nil {
			return err
		}
		rt, err := eqflib.NewReadoutTrainer(live, train, rz.Recipe.ReadoutConfig())
		if err != nil {
			return err
		}
		gc := rz.Recipe.GPhiConfig()
		g, err := eqflib.NewNoisePredictor(3, rc.Size, rc.Size, nil, gc, gc.Seed)
		if err != nil {
			return err
		}
		var cv curves
		var ema *eqflib.DiT
		for done := 0; done < steps; done += every {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, err := rt.Train(every); err != nil {
				return err
			}
			for i := 0; i < every; i++ {
				v, err := g.Train(train, 1)
				if err != nil {
					return err
				}
				cv.gLoss = append(cv.gLoss, v)
			}
			if ema == nil {
				if ema, err = live.EMA(); err != nil {
					return err
				}
				if err := ema.AttachReadout(0); err != nil {
					return err
				}
			}
			h, err := eqflib.SigmaMAE(val, evalBatches, 99, readoutEstimate(ema))
			if err != nil {
				return err
			}
			gm, err := eqflib.SigmaMAE(val, evalBatches, 99, gphiEstimate(g))
			if err != nil {
				return err
			}
			cv.at, cv.maeH, cv.maeG = append(cv.at, float64(done+every)), append(cv.maeH, h), append(cv.maeG, gm)
			l.logf("  step %4d: held-out σ MAE h_ω %.4f, g_φ %.4f\n", done+every, h, gm)
		}
		cv.hLoss = rt.History
		runs = append(runs, cv)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// each is a per-seed quantity's mean ± SE over the seeds; avg is a curve averaged over them.
	each := func(f func(curves) float64) (float64, float64) {
		v := make([]float64, len(runs))
		for i, cv := range runs {
			v[i] = f(cv)
		}
		return stat(v)
	}
	avg := func(f func(curves) []float64) []float64 {
		out := make([]float64, len(f(runs[0])))
		for _, cv := range runs {
			for i, x := range f(cv) {
				out[i] += x / float64(len(runs))
			}
		}
		return out
	}
	at := runs[0].at
	last := len(at) - 1
	num := func(name string, f func(curves) float64, paper, note string) Number {
		m, se := each(f)
		return Number{Name: name, Ours: m, Err: se, Paper: paper, Note: note}
	}
	r := l.withProvenance(&Result{Name: "nle", Title: "Training dynamics of the noise-level estimators", Where: "App. F.2, Fig. nle", Figures: map[string]*plots.Figure{}})
	r.Numbers = []Number{
		num(fmt.Sprintf("h_ω held-out σ MAE after %d steps", int(at[last])), func(cv curves) float64 { return cv.maeH[last] }, "", ""),
		num(fmt.Sprintf("g_φ held-out σ MAE after %d steps", int(at[last])), func(cv curves) float64 { return cv.maeG[last] }, "", ""),
		num("h_ω held-out σ MAE after the first evaluation", func(cv curves) float64 { return cv.maeH[0] }, "", fmt.Sprintf("%d steps", every)),
		num("g_φ held-out σ MAE after the first evaluation", func(cv curves) float64 { return cv.maeG[0] }, "", fmt.Sprintf("%d steps", every)),
		num("h_ω training loss (logit MSE), mean of the last 100 steps", func(cv curves) float64 { return tailOf(cv.hLoss, 100) }, "lower than g_φ's (Fig. nle)", ""),
		num("g_φ training loss (logit MSE), mean of the last 100 steps", func(cv curves) float64 { return tailOf(cv.gLoss, 100) }, "", ""),
		num("steps until h_ω's MAE is within 10 % of its last", func(cv curves) float64 { return firstWithin(cv.at, cv.maeH, 1.1) }, "h_ω converges in 10k steps", ""),
		num("steps until g_φ's MAE is within 10 % of its last", func(cv curves) float64 { return firstWithin(cv.at, cv.maeG, 1.1) }, "g_φ needs 100k steps", ""),
	}
	hLoss, gLoss := avg(func(cv curves) []float64 { return cv.hLoss }), avg(func(cv curves) []float64 { return cv.gLoss })
	maeH, maeG := avg(func(cv curves) []float64 { return cv.maeH }), avg(func(cv curves) []float64 { return cv.maeG })
	loss := plots.Panel{Title: "training loss", XLabel: "training step", YLabel: "logit MSE (20-step mean)", LogY: true}
	loss.Series = []plots.Series{
		{Name: "h_ω (EqF activations)", X: steps1(len(hLoss)), Y: movingMean(hLoss, 20), Color: 2},
		{Name: "g_φ (raw frames)", X: steps1(len(gLoss)), Y: movingMean(gLoss, 20), Color: 1},
	}
	mae := plots.Panel{Title: "held-out accuracy", XLabel: "training step", YLabel: "σ MAE on held-out noised frames", LogY: true}
	mae.Series = []plots.Series{
		{Name: "h_ω", X: at, Y: maeH, Style: plots.LinePoints, Color: 2},
		{Name: "g_φ", X: at, Y: maeG, Style: plots.LinePoints, Color: 1},
	}
	r.Figures["nle"] = &plots.Figure{Title: "Noise-level estimation: readout h_ω against framewise g_φ", Panels: []plots.Panel{loss, mae}}
	r.Notes = append(r.Notes, fmt.Sprintf("Both trained %d steps with the %s recipe's settings (batch, learning rate, warm-up), once per training seed (the figure averages their curves); "+
		"the paper trains h_ω 10k and g_φ 100k steps.", steps, rc.Name))
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
	const bins = 10
	type residuals struct{ sigma, got []float64 }
	ests := []struct {
		name  string
		color int
		est   func() func(x *eqflib.Window, cond []float64) ([]float64, error) // of the models in use
	}{
		{"g_φ (raw frames)", 1, func() func(*eqflib.Window, []float64) ([]float64, error) { return gphiEstimate(l.gphi) }},
		{"h_ω (EqF activations)", 2, func() func(*eqflib.Window, []float64) ([]float64, error) {
			return readoutEstimate(l.models["eqf"].DiT)
		}},
	}
	res := make([][]residuals, len(ests)) // [estimator][training seed]
	err = l.eachRun(func(int) error {
		for i, e := range ests {
			if err := ctx.Err(); err != nil {
				return err
			}
			sigma, got, err := eqflib.SigmaResiduals(val, batches, 99, e.est())
			if err != nil {
				return err
			}
			res[i] = append(res[i], residuals{sigma, got})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := l.withProvenance(&Result{Name: "margred", Title: "Marginalised residuals of the noise-level estimators", Where: "App. F.2, Fig. margred", Figures: map[string]*plots.Figure{}})
	inBin := func(s float64, b int) bool { return int(math.Min(s*bins, bins-1)) == b }
	var panels []plots.Panel
	var nearZero [][]float64 // [estimator][training seed]: mean |σ̂ − σ| for σ in [0, 0.1)
	for i, e := range ests {
		var xs, mres, mabs, lo, hi []float64
		for b := 0; b < bins; b++ {
			var pooled []float64 // every training seed's residuals in the bin: the figure's mean ± 1 sd
			var absRun []float64 // mean |σ̂ − σ| per training seed: the number's mean ± SE
			for _, rr := range res[i] {
				var a []float64
				for j, s := range rr.sigma {
					if inBin(s, b) {
						pooled, a = append(pooled, rr.got[j]-s), append(a, math.Abs(rr.got[j]-s))
					}
				}
				if len(a) > 0 {
					absRun = append(absRun, mean(a))
				}
			}
			if len(pooled) == 0 {
				continue
			}
			if b == 0 {
				nearZero = append(nearZero, absRun)
			}
			m, _ := stat(pooled)
			a, ase := stat(absRun) // one training seed: SE 0 (its bin is one draw)
			sd := 0.0
			for _, v := range pooled {
				sd += (v - m) * (v - m) / float64(len(pooled))
			}
			sd = math.Sqrt(sd)
			xs, mres, mabs, lo, hi = append(xs, (float64(b)+0.5)/bins), append(mres, m), append(mabs, a), append(lo, m-sd), append(hi, m+sd)
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: mean |σ̂ − σ| for σ in [%.1f, %.1f)", e.name, float64(b)/bins, float64(b+1)/bins), Ours: a, Err: ase,
				Paper: map[bool]string{true: "h_ω below g_φ (Fig. margred)"}[b == 0]})
		}
		p := plots.Panel{Title: e.name, XLabel: "true noise level σ (bin centre)", YLabel: "residual σ̂ − σ", Legend: "bl", YMin: -0.3, YMax: 0.3}
		p.Series = []plots.Series{
			{Name: "mean ± 1 sd", X: xs, Y: mres, Lo: lo, Hi: hi, Style: plots.LinePoints, Color: e.color},
			{Name: "mean |σ̂ − σ|", X: xs, Y: mabs, Style: plots.Dashed, Color: e.color},
		}
		panels = append(panels, p)
	}
	// The paper's claim near σ = 0 as a paired difference: both estimators read the same
	// held-out frames (SigmaResiduals' seed), so h_ω − g_φ pairs by training seed.
	if len(nearZero) == 2 && len(nearZero[0]) == len(nearZero[1]) && len(nearZero[0]) > 1 {
		d := make([]float64, len(nearZero[0]))
		for k := range d {
			d[k] = nearZero[1][k] - nearZero[0][k]
		}
		n := pairedDiff(Number{Name: "h_ω − g_φ: mean |σ̂ − σ| for σ in [0.0, 0.1), paired by training seed", Paper: "< 0 (h_ω below g_φ near σ ≈ 0, Fig. margred)"}, d, -1)
		r.Numbers = append(r.Numbers, n)
	}
	r.Figures["margred"] = &plots.Figure{Title: "Residuals of σ estimates, binned by σ", Panels: panels}
	r.Notes = append(r.Notes, fmt.Sprintf("%d held-out frames per estimator and training seed, each noised to its own σ ~ U[0, 1]; "+
		"the figure pools the residuals of every training seed, the numbers are means over training seeds ± SE.", batches*2*l.z.Recipe.Frames))
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
