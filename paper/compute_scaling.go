package paper

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// FixedComputeScaling is Fig. fixed_compute_scaling (§5.2): FVD against NFE per frame at 10…50
// steps per frame for EqF (closed-loop NAG μ = 0.3, c-function), EqF GD (open loop), FM Euler,
// NU-FM (open-loop GD, identity) and EqM (NAG μ = 0.1, fixed step).
func FixedComputeScaling(ctx context.Context, c Config) (*Result, error) {
	if len(c.Models) > 0 && !slices.Contains(c.Models, "eqf") {
		return nil, fmt.Errorf("paper: fixed_compute_scaling compares every method with EqF NAG: Config.Models = %v must include eqf", c.Models)
	}
	l, err := newPartialSetup(ctx, c, "eqf", "fm", "eqm")
	if err != nil {
		return nil, err
	}
	l.shortenForSweep()
	var ms []method
	for _, m := range mainMethods(l.p.Depth) {
		if m.Model != "diffusion" {
			m.Paper = ""
			ms = append(ms, m)
		}
	}
	ms, leftOut := l.only(ms) // EqF NAG, every claim's reference, stays first
	// The figure's caption: "EqF is optimal across compute scales … compared with noise-conditional
	// and -unconditional baselines": every baseline's curve above EqF NAG's at every budget (EqF
	// GD, the same model, is no baseline).
	var claims []claim
	for i := 1; i < len(ms); i++ {
		if strings.HasPrefix(ms[i].Name, "EqF GD") {
			continue
		}
		claims = append(claims, claim{a: i, b: 0, sign: +1, paper: "> 0 (EqF NAG lowest at every budget, Fig. fixed_compute_scaling)"})
	}
	r, err := l.depthFrontier("fixed_compute_scaling", "FVD against compute", "§5.2, Fig. fixed_compute_scaling", ms, claims...)
	if err != nil {
		return nil, err
	}
	if leftOut != "" {
		r.Notes = append(r.Notes, leftOut)
	}
	if slices.ContainsFunc(ms, func(m method) bool { return m.eqmStep }) {
		r.Notes = append(r.Notes, eqmStepNote)
	}
	r.Notes = append(r.Notes, "The paper's figure prints no numbers.")
	return r, nil
}

// ClosedOpenNAG is Fig. closed_open_nag (§5.3): NAG at 10…50 steps per frame, closed loop on h_ω
// or open loop on the schedule, on the attractor c-function warp and the transport SD3 warp.
func ClosedOpenNAG(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "eqf")
	if err != nil {
		return nil, err
	}
	l.shortenForSweep()
	nag := func(spec string, closed bool) eqflib.FrameSampler {
		return eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp(spec), ClosedLoop: closed, Momentum: 0.3}}
	}
	ms := []method{
		{Name: "NAG μ=0.3 closed loop, c-function", Model: "eqf", Sampler: nag(warpC, true), Color: 2},
		{Name: "NAG μ=0.3 open loop, c-function", Model: "eqf", Sampler: nag(warpC, false), Color: 3},
		{Name: "NAG μ=0.3 closed loop, SD3", Model: "eqf", Sampler: nag(warpSD3, true), Color: 5},
		{Name: "NAG μ=0.3 open loop, SD3", Model: "eqf", Sampler: nag(warpSD3, false), Color: 6},
	}
	// The figure's caption: "NAG is optimal with closed-loop and attractor (c-function) η warp,
	// compared to open-loop and transport warps": every other curve above the first.
	var claims []claim
	for i := 1; i < len(ms); i++ {
		claims = append(claims, claim{a: i, b: 0, sign: +1, paper: "> 0 (closed-loop NAG on the c-function lowest, Fig. closed_open_nag)"})
	}
	r, err := l.depthFrontier("closed_open_nag", "NAG closed and open loop, attractor and transport warps", "§5.3, Fig. closed_open_nag", ms, claims...)
	if err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, "The paper's figure prints no numbers; its claim is tested by sign at every budget.")
	return r, nil
}
