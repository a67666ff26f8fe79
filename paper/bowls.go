package paper

import (
	"context"
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Bowls is Fig. bowls (App. B.2) on the zoo's FM: held-out windows with a clean context and the
// horizon noised to σ_stable, FM told σ_stable + δ on the horizon only (left), or δ also on the
// context (right); the v-loss increase over δ = 0. EqF takes no level, so nothing can be told
// wrongly: its loss does not move with δ, which is the point of the figure and is not drawn.
func Bowls(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm")
	if err != nil {
		return nil, err
	}
	deltas := []float64{-0.07, -0.05, -0.03, -0.01, 0, 0.01, 0.03, 0.05, 0.07}
	levels := []float64{0.2, 0.5, 0.8}
	if c.Quick {
		deltas, levels = []float64{-0.07, 0, 0.07}, []float64{0.5}
	}
	T, C := l.z.Recipe.Frames, l.z.Recipe.Context
	per := make([][][]*eqflib.BowlCurves, len(levels)) // [level][training seed][evaluation seed]
	err = l.eachRun(func(int) error {
		fm := l.models["fm"]
		for li, s := range levels {
			var run []*eqflib.BowlCurves
			err := l.eachSeed(fm, func(seed uint64, cl *zoo.Clips) error {
				x, cond := windows(cl, T)
				b, err := eqflib.Bowls(fm.DiT.WithConditions(cond), x, C, s, deltas, seed)
				if err != nil {
					return err
				}
				run = append(run, b)
				return nil
			})
			if err != nil {
				return err
			}
			per[li] = append(per[li], run)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := l.withProvenance(&Result{Name: "bowls", Title: "FM's loss when told a wrong noise level", Where: "App. B.2, Fig. bowls", Figures: map[string]*plots.Figure{}})
	var named []plots.NamedBowls
	for li, s := range levels {
		mean := &eqflib.BowlCurves{Delta: deltas}
		for i := range deltas {
			hm, hse := runStatOf(per[li], func(b *eqflib.BowlCurves) float64 { return b.HorizonOnly[i] })
			wm, _ := runStatOf(per[li], func(b *eqflib.BowlCurves) float64 { return b.WithContext[i] })
			gm, gse := runStatOf(per[li], func(b *eqflib.BowlCurves) float64 { return b.WithContext[i] - b.HorizonOnly[i] })
			mean.HorizonOnly, mean.WithContext = append(mean.HorizonOnly, hm), append(mean.WithContext, wm)
			if deltas[i] == 0 {
				continue
			}
			r.Numbers = append(r.Numbers,
				Number{Name: fmt.Sprintf("σ_stable=%.1f, δ=%+.2f: loss increase, horizon only", s, deltas[i]), Ours: hm, Err: hse, Paper: "> 0, growing with |δ|"},
				Number{Name: fmt.Sprintf("σ_stable=%.1f, δ=%+.2f: context gain (with context − horizon only)", s, deltas[i]), Ours: gm, Err: gse, Paper: "> 0"})
		}
		mean.Base, _ = runStatOf(per[li], func(b *eqflib.BowlCurves) float64 { return b.Base })
		named = append(named, plots.NamedBowls{Name: fmt.Sprintf("FM, σ_stable = %.1f", s), Bowls: mean})
	}
	fig, err := plots.BowlFigure(named)
	if err != nil {
		return nil, err
	}
	r.Figures["bowls"] = fig
	r.Notes = append(r.Notes, "Loss increases are raw v-MSE differences on the horizon frames (the paper standardises them over δ ∈ [−0.07, 0.07]); "+
		"context levels are clamped to [0, 1], so a negative δ leaves the context's level at 0 and its gain at 0.")
	return r, nil
}
