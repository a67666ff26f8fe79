package paper

import (
	"context"
	"fmt"
	"strings"

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

// depthFrontier runs every method at Config.depths() and draws FVD against NFE per frame. The
// paper's value of a method is printed only at its largest budget. Each claim adds, at every
// depth and stride, its two methods' FVD difference paired by training seed.
func (l *setup) depthFrontier(name, title, where string, ms []method, claims ...claim) (*Result, error) {
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
	r, err := l.frontier(name, title, where, curves)
	if err != nil {
		return nil, err
	}
	r.Numbers = append(r.Numbers, frontierPairs(curves, len(ms), claims)...)
	return r, nil
}

// A claim is a comparison the paper draws from a figure of FVD against compute: method a's FVD
// minus method b's (indices into the methods of depthFrontier) has the sign Sign at every budget
// the figure shows (−1: a lower). Paper is what the paper says, for the Paper column.
type claim struct {
	a, b  int
	sign  float64
	paper string
}

// frontierPairs is every claim at every depth of every stride: a − b paired by training seed
// with its 95 % t-interval, and the verdict against the claim's sign. curves holds perStride
// curves per stride, in the order of depthFrontier's methods. With one training seed there is
// no interval over training seeds, and the verdict is inconclusive.
func frontierPairs(curves []curve, perStride int, claims []claim) []Number {
	var out []Number
	for s := 0; s+perStride <= len(curves); s += perStride {
		for _, c := range claims {
			ca, cb := curves[s+c.a], curves[s+c.b]
			for k := range min(len(ca.points), len(cb.points)) {
				a, b := ca.points[k], cb.points[k]
				if len(a.per) != len(b.per) || len(a.per) == 0 {
					continue
				}
				bName := strings.TrimPrefix(cb.name, fmt.Sprintf("S=%d: ", b.m.Stride)) // one stride tag is enough
				n := Number{Name: fmt.Sprintf("%s − %s at %s: FVD, paired by training seed", ca.name, bName, ca.labels[k]),
					Paper: c.paper, Stride: a.m.Stride}
				d := fvdDiff(a, b)
				if runs := d.perRun(fvdOf); len(runs) > 1 {
					out = append(out, pairedDiff(n, runs, c.sign))
					continue
				}
				n.Name = fmt.Sprintf("%s − %s at %s: FVD, paired by evaluation seed (one training seed)", ca.name, bName, ca.labels[k])
				n.Ours, n.Err = d.of(fvdOf)
				n.Verdict = Inconclusive
				out = append(out, n)
			}
		}
	}
	return out
}
