// Sampling N(m, s²I) with the exact oracle: FM Euler on the FM field and closed-loop EqF NAG
// on the EqF field both land on the data's moments.
package main

import (
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
)

func main() {
	rng := eqflib.NewRNG(1)
	mean := make([]float64, 64)
	for i := range mean {
		mean[i] = rng.NormFloat64()
	}
	data, _ := eqflib.NewGaussian(mean, 0.5)
	fm, _ := eqflib.NewOracle(data, eqflib.OracleFM)
	eqfField, _ := eqflib.NewOracle(data, eqflib.OracleEqF)
	x0, _ := eqflib.Randn(rng, 256, 1, 64, 1, 1)

	res, err := eqflib.SampleEuler(fm, x0, eqflib.Options{Steps: 100})
	if err != nil {
		panic(err)
	}
	rep, _ := data.CompareMoments(res.X)
	fmt.Printf("FM Euler: NFE %d, |mean err| < 0.05: %v, var ratio within 10%%: %v\n",
		res.NFE, math.Abs(rep.MeanErr) < 0.05, math.Abs(rep.VarRatio-1) < 0.1)

	c, _ := eqflib.CFunctionWarp(0.8, 0.001)
	res, err = eqflib.SampleNAG(eqfField, x0, eqflib.Options{Steps: 100, Warp: c, ClosedLoop: true, Momentum: 0.3})
	if err != nil {
		panic(err)
	}
	rep, _ = data.CompareMoments(res.X)
	fmt.Printf("EqF NAG closed loop: NFE %d, |mean err| < 0.05: %v, var ratio within 10%%: %v, steps traced %d\n",
		res.NFE, math.Abs(rep.MeanErr) < 0.05, math.Abs(rep.VarRatio-1) < 0.1, len(res.Trace))
}

// Output:
// FM Euler: NFE 100, |mean err| < 0.05: true, var ratio within 10%: true
// EqF NAG closed loop: NFE 100, |mean err| < 0.05: true, var ratio within 10%: true, steps traced 100
