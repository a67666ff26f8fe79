package eqflib_test

import (
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// The c-function warp of EqM (paper App. G): its normaliser A = α + (1 − α) ln((1 − α)/σ_end)
// and the level schedule ρ it induces from noise (σ = 1) to data: linear, ρ = 1 − A s, until
// s = α/A, then exponential (docs/derivations.md).
func ExampleCFunctionWarp() {
	w, err := eqflib.CFunctionWarp(0.8, 0.001)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: A = %.4f, η(1) = %.4f, ρ(1) = %.4f\n", w.Name(), w.A, w.Eta(1), w.Rho(1))
	levels, _ := eqflib.Levels(w, 4)
	for _, s := range levels {
		fmt.Printf("%.3f ", s)
	}
	fmt.Println()
	// Output:
	// c(α=0.8, σ_end=0.001): A = 1.8597, η(1) = 1.8597, ρ(1) = 0.0010
	// 1.000 0.535 0.104 0.010 0.001
}

// Closed-loop EqF sampling with Nesterov momentum (paper §4, App. H) on the exact oracle of a
// Gaussian: the samples land on the data's mean.
func ExampleSampleNAG() {
	rng := eqflib.NewRNG(1)
	mean := make([]float64, 64)
	for i := range mean {
		mean[i] = rng.NormFloat64()
	}
	data, _ := eqflib.NewGaussian(mean, 0.5)
	field, _ := eqflib.NewOracle(data, eqflib.OracleEqF)
	noise, _ := eqflib.Randn(rng, 256, 1, 64, 1, 1)
	warp, _ := eqflib.CFunctionWarp(0.8, 0.001)
	res, err := eqflib.SampleNAG(field, noise, eqflib.Options{Steps: 100, Warp: warp, ClosedLoop: true, Momentum: 0.3})
	if err != nil {
		panic(err)
	}
	rep, _ := data.CompareMoments(res.X)
	fmt.Printf("%d network evaluations; mean error below 0.05: %v\n", res.NFE, math.Abs(rep.MeanErr) < 0.05)
	// Output:
	// 100 network evaluations; mean error below 0.05: true
}

// A sampler written as the command line and the REPL write one.
func ExampleParseSampler() {
	s, err := eqflib.ParseSampler("nag:0.3,closed,warp=sd3")
	fmt.Println(s, err, s.NeedsReadout())
	_, err = eqflib.ParseSampler("gd:0.3")
	fmt.Println(err)
	// Output:
	// nag(Warp=sd3(r=3), ClosedLoop, Momentum=0.3) <nil> true
	// eqflib: parameter Options.Momentum = set (0.3) is out of range: must be unset: sampler "gd" does not read it (it reads Warp, ClosedLoop, Estimator, StepSize)
}

// Rolling inference (paper §4.4, App. I) on the oracle: 2 clean context frames, 2 frames
// denoised together, one emitted per cycle, each taking 8 steps from noise to data.
func ExampleRoll() {
	rng := eqflib.NewRNG(2)
	data, _ := eqflib.NewGaussian(make([]float64, 16), 0.5)
	field, _ := eqflib.NewOracle(data, eqflib.OracleFM)
	context, _ := data.Sample(rng, 1, 2, 1, 4, 4)
	res, err := eqflib.Roll(field, context, eqflib.RollOptions{
		RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 8},
		Sampler:    eqflib.FrameSampler{Sampler: eqflib.Euler},
		Frames:     6, Seed: 1,
	})
	if err != nil {
		panic(err)
	}
	// Each evaluation moves both frames one step, so a frame costs D·S/H = 4 evaluations, plus
	// the bake-in that first brings the staircase to its levels.
	fmt.Printf("%d frames, %d network evaluations (%d in the bake-in)\n", res.Frames.Frames(), res.NFE, res.BakeInNFE)
	// Output:
	// 6 frames, 28 network evaluations (4 in the bake-in)
}
