package eqflib

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
)

// Gradient checks in float64 by central finite differences for every graph op eqflib relies on,
// and tests that pin the known gaps of GoMLX v0.28.16, so that an upgrade that changes any of
// them is caught.

// gradError returns the largest error |autodiff − finite difference| / (1 + |finite difference|)
// of ∂/∂in[k] Σ(w ⊙ fn(in)) over the inputs listed in wrt, with w a fixed random weighting. A
// panic while building or running the graph is returned as an error.
func gradError(fn func(in []*graph.Node) *graph.Node, inputs []*tensors.Tensor, wrt []int) (maxErr float64, err error) {
	defer catch(&err)
	backend, err := Backend()
	if err != nil {
		return 0, err
	}
	loss := func(in []*graph.Node) *graph.Node {
		out := fn(in)
		rng := NewRNG(99)
		w := make([]float64, out.Shape().Size())
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		wt := graph.Const(out.Graph(), tensors.FromFlatDataAndDimensions(w, out.Shape().Dimensions...))
		return graph.ReduceAllSum(graph.Mul(out, wt))
	}
	gradExec, err := graph.NewExec(backend, func(in []*graph.Node) []*graph.Node {
		l := loss(in)
		nodes := make([]*graph.Node, len(wrt))
		for i, k := range wrt {
			nodes[i] = in[k]
		}
		return append([]*graph.Node{l}, graph.Gradient(l, nodes...)...)
	})
	if err != nil {
		return 0, err
	}
	lossExec, err := graph.NewExec(backend, func(in []*graph.Node) *graph.Node { return loss(in) })
	if err != nil {
		return 0, err
	}
	args := func(ts []*tensors.Tensor) []any {
		out := make([]any, len(ts))
		for i, t := range ts {
			out[i] = t
		}
		return out
	}
	outs, err := gradExec.Call(args(inputs)...)
	if err != nil {
		return 0, err
	}
	evalLoss := func(ts []*tensors.Tensor) (float64, error) {
		o, err := lossExec.Call(args(ts)...)
		if err != nil {
			return 0, err
		}
		v, err := tensors.CopyFlatData[float64](o[0])
		return v[0], err
	}
	const h = 1e-6
	for i, k := range wrt {
		grad, err := tensors.CopyFlatData[float64](outs[1+i])
		if err != nil {
			return 0, err
		}
		base, err := tensors.CopyFlatData[float64](inputs[k])
		if err != nil {
			return 0, err
		}
		dims := inputs[k].Shape().Dimensions
		for j := range base {
			var lp, lm float64
			for sgn, dst := range map[float64]*float64{1: &lp, -1: &lm} {
				p := append([]float64(nil), base...)
				p[j] += sgn * h
				ts := append([]*tensors.Tensor(nil), inputs...)
				ts[k] = tensors.FromFlatDataAndDimensions(p, dims...)
				if *dst, err = evalLoss(ts); err != nil {
					return 0, err
				}
			}
			fd := (lp - lm) / (2 * h)
			maxErr = math.Max(maxErr, math.Abs(grad[j]-fd)/(1+math.Abs(fd)))
		}
	}
	return maxErr, nil
}

func randTensor(rng interface{ NormFloat64() float64 }, scale, offset float64, dims ...int) *tensors.Tensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = offset + scale*rng.NormFloat64()
	}
	return tensors.FromFlatDataAndDimensions(v, dims...)
}

