package eqflib

import (
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func init() { debugPanics = true }

// graphEval1 runs a one-input, one-output graph function on a float64 vector.
func graphEval1(t *testing.T, fn func(*graph.Node) *graph.Node, in []float64) []float64 {
	t.Helper()
	out := graphEval(t, func(ins []*graph.Node) []*graph.Node { return []*graph.Node{fn(ins[0])} },
		tensors.FromFlatDataAndDimensions(in, len(in)))
	return out[0]
}

// graphEval runs a graph function on the backend and returns its outputs as float64 slices.
func graphEval(t *testing.T, fn func([]*graph.Node) []*graph.Node, in ...*tensors.Tensor) [][]float64 {
	t.Helper()
	backend, err := Backend()
	if err != nil {
		t.Fatal(err)
	}
	exec, err := graph.NewExec(backend, fn)
	if err != nil {
		t.Fatal(err)
	}
	args := make([]any, len(in))
	for i, x := range in {
		args[i] = x
	}
	outs, err := exec.Call(args...)
	if err != nil {
		t.Fatal(err)
	}
	res := make([][]float64, len(outs))
	for i, o := range outs {
		v, err := tensors.CopyFlatData[float64](o)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = v
	}
	return res
}
