package eqflib

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// gaussianFMGraph is f*_FM for N(m, s²I) written as a graph, the way a model would be:
// f = (σ − (1−σ)s²)/κ · (x − (1−σ)m) − m, with κ = (1−σ)²s² + σ².
func gaussianFMGraph(mean []float64, s float64) GraphFieldFn {
	return func(x, level *graph.Node) (*graph.Node, *graph.Node) {
		dims := x.Shape().Dimensions
		sig := frameBroadcast(level, x)
		a := graph.OneMinus(sig)
		m := graph.Const(x.Graph(), tensors.FromFlatDataAndDimensions(append([]float64(nil), mean...), 1, 1, dims[2], dims[3], dims[4]))
		m = graph.BroadcastToDims(graph.ConvertDType(m, x.DType()), dims...)
		kappa := graph.Add(graph.MulScalar(graph.Square(a), s*s), graph.Square(sig))
		beta := graph.Div(graph.Sub(sig, graph.MulScalar(a, s*s)), kappa)
		return graph.Sub(graph.Mul(beta, graph.Sub(x, graph.Mul(a, m))), m), nil
	}
}

func TestGraphFieldMatchesOracleAndCompilesOnce(t *testing.T) {
	const d = 16
	rng := NewRNG(13)
	mean := make([]float64, d)
	for i := range mean {
		mean[i] = rng.NormFloat64()
	}
	data, _ := NewGaussian(mean, 0.5)
	oracle, _ := NewOracle(data, OracleFM)
	for _, dt := range []dtypes.DType{dtypes.Float64, dtypes.Float32} {
		gf, err := NewGraphField(FieldInfo{Name: "graph-fm", NoiseConditional: true}, dt, gaussianFMGraph(mean, 0.5))
		if err != nil {
			t.Fatal(err)
		}
		x0, _ := Randn(NewRNG(14), 4, 2, d, 1, 1)
		a, err := SampleEuler(gf, x0, Options{Steps: 50})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := SampleEuler(oracle, x0, Options{Steps: 50})
		tol := 1e-10
		if dt == dtypes.Float32 {
			tol = 1e-4
		}
		var maxDiff float64
		for i := range a.X.Data {
			maxDiff = math.Max(maxDiff, math.Abs(a.X.Data[i]-b.X.Data[i]))
		}
		if maxDiff > tol {
			t.Errorf("%s: graph field's samples differ from the oracle's by %.3g", dt, maxDiff)
		}
		if gf.Compiles() != 1 {
			t.Errorf("%s: 50 steps compiled %d graphs, want 1", dt, gf.Compiles())
		}
	}
}

func TestGraphFieldBadInput(t *testing.T) {
	assertParamErr(t, "nil fn", second(NewGraphField(FieldInfo{}, dtypes.Float32, nil)), "fn")
	assertParamErr(t, "dtype", second(NewGraphField(FieldInfo{}, dtypes.Int32, gaussianFMGraph([]float64{0}, 1))), "dtype")
	gf, _ := NewGraphField(FieldInfo{Name: "g"}, dtypes.Float32, gaussianFMGraph([]float64{0}, 1))
	x := MustNewWindow(1, 2, 1, 1, 1)
	assertParamErr(t, "readout", second(gf.Eval(x, nil, EvalOptions{Readout: true})), "EvalOptions.Readout")
	assertParamErr(t, "level", second(gf.Eval(x, []float64{1}, EvalOptions{})), "level")
	// A readout promised but not returned is an error, not a panic.
	bad, _ := NewGraphField(FieldInfo{Name: "b", HasReadout: true}, dtypes.Float32, gaussianFMGraph([]float64{0}, 1))
	if _, err := bad.Eval(x, nil, EvalOptions{}); err == nil {
		t.Error("a GraphFieldFn without σ̂ but HasReadout = true was accepted")
	}
}