// uniformTensor has entries in (lo, hi).
func uniformTensor(seed uint64, lo, hi float64, dims ...int) *tensors.Tensor {
	rng := NewRNG(seed)
	n := 1
	for _, d := range dims {
		n *= d
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return tensors.FromFlatDataAndDimensions(v, dims...)
}

func TestGradientsOfLibraryGraphs(t *testing.T) {
	rng := NewRNG(31)
	x := randTensor(rng, 1, 0, 2, 3, 2, 2, 2)
	eps := randTensor(rng, 1, 0, 2, 3, 2, 2, 2)
	pred := randTensor(rng, 1, 0, 2, 3, 2, 2, 2)
	level := uniformTensor(32, 0.05, 0.95, 2, 3)
	mask := tensors.FromFlatDataAndDimensions([]float64{1, 0, 1, 1, 1, 0}, 2, 3)
	type check struct {
		name   string
		fn     func(in []*graph.Node) *graph.Node
		inputs []*tensors.Tensor
		wrt    []int
	}
	checks := []check{
		{"NoiseGraph", func(in []*graph.Node) *graph.Node { return NoiseGraph(in[0], in[1], in[2]) }, []*tensors.Tensor{x, eps, level}, []int{0, 1, 2}},
		{"CleanEstimateGraph", func(in []*graph.Node) *graph.Node { return CleanEstimateGraph(in[0], in[1], in[2]) }, []*tensors.Tensor{x, eps, level}, []int{0, 1, 2}},
		{"LogitGraph", func(in []*graph.Node) *graph.Node { return LogitGraph(in[0]) }, []*tensors.Tensor{level}, []int{0}},
		{"SigmoidGraph", func(in []*graph.Node) *graph.Node { return SigmoidGraph(in[0]) }, []*tensors.Tensor{eps}, []int{0}},
	}
	for _, name := range []string{"eqf", "fm", "eqm", "nufm", "diffusion"} {
		o, _ := ParseObjective(name)
		checks = append(checks, check{"loss " + name, func(in []*graph.Node) *graph.Node {
			input, cond, target, weight := o.BuildGraph(in[0], in[1], in[2])
			// a toy "network" that uses its input and level input, so gradients flow through both
			net := graph.Add(graph.Mul(in[3], input), frameBroadcast(cond, input))
			return MaskedMSEGraph(net, target, weight, in[4])
		}, []*tensors.Tensor{x, eps, level, pred, mask}, []int{0, 1, 2, 3}})
	}
	for _, spec := range []string{"identity", "sd3", "c", "logsnr"} {
		w, _ := ParseWarp(spec)
		// levels away from the c-function's kink at 0.2
		lv := uniformTensor(33, 0.25, 0.95, 7)
		checks = append(checks, check{"EtaGraph " + spec, func(in []*graph.Node) *graph.Node { return w.EtaGraph(in[0]) }, []*tensors.Tensor{lv}, []int{0}})
	}
	checks = append(checks,
		check{"MatMul", func(in []*graph.Node) *graph.Node { return graph.MatMul(in[0], in[1]) },
			[]*tensors.Tensor{randTensor(rng, 1, 0, 3, 4), randTensor(rng, 1, 0, 4, 5)}, []int{0, 1}},
		check{"attention in query blocks", func(in []*graph.Node) *graph.Node { return attendBlocks(in[0], in[1], in[2], 2*3*5*8) },
			[]*tensors.Tensor{randTensor(rng, 1, 0, 2, 5, 3, 4), randTensor(rng, 1, 0, 2, 5, 3, 4), randTensor(rng, 1, 0, 2, 5, 3, 4)}, []int{0, 1, 2}},
		check{"attention with its own backward (attendTrain)", func(in []*graph.Node) *graph.Node { return attendTrain(in[0], in[1], in[2]) },
			[]*tensors.Tensor{randTensor(rng, 1, 0, 2, 3, 5, 4), randTensor(rng, 1, 0, 2, 3, 5, 4), randTensor(rng, 1, 0, 2, 3, 5, 4)}, []int{0, 1, 2}},
		check{"Gather of a leading-axis chunk (the q, k, v split)", func(in []*graph.Node) *graph.Node {
			return graph.Mul(graph.Gather(in[0], graph.Const(in[0].Graph(), [][]int32{{1}})), graph.Gather(in[0], graph.Const(in[0].Graph(), [][]int32{{2}})))
		}, []*tensors.Tensor{randTensor(rng, 1, 0, 3, 2, 4)}, []int{0}},
		check{"Conv 3×3 (odd kernel)", func(in []*graph.Node) *graph.Node { return graph.Convolve(in[0], in[1]).PadSame().Done() },
			[]*tensors.Tensor{randTensor(rng, 1, 0, 1, 5, 5, 2), randTensor(rng, 1, 0, 3, 3, 2, 2)}, []int{0, 1}},
	)
	for _, c := range checks {
		e, err := gradError(c.fn, c.inputs, c.wrt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if e > 1e-6 {
			t.Errorf("%s: gradient differs from finite differences by %.3g", c.name, e)
		}
	}
}

// Known gaps of GoMLX v0.28.16 (docs/performance.md "Known GoMLX gaps"). If one of these starts failing, the upgrade
// fixed the gap: update the note and the code that works around it.
func TestKnownGoMLXGaps(t *testing.T) {
	rng := NewRNG(41)
	// Even-sized convolution kernels give wrong input gradients (patchify with reshape + dense).
	e, err := gradError(func(in []*graph.Node) *graph.Node { return graph.Convolve(in[0], in[1]).PadSame().Done() },
		[]*tensors.Tensor{randTensor(rng, 1, 0, 1, 6, 6, 2), randTensor(rng, 1, 0, 2, 2, 2, 2)}, []int{0})
	if err == nil && e < 1e-3 {
		t.Errorf("even-kernel convolution input gradient is now correct (error %.2g): the gap is fixed", e)
	}
	// Rsqrt has no gradient (use 1/Sqrt).
	_, err = gradError(func(in []*graph.Node) *graph.Node { return graph.Rsqrt(in[0]) },
		[]*tensors.Tensor{uniformTensor(42, 0.5, 2, 4)}, []int{0})
	if err == nil {
		t.Error("Rsqrt now has a gradient: the gap is fixed")
	}
	// DotGeneral gradients panic when the contracting axes are unsorted.
	_, err = gradError(func(in []*graph.Node) *graph.Node {
		return graph.DotGeneral(in[0], []int{2, 1}, nil, in[1], []int{0, 1}, nil)
	}, []*tensors.Tensor{randTensor(rng, 1, 0, 2, 3, 4), randTensor(rng, 1, 0, 4, 3, 5)}, []int{0, 1})
	if err == nil {
		t.Error("DotGeneral with unsorted contracting axes now differentiates: the gap is fixed")
	}
	// GeluApproximate (tanh) has a wrong gradient; the exact Gelu's is off by ~5e-7 in float64.
	in := []*tensors.Tensor{randTensor(rng, 2, 0, 20)}
	e, err = gradError(func(n []*graph.Node) *graph.Node { return activation.GeluApproximate(n[0]) }, in, []int{0})
	if err == nil && e < 1e-3 {
		t.Errorf("GeluApproximate's gradient is now correct (error %.2g): the gap is fixed", e)
	}
	e, err = gradError(func(n []*graph.Node) *graph.Node { return activation.Gelu(n[0]) }, in, []int{0})
	if err != nil || e > 1e-5 || e < 1e-9 {
		t.Errorf("Gelu's gradient error %.3g (%v) left its known range [1e-9, 1e-5]", e, err)
	}
	// The Go backend prefers constants for variables: a graph that is not marked training embeds
	// every variable that already has a value as a constant, so updates are lost (a stays 1 − 0.1
	// after every step). Marked training, the variable stays a parameter.
	for _, training := range []bool{false, true} {
		got := storeUpdateSequence(t, training)
		want := []float32{0.9, 0.8, 0.7}
		if !training {
			want = []float32{0.9, 0.9, 0.9}
		}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-6 {
				t.Errorf("training=%v: a after step %d = %g, want %g (the known behaviour changed)", training, i, got[i], want[i])
			}
		}
	}
	// Sorted contracting axes work.
	e, err = gradError(func(in []*graph.Node) *graph.Node {
		return graph.DotGeneral(in[0], []int{1, 2}, nil, in[1], []int{0, 1}, nil)
	}, []*tensors.Tensor{randTensor(rng, 1, 0, 2, 3, 4), randTensor(rng, 1, 0, 3, 4, 5)}, []int{0, 1})
	if err != nil || e > 1e-6 {
		t.Errorf("DotGeneral with sorted contracting axes: error %.3g, %v", e, err)
	}
}

// storeUpdateSequence creates a = 1 in one executor, then runs a = a − 0.1 three times in
// another (marked training or not) and returns a after each step.
func storeUpdateSequence(t *testing.T, training bool) []float32 {
	backend, _ := Backend()
	store := model.NewStore()
	newA := func() *model.Variable {
		return store.VariableWithShape("/a", shapes.Make(dtypes.Float32, 1), initializer.One)
	}
	reader, _ := model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		return graph.Add(x, newA().NodeValue(x.Graph()))
	})
	if _, err := reader.Exec(tensors.FromFlatDataAndDimensions([]float32{1}, 1)); err != nil {
		t.Fatal(err)
	}
	upd, err := model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		scope.SetTraining(x.Graph(), training)
		a := newA()
		a.SetNodeValue(graph.Sub(a.NodeValue(x.Graph()), graph.MulScalar(x, 0.1)))
		return x
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []float32
	for i := 0; i < 3; i++ {
		if _, err := upd.Exec(tensors.FromFlatDataAndDimensions([]float32{1}, 1)); err != nil {
			t.Fatal(err)
		}
		av, _ := store.GetVariable("/a").Value()
		v, _ := tensors.CopyFlatData[float32](av)
		out = append(out, v[0])
	}
	return out
}
