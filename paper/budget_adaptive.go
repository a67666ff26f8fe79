package paper

import (
	"context"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// BudgetAdaptive is Fig. minecraft_budget_adaptive and Table main_budget_adaptive (§5.3, App. C.2):
// FVD against the step budget (10…50 steps per frame) for budget-adaptive NAG (μ = 0.1, identity
// η: σ̂ over the frame's remaining steps, Alg. budget_adaptive), EqF NAG (μ = 0.1, closed loop,
// c-function) and FM Euler (c-function).
func BudgetAdaptive(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "eqf", "fm")
	if err != nil {
		return nil, err
	}
	l.shortenForSweep()
	cw := warp(warpC)
	ms := []method{
		{Name: "EqF budget-adaptive NAG μ=0.1", Model: "eqf", Color: 2, Paper: "91.45 ± 0.92 (50 steps)",
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Budget, Options: eqflib.Options{Momentum: 0.1}}},
		{Name: "EqF NAG μ=0.1 (closed loop, c-function)", Model: "eqf", Color: 3, Paper: "92.08 ± 0.30 (50 steps)",
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, ClosedLoop: true, Momentum: 0.1}}},
		{Name: "FM Euler (c-function)", Model: "fm", Color: 1, Paper: "135.37 ± 1.74 (50 steps)",
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw}}},
	}
	return l.depthFrontier("budget_adaptive", "Budget-adaptive inference: FVD against the step budget", "§5.3, Fig. minecraft_budget_adaptive, Table main_budget_adaptive", ms)
}

// depthFrontier runs every method at Config.depths() and draws FVD against NFE per frame. The
// paper's value of a method is printed only at its largest budget.
func (l *setup) depthFrontier(name, title, where string, ms []method) (*Result, error) {
	depths := l.cfg.depths()
	var curves []curve
	for _, m := range l.atStrides(ms) { // a curve per method and stride
		paper := m.Paper
		m.Paper = ""
		cv, err := l.atDepths(m, depths)
		if err != nil {
			return nil, err
		}
		cv.points[len(cv.points)-1].m.Paper = paper
		curves = append(curves, cv)
	}
	return l.frontier(name, title, where, curves)
}
