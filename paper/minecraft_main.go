package paper

import (
	"context"
	"fmt"
	"slices"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// MinecraftMain is Table minecraft_main (§5.2) on the maze world: every objective of the zoo with
// its own sampler, rolled out over the same real context and actions. EqF: closed-loop NAG
// (μ = 0.3, c-function warp) and open-loop GD (c-function); EqM: NAG μ = 0.1 with a fixed step
// size and no readout (its own sampler); FM: Euler on the c-function schedule; NU-FM: the EqF
// backbone with open-loop GD on the identity warp (NU-FM's recipe, §6); Diffusion: DDIM.
func MinecraftMain(ctx context.Context, c Config) (*Result, error) {
	l, err := newPartialSetup(ctx, c, "eqf", "eqm", "fm", "diffusion")
	if err != nil {
		return nil, err
	}
	ms, leftOut := l.only(mainMethods(l.p.Depth))
	rows, err := l.runAll(ms)
	if err != nil {
		return nil, err
	}
	r, err := l.table("minecraft_main", "Autoregressive rollouts: EqF against its baselines", "§5.2, Table minecraft_main", rows)
	if err != nil {
		return nil, err
	}
	for i, row := range rows {
		if row.m.Model == "fm" {
			r.Numbers = append(r.Numbers, paired(rows, i)...)
		}
	}
	if eff := strideEffects(rows, ""); len(eff) > 0 { // S = 1 against S = H, when both ran
		r.Numbers = append(r.Numbers, eff...)
		r.Notes = append(r.Notes, strideEffectNote)
	}
	if leftOut != "" {
		r.Notes = append(r.Notes, leftOut)
	}
	if slices.ContainsFunc(ms, func(m method) bool { return m.eqmStep }) {
		r.Notes = append(r.Notes, eqmStepNote)
	}
	r.Notes = append(r.Notes,
		"The paper also reports VBench, which needs its pretrained video models; action agreement (the action net's accuracy on the generated transitions over its accuracy on real ones) stands in for consistency here.")
	l.stampStride(r)
	return r, nil
}

// eqmStepNote says how EqM's fixed step is chosen (eqmStep).
const eqmStepNote = "EqM's fixed step at D steps per frame is A_α/(λ·D), the paper's normaliser (App. G): EqM's field is λ·c₁,α(σ)·v, so this step " +
	"moves it as EqF's normalised c-function warp A_α·c₁,α/D does, with A_α = ∫ du/c₁,α(u) over [σ_end, 1] = 1.86 (α = 0.8, σ_end = 0.001, λ = 4); " +
	"the paper reports EqM's tuned step as equivalent to A_α = 1.7. It is recomputed at every D."

// eqmStep is EqM's fixed step at depth steps per frame: A_α/(λ·depth) (eqmStepNote).
func eqmStep(depth int) float64 {
	w, err := eqflib.CFunctionWarp(eqflib.DefaultEqMAlpha, 0.001)
	if err != nil {
		panic(fmt.Sprintf("paper: the default c-function warp: %v", err))
	}
	return w.A / (eqflib.DefaultEqMLambda * float64(depth))
}

// mainMethods are Table minecraft_main's rows (depth: steps per frame, for EqM's fixed step).
func mainMethods(depth int) []method {
	c := warp(warpC)
	return []method{
		{Name: "EqF NAG μ=0.3 (closed loop, c-function)", Model: "eqf", Paper: "64.34 ± 1.78", Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: c, ClosedLoop: true, Momentum: 0.3}}},
		{Name: "EqM NAG μ=0.1 (fixed step)", Model: "eqm", Paper: "77.02 ± 5.21", Color: 4,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Momentum: 0.1, StepSize: eqmStep(depth)}}, eqmStep: true},
		{Name: "EqF GD (open loop, c-function)", Model: "eqf", Paper: "77.63 ± 3.31", Color: 3,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: c}}},
		{Name: "FM Euler (c-function)", Model: "fm", Paper: "104.13 ± 4.33", Color: 1,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: c}}},
		{Name: "NU-FM GD (open loop, identity)", Model: "eqf", Paper: "101.16 ± 3.57", Color: 5,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.GD}},
		{Name: "Diffusion DDIM", Model: "diffusion", Paper: "106.00 ± 1.22", Color: 6,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.DDIM}},
	}
}
