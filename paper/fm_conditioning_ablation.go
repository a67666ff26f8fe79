package paper

import (
	"context"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// FMConditioningAblation is Table fm_conditioning_ablation (App. B.3): the FM backbone sampled
// with its scheduled level σ⁽ⁱ⁾ as the condition, or closed loop on g_φ's estimate
// σ̃⁽ⁱ⁾ ≈ g_φ(x⁽ⁱ⁾): Euler on the identity and c-function schedules, and NAG μ = 0.2 on the
// c-function warp (closed loop: NAG's look-ahead is fed g_φ's σ̃ and steps η(σ̃)/N).
func FMConditioningAblation(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "gphi")
	if err != nil {
		return nil, err
	}
	cw := warp(warpC)
	euler := func(w eqflib.Warp, closed bool) eqflib.FrameSampler {
		return eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: w, ClosedLoop: closed}}
	}
	nag := eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, Momentum: 0.2}}
	nagG := nag
	nagG.ClosedLoop = true
	ms := []method{
		{Name: "FM Euler, identity, σ", Model: "fm", Sampler: euler(nil, false), Paper: "126.633", Color: 1},
		{Name: "FM Euler, identity, g_φ", Model: "fm", Sampler: euler(nil, true), GPhi: true, Paper: "121.145", Color: 2},
		{Name: "FM Euler, c-function, σ", Model: "fm", Sampler: euler(cw, false), Paper: "103.610", Color: 3},
		{Name: "FM Euler, c-function, g_φ", Model: "fm", Sampler: euler(cw, true), GPhi: true, Paper: "94.488", Color: 4},
		{Name: "FM NAG μ=0.2, c-function, σ", Model: "fm", Sampler: nag, Paper: "1045.633", Color: 5},
		{Name: "FM NAG μ=0.2, c-function, g_φ", Model: "fm", Sampler: nagG, GPhi: true, Paper: "81.193", Color: 6},
	}
	rows, err := l.runAll(ms)
	if err != nil {
		return nil, err
	}
	r, err := l.table("fm_conditioning_ablation", "Flow Matching conditioned on its schedule or on g_φ", "App. B.3, Table fm_conditioning_ablation", rows)
	if err != nil {
		return nil, err
	}
	r.Numbers = append(r.Numbers, conditioningPairs(rows, len(ms))...)
	return r, nil
}

// conditioningPairs states App. B.3's claims, paired by training seed (paired) against the
// paper's differences: per sampler, the g_φ-conditioned row's FVD minus the σ-conditioned
// row's; and open-loop NAG's FVD minus Euler's on the same c-function schedule ("the sample
// diverges completely without the closed-loop correction"). The rows come stride by stride,
// perStride methods each, in FMConditioningAblation's order: (σ, g_φ) pairs for Euler identity,
// Euler c-function and NAG c-function (runAll keeps the methods' order).
func conditioningPairs(rows []methodScores, perStride int) []Number {
	var out []Number
	for b := 0; b+perStride <= len(rows); b += perStride {
		block := rows[b : b+perStride]
		for i := 0; i+1 < len(block); i += 2 {
			out = append(out, paired(block[i:i+2], 0)...)
		}
		if len(block) == 6 {
			out = append(out, paired([]methodScores{block[2], block[4]}, 0)...)
		}
	}
	return out
}
