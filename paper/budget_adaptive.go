package paper

import (
	"context"
	"fmt"

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
	// §5.3: "under a low computational budget of 50 sampling steps or fewer, the adaptive
	// algorithm with NAG consistently sets a lower frontier" than FM and standard EqF with NAG.
	lower := "< 0 (budget-adaptive below at every budget ≤ 50 steps, §5.3; at 50 steps %s)"
	return l.depthFrontier("budget_adaptive", "Budget-adaptive inference: FVD against the step budget", "§5.3, Fig. minecraft_budget_adaptive, Table main_budget_adaptive", ms,
		claim{a: 0, b: 1, sign: -1, paper: fmt.Sprintf(lower, "91.45 − 92.08 = −0.63")},
		claim{a: 0, b: 2, sign: -1, paper: fmt.Sprintf(lower, "91.45 − 135.37 = −43.92")})
}
