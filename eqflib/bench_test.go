package eqflib

import (
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// BenchmarkMatMul512 times a 512×512×512 float32 matrix product on the compute backend and
// reports GFLOP/s. `make bench-matmul` runs it with and without GOEXPERIMENT=simd.
func BenchmarkMatMul512(b *testing.B) { benchMatMul(b, 512) }

// BenchmarkMatMul1024 is the 1024³ product that make bench-peer measures on both sides: the
// machine's matrix-product rate against which every row's GFLOP/s is read.
func BenchmarkMatMul1024(b *testing.B) { benchMatMul(b, 1024) }

func benchMatMul(b *testing.B, n int) {
	backend, err := Backend()
	if err != nil {
		b.Fatal(err)
	}
	rng := NewRNG(1)
	a := make([]float32, n*n)
	c := make([]float32, n*n)
	for i := range a {
		a[i], c[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	ta, tc := tensors.FromFlatDataAndDimensions(a, n, n), tensors.FromFlatDataAndDimensions(c, n, n)
	exec, err := graph.NewExec(backend, func(x, y *graph.Node) *graph.Node { return graph.MatMul(x, y) })
	if err != nil {
		b.Fatal(err)
	}
	out, err := exec.Call(ta, tc) // compile outside the timed loop
	if err != nil {
		b.Fatal(err)
	}
	out[0].FinalizeAll()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exec.Call(ta, tc)
		if err != nil {
			b.Fatal(err)
		}
		out[0].FinalizeAll()
	}
	b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkOracleEqF times one exact EqF oracle evaluation of 256 frames of dimension 256.
func BenchmarkOracleEqF(b *testing.B) {
	rng := NewRNG(1)
	mean := make([]float64, 256)
	for i := range mean {
		mean[i] = rng.NormFloat64()
	}
	data, _ := NewGaussian(mean, 0.5)
	o, _ := NewOracle(data, OracleEqF)
	x, _ := Randn(rng, 256, 1, 256, 1, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := o.Eval(x, nil, EvalOptions{Readout: true}); err != nil {
			b.Fatal(err)
		}
	}
}
