package paper

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// UnfinishedDenoising is Figs. unfinished_denoising and unfinished_denoising_comparison (App. B.1,
// B.4): the noise level g_φ reads from a frame over its sampling steps (mean over every frame of
// the rollouts) against the scheduled level, and the level it reads once the frame is emitted
// (termination level), with miss rates: the fraction of frames terminating above a level. FM
// Euler, NU-FM (open-loop GD, identity) and EqF closed-loop NAG, all read by the same g_φ.
func UnfinishedDenoising(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "eqf", "gphi")
	if err != nil {
		return nil, err
	}
	cw := warp(warpC)
	ms := []method{
		{Name: "FM Euler (c-function)", Model: "fm", Color: 1, Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw}}},
		{Name: "NU-FM GD (open loop, identity)", Model: "eqf", Color: 5, Sampler: eqflib.FrameSampler{Sampler: eqflib.GD}},
		{Name: "EqF NAG μ=0.3 (closed loop, c-function)", Model: "eqf", Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, ClosedLoop: true, Momentum: 0.3}}},
	}
	at := []float64{0.005, 0.01, 0.02, 0.05, 0.1}
	// Per method: the termination levels of each training seed's rollouts (every evaluation seed
	// pooled) and the readout per sampling step, pooled over every rollout.
	type acc struct {
		term             [][]float64 // [training seed][frame]
		sumEst, sumSched []float64
		n                []int
	}
	accs := make([]acc, len(ms))
	err = l.eachRun(func(int) error {
		for i, m := range ms {
			zm, a := l.models[m.Model], &accs[i]
			var term []float64
			err := l.eachSeed(zm, func(seed uint64, cl *zoo.Clips) error {
				g := l.geometry(0)
				fs := m.Sampler
				fs.Probe = l.gphi
				res, err := eqflib.Roll(zm.DiT, cl.Context, eqflib.RollOptions{RollConfig: g, Sampler: fs, Frames: l.p.Frames,
					Conditions: cl.Timeline(g.Horizon, g.Stride), CondDim: zoo.CondDim, Seed: seed, KeepTrace: true})
				if err != nil {
					return fmt.Errorf("paper: %s: %w", m.Name, err)
				}
				for _, st := range res.Trace {
					for j, k := range st.Counter {
						if !st.Active[j] || st.Estimate == nil {
							continue
						}
						for len(a.n) < k {
							a.sumEst, a.sumSched, a.n = append(a.sumEst, 0), append(a.sumSched, 0), append(a.n, 0)
						}
						a.sumEst[k-1] += st.Estimate[j]
						a.sumSched[k-1] += st.Sched[j]
						a.n[k-1]++
					}
				}
				t, err := l.gphi.EstimateSigma(res.Frames)
				if err != nil {
					return err
				}
				term = append(term, t...)
				return nil
			})
			if err != nil {
				return err
			}
			a.term = append(a.term, term)
			l.logf("  %-40s termination level mean %.4f, median %.4f over %d frames\n", m.Name, mean(term), median(term), len(term))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := l.withProvenance(&Result{Name: "unfinished_denoising", Title: "Where sampling ends: the noise level g_φ reads", Where: "App. B.1, B.4, Figs. unfinished_denoising, unfinished_denoising_comparison",
		Figures: map[string]*plots.Figure{}})
	over := plots.Panel{Title: "readout over sampling", XLabel: "sampling step of the frame", YLabel: "σ (mean over frames)"}
	miss := plots.Panel{Title: "miss rates", XLabel: "noise level σ", YLabel: "fraction of frames ending above σ", LogX: true, Legend: "none"}
	// perRun is a statistic of each training seed's termination levels (one value per seed).
	perRun := func(a acc, f func([]float64) float64) []float64 {
		v := make([]float64, len(a.term))
		for i, t := range a.term {
			v[i] = f(t)
		}
		return v
	}
	for i, m := range ms {
		a := accs[i]
		var all []float64
		for _, t := range a.term {
			all = append(all, t...)
		}
		var xs, est, sched []float64
		for k := range a.n {
			if a.n[k] > 0 {
				xs, est, sched = append(xs, float64(k)), append(est, a.sumEst[k]/float64(a.n[k])), append(sched, a.sumSched[k]/float64(a.n[k]))
			}
		}
		xs, est = append(xs, float64(len(a.n))), append(est, mean(all))
		over.Series = append(over.Series, plots.Series{Name: shortName(m.Name) + ": g_φ(x)", X: xs, Y: est, Color: m.Color})
		if m.Model == "fm" {
			over.Series = append(over.Series, plots.Series{Name: "FM's schedule ρ(i/N)", X: xs[:len(sched)], Y: sched, Style: plots.Dashed, Color: 8})
		}
		miss.Series = append(miss.Series, plots.Series{Name: shortName(m.Name), X: at, Y: eqflib.MissRates(all, at), Style: plots.LinePoints, Color: m.Color})
		tm, tse := stat(perRun(a, mean))
		md, mdse := stat(perRun(a, median))
		r.Numbers = append(r.Numbers,
			Number{Name: m.Name + ": mean termination level g_φ(x)", Ours: tm, Err: tse, Paper: map[bool]string{true: "nonzero (Fig. unfinished_denoising)"}[m.Model == "fm"]},
			Number{Name: m.Name + ": median termination level", Ours: md, Err: mdse})
		for j, th := range at {
			rm, rse := stat(perRun(a, func(t []float64) float64 { return eqflib.MissRates(t, []float64{th})[0] }))
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: miss rate at σ = %g", m.Name, at[j]), Ours: rm, Err: rse})
		}
	}
	// App. B.4's claims, paired by training seed (each seed's rollouts read by its own g_φ):
	// closed-loop EqF terminates below FM ("almost an order of magnitude lower"), and NAG
	// lowers the level the open-loop noise-unconditional sampler reaches.
	fm, gd, eqf := perRun(accs[0], mean), perRun(accs[1], mean), perRun(accs[2], mean) // in ms's order
	diff := func(a, b []float64, f func(x, y float64) float64) []float64 {
		d := make([]float64, len(a))
		for i := range a {
			d[i] = f(a[i], b[i])
		}
		return d
	}
	minus := func(x, y float64) float64 { return x - y }
	if len(fm) > 1 { // a paired difference needs two training seeds (one: the rows above only)
		// The size of the gap: log10 of the ratio against the paper's "almost an order of
		// magnitude" (−1), decided only when the interval excludes it.
		size := pairedDiff(Number{Name: "log10(EqF NAG / FM Euler): mean termination level, paired by training seed", Paper: "≈ −1 (almost an order of magnitude lower, App. B.4)"},
			diff(eqf, fm, func(x, y float64) float64 { return math.Log10(x / y) }), math.NaN())
		size.Verdict = verdictAt(size.Lo, size.Hi, -1)
		r.Numbers = append(r.Numbers,
			pairedDiff(Number{Name: "EqF NAG − FM Euler: mean termination level, paired by training seed", Paper: "< 0 (EqF terminates lower, App. B.4)"}, diff(eqf, fm, minus), -1),
			size,
			pairedDiff(Number{Name: "EqF NAG (closed loop) − NU-FM GD (open loop): mean termination level, paired by training seed", Paper: "< 0 (NAG lowers the level reached, App. B.4)"}, diff(eqf, gd, minus), -1))
	}
	r.Figures["unfinished_denoising"] = &plots.Figure{Title: "Noise level readout across sampling steps", Panels: []plots.Panel{over, miss}}
	r.Notes = append(r.Notes, "g_φ, the framewise predictor trained on individually noised real frames, reads every method's frames, "+
		"so the levels compare across models; its own error floor near σ = 0 bounds how low a termination level can read "+
		"(its held-out σ MAE is on the zoo's card). Each training seed's rollouts are read by its own g_φ; the figure pools them, "+
		"the numbers are means over training seeds ± SE. The paper reports EqF terminating almost an order of magnitude below FM (App. B.4): "+
		"the differences test the direction (verdict: the 95 % t-interval over training seeds against 0), "+
		"the log10 ratio the size (differs when its interval excludes −1; inconclusive otherwise).")
	return r, nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / math.Max(1, float64(len(v)))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
