package eqflib

import (
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/attention"
	"github.com/gomlx/gomlx/ml/nn"
)

// BenchmarkGoBackendGaps is the minimal reproduction of each Go-backend cost that docs/performance.md
// "Known GoMLX gaps" lists, the slow form beside the one eqflib uses (or the fast reference), at the
// medium training step's shapes: `go test -run '^$' -bench GoBackendGaps ./eqflib/`.
func BenchmarkGoBackendGaps(b *testing.B) {
	backend, err := Backend()
	if err != nil {
		b.Fatal(err)
	}
	rng := NewRNG(1)
	rand := func(dims ...int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(v, dims...)
	}
	// gradients returns the gradients of Σ y² with respect to every input.
	gradients := func(f func(in []*Node) *Node) func(in []*Node) []*Node {
		return func(in []*Node) []*Node { y := f(in); return Gradient(ReduceAllSum(Mul(y, y)), in...) }
	}
	forward := func(f func(in []*Node) *Node) func(in []*Node) []*Node {
		return func(in []*Node) []*Node { return []*Node{f(in)} }
	}
	const M, K, N = 2048, 256, 1024 // the medium DiT's MLP input layer at batch 8 × 4 frames
	x, w, bias := rand(M, K), rand(K, N), rand(N)
	xWide, wNarrow := rand(M, N), rand(N, K) // the MLP's output layer: 1024 → 256
	q, k, v := rand(8, 256, 4, 64), rand(8, 256, 4, 64), rand(8, 256, 4, 64)
	h, shift := rand(8, 4, 64, 256), rand(8, 4, 256)
	hTok := rand(64, 8, 4, 256) // token-major [N, B, T, D]
	bshd := func(in []*Node) *Node {
		out, _ := attention.Core(in[0], in[1], in[2], attention.LayoutBSHD, attention.CoreOptions{DisableFusion: true})
		return out
	}
	bhsd := func(in []*Node) *Node {
		t := func(x *Node) *Node { return TransposeAllDims(x, 0, 2, 1, 3) }
		return t(attendBlocks(t(in[0]), t(in[1]), t(in[2]), DefaultAttentionBlockBytes))
	}
	// denseAs: a dense layer without bias differentiated by GoMLX (the fused op's backward) or,
	// with a zero bias, by eqflib's own backward (denseTrain).
	denseAs := func(own bool) func(in []*Node) *Node {
		return func(in []*Node) *Node {
			if own {
				return denseTrain(in[0], in[1], Zeros(in[0].Graph(), shapes.Make(in[1].DType(), in[1].Shape().Dimensions[1])))
			}
			return nn.Dense(in[0], in[1], nil, compute.DenseLayoutInputOutputs)
		}
	}
	// modulateAt: AdaLN's x·scale + shift with [B, T, D] vectors broadcast into axis `axis` of x.
	modulateAt := func(axis int) func(in []*Node) *Node {
		return func(in []*Node) *Node {
			bc := func(v *Node) *Node { return BroadcastToDims(InsertAxes(v, axis), in[0].Shape().Dimensions...) }
			return Add(Mul(in[0], bc(in[1])), bc(in[2]))
		}
	}
	cases := []struct {
		name   string
		build  func(in []*Node) []*Node
		inputs []*tensors.Tensor
	}{
		{"dense-fused-bias/fwd+bwd", gradients(func(in []*Node) *Node {
			return nn.Dense(in[0], in[1], in[2], compute.DenseLayoutInputOutputs)
		}), []*tensors.Tensor{x, w, bias}},
		{"dense-bias-outside/fwd+bwd", gradients(func(in []*Node) *Node {
			y := nn.Dense(in[0], in[1], nil, compute.DenseLayoutInputOutputs)
			return Add(y, BroadcastToDims(ExpandLeftToRank(in[2], 2), M, N))
		}), []*tensors.Tensor{x, w, bias}},
		{"dense-256to1024/fwd+bwd", gradients(denseAs(false)), []*tensors.Tensor{x, w}},
		{"dense-256to1024-own-backward/fwd+bwd", gradients(denseAs(true)), []*tensors.Tensor{x, w}},
		{"dense-1024to256/fwd+bwd", gradients(denseAs(false)), []*tensors.Tensor{xWide, wNarrow}},
		{"dense-1024to256-own-backward/fwd+bwd", gradients(denseAs(true)), []*tensors.Tensor{xWide, wNarrow}},
		{"attention-BSHD/fwd", forward(bshd), []*tensors.Tensor{q, k, v}},
		{"attention-heads-first/fwd", forward(bhsd), []*tensors.Tensor{q, k, v}},
		{"attention-BSHD/fwd+bwd", gradients(bshd), []*tensors.Tensor{q, k, v}},
		{"attention-heads-first/fwd+bwd", gradients(bhsd), []*tensors.Tensor{q, k, v}},
		{"add-broadcast-middle-axis", forward(func(in []*Node) *Node {
			return Add(in[0], BroadcastToDims(InsertAxes(in[1], 2), in[0].Shape().Dimensions...))
		}), []*tensors.Tensor{h, shift}},
		{"add-same-shape", forward(func(in []*Node) *Node { return Add(in[0], in[0]) }), []*tensors.Tensor{h, shift}},
		{"layernorm/fwd+bwd", gradients(func(in []*Node) *Node { return layerNorm(in[0]) }), []*tensors.Tensor{hTok}},
		{"add-broadcast-last-axis", forward(func(in []*Node) *Node {
			return Add(in[0], BroadcastToDims(InsertAxes(ReduceMean(in[0], -1), -1), in[0].Shape().Dimensions...))
		}), []*tensors.Tensor{hTok}},
		{"add-broadcast-leading-axis", forward(func(in []*Node) *Node {
			return Add(in[0], BroadcastToDims(InsertAxes(in[1], 0), in[0].Shape().Dimensions...))
		}), []*tensors.Tensor{hTok, shift}},
		{"modulate-middle-axis/fwd+bwd", gradients(modulateAt(2)), []*tensors.Tensor{h, shift, shift}},
		{"modulate-leading-axis/fwd+bwd", gradients(modulateAt(0)), []*tensors.Tensor{hTok, shift, shift}},
		// The rank-2 transpose denseTrain's weight gradient takes (x [tokens, in] → [in, tokens]),
		// beside an elementwise pass over the same values (a copy's cost).
		{"transpose-2d", forward(func(in []*Node) *Node { return Transpose(in[0], 0, 1) }), []*tensors.Tensor{x}},
		{"elementwise-same-size", forward(func(in []*Node) *Node { return Neg(in[0]) }), []*tensors.Tensor{x}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			exec, err := NewExec(backend, c.build)
			if err != nil {
				b.Fatal(err)
			}
			run := func() {
				outs, err := exec.Call(toAny(c.inputs)...)
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range outs {
					o.FinalizeAll()
				}
			}
			run() // compile outside the timing
			b.ResetTimer()
			for range b.N {
				run()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}

func toAny(ts []*tensors.Tensor) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}
