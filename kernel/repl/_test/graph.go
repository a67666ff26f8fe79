// A GoMLX graph built and run from interpreted code through the non-generic helpers.
package main

import (
	"fmt"

	"github.com/equilibriumforcing/eqf/symbols/eqf"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
)

func main() {
	sq, err := eqf.Exec1(func(x *graph.Node) *graph.Node { return graph.Mul(x, x) })
	if err != nil {
		panic(err)
	}
	y, _ := sq.Call([]float32{1, 2, 3})
	fmt.Println(eqf.Describe(y))

	// a·x + 1 with a scalar constant, on float32 built from float64 values.
	axpy, _ := eqf.Exec2(func(a, x *graph.Node) *graph.Node {
		return graph.Add(graph.Mul(a, x), eqf.ScalarLike(x, 1))
	})
	x, _ := eqf.Tensor32([]float64{1, 2, 3, 4})
	out, _ := axpy.Call(float32(2), x)
	vals, _ := eqf.Floats(out)
	fmt.Println(vals)

	// Gradient of Σ x² is 2x.
	grad, _ := eqf.ExecN(1, 2, func(g *graph.Graph, in []*graph.Node) []*graph.Node {
		loss := graph.ReduceAllSum(graph.Mul(in[0], in[0]))
		return []*graph.Node{loss, graph.Gradient(loss, in[0])[0]}
	})
	outs, _ := grad.CallAll([]float32{0.5, -1, 2})
	fmt.Println(eqf.Describe(outs[0]))
	g, _ := eqf.Floats(outs[1])
	fmt.Println(g)

	// A graph with no inputs.
	ramp, _ := eqf.ExecG(func(g *graph.Graph) *graph.Node {
		return graph.Iota(g, shapes.Make(dtypes.Float32, 2, 3), 1)
	})
	t, _ := ramp.Call()
	fmt.Println(t.Shape(), t.Value())

	// Errors come back as errors, not panics.
	_, err = sq.Call("not a tensor")
	fmt.Println(err != nil)
}

// Output:
// Float32[3] [1 4 9]  mean 4.667 std 3.3 min 1 max 9
// [3 5 7 9]
// Float32 [5.25]
// [1 -2 4]
// (Float32)[2, 3] [[0 1 2] [0 1 2]]
// true
