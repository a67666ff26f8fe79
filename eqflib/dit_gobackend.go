package eqflib

// The DiT's workarounds for gaps of GoMLX's pure-Go backend (compute v0.1.14), kept apart from
// the model (dit.go) so that it reads as the architecture. Each one computes exactly what the
// op it replaces computes — the tests hold it to GoMLX's own ops and gradients
// (TestDiTTrainingLayoutGradients, TestAttendBlocks…) — and runs only on the Go backend; XLA
// takes GoMLX's ops. The gaps and their timings are in docs/performance.md "Known GoMLX gaps" and
// "Measurements" (BenchmarkGoBackendGaps).

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/layers/attention"
)

// denseTrain is x·w + b (x [..., in], w [in, out]) with its own backward pass for w.
// compute v0.1.14's fused dense backward computes dW = xᵀ·dY after transposing x [tokens, in]
// with a scalar, single-threaded loop, about 14 ns an element at the medium DiT's shapes (8 % of
// its training step). denseTrain computes the product as a plain DotGeneral, whose gradient for
// x GoMLX builds (dX = dY·wᵀ), on the weights passed through an identity with a custom gradient
// that replaces GoMLX's dW by
//
//	dW = xᵀ·dY when in ≤ out, else (dYᵀ·x)ᵀ,
//
// transposing the narrower of x and dY with the backend's tiled rank-2 transpose. GoMLX's own dW
// is then read by nothing, and the Go backend never runs a node that no output needs. An identity
// on the output records dY first (reverse mode visits it before its inputs). docs/performance.md
// "Measurements" has the timings; gradients equal GoMLX's automatic ones
// (TestDiTTrainingLayoutGradients).
func denseTrain(x, w, b *Node) *Node {
	dims := x.Shape().Dimensions
	in, out := w.Shape().Dimensions[0], w.Shape().Dimensions[1]
	x2 := Reshape(x, -1, in) // [M, in]
	var dY *Node
	gw := IdentityWithCustomGradient(w, func(_, _ *Node) *Node {
		if in <= out { // dW = xᵀ·dY
			return DotGeneral(Transpose(x2, 0, 1), []int{1}, nil, dY, []int{0}, nil)
		}
		return Transpose(DotGeneral(Transpose(dY, 0, 1), []int{1}, nil, x2, []int{0}, nil), 0, 1) // (dYᵀ·x)ᵀ
	})
	y0 := DotGeneral(x2, []int{1}, nil, gw, []int{0}, nil) // [M, out]
	y := Add(y0, BroadcastToDims(InsertAxes(b, 0), y0.Shape().Dimensions...))
	y = IdentityWithCustomGradient(y, func(_, v *Node) *Node { dY = v; return v })
	return Reshape(y, append(dims[:len(dims)-1:len(dims)-1], out)...)
}

// DefaultAttentionBlockBytes bounds the score matrix that attention materialises at once on
// the pure-Go backend: longer windows are attended in blocks of queries.
const DefaultAttentionBlockBytes = 256 << 20

// attendTrain is attend for a graph that is differentiated, with its own backward pass on the
// Go backend. The forward is attention.Core's decomposed form, attend's up to float32 rounding
// (bit for bit when 1/√hd is a power of two, as in every preset but "tiny"); GoMLX's automatic
// backward of the two products computes dV = Pᵀ·dO and dK = dSᵀ·Q, whose left operands contract
// a non-last axis, so the backend first transposes the [B, heads, S, S] matrices P and dS
// through its generic (element by element) iterator. attendTrain computes instead
//
//	dP = dO·Vᵀ, dS = P ⊙ (dP − rowsum(dP ⊙ P)) / √hd, dQ = dS·K,
//	dKᵀ = Qᵀ·dS, dVᵀ = dOᵀ·P,
//
// every product in the matmul kernels' native layouts, transposing only [B, heads, S, hd]
// operands (a quarter of the data at S = 256, hd = 64); for short windows (S < 2·hd) it transposes
// P and dS instead, dK = dSᵀ·Q and dV = Pᵀ·dO, which moves less. q, k and v enter the attention
// through identities whose custom gradients replace GoMLX's (which no output then reads, so the
// Go backend never runs them); an identity on the output records dO first.
// Windows that attend needs to split into query blocks, and other backends, use attend.
func attendTrain(q, k, v *Node) *Node {
	d := q.Shape().Dimensions
	B, H, S, hd := d[0], d[1], d[2], d[3]
	if !isGoBackend(q.Graph().Backend()) || B*H*S*S*q.DType().Size() > DefaultAttentionBlockBytes {
		return attend(q, k, v)
	}
	batch := []int{0, 1}
	T := transposeLast2
	var dO, dS *Node // the output's gradient and that of q·kᵀ (the scale included)
	var qs, ks, vs, p *Node
	scoresGrad := func() *Node {
		if dS == nil {
			dP := DotGeneral(dO, []int{3}, batch, vs, []int{3}, batch) // [B, heads, S, S]
			dS = MulScalar(Mul(p, Sub(dP, ReduceAndKeep(Mul(dP, p), ReduceSum, -1))), 1/math.Sqrt(float64(hd)))
		}
		return dS
	}
	qs = IdentityWithCustomGradient(q, func(_, _ *Node) *Node { // dQ = dS·K
		return DotGeneral(scoresGrad(), []int{3}, batch, ks, []int{2}, batch)
	})
	// dK = dSᵀ·Q and dV = Pᵀ·dO: transpose the [S, S] matrices when that moves less data than
	// transposing the [S, hd] operand and the result (S < 2·hd: short windows, e.g. the small
	// DiT's S = hd = 64).
	scoresFirst := S < 2*hd
	ks = IdentityWithCustomGradient(k, func(_, _ *Node) *Node {
		if scoresFirst { // dK = dSᵀ·Q
			return DotGeneral(T(scoresGrad()), []int{3}, batch, qs, []int{2}, batch)
		}
		return T(DotGeneral(T(qs), []int{3}, batch, scoresGrad(), []int{2}, batch)) // (Qᵀ·dS)ᵀ
	})
	vs = IdentityWithCustomGradient(v, func(_, _ *Node) *Node {
		if scoresFirst { // dV = Pᵀ·dO
			return DotGeneral(T(p), []int{3}, batch, dO, []int{2}, batch)
		}
		return T(DotGeneral(T(dO), []int{3}, batch, p, []int{2}, batch)) // (dOᵀ·P)ᵀ
	})
	var out *Node
	out, p = attention.Core(qs, ks, vs, attention.LayoutBHSD, attention.CoreOptions{DisableFusion: true}) // p [B, heads, S, S]
	out.AssertDims(B, H, S, hd)
	return IdentityWithCustomGradient(out, func(_, v *Node) *Node { dO = v; return v })
}

// attendDecomposed is softmax(q·kᵀ/√hd)·v as two products and a softmax, q [B, heads, R, hd],
// k, v [B, heads, S, hd] → [B, heads, R, hd]. It scales q (R·hd values) rather than the scores
// (R·S values, as attention.Core does): the same numbers when 1/√hd is a power of two (hd = 4,
// 16, 64, 256, …), otherwise equal to float32 rounding.
func attendDecomposed(q, k, v *Node) *Node {
	hd := q.Shape().Dimensions[3]
	batch := []int{0, 1}
	scores := DotGeneral(MulScalar(q, 1/math.Sqrt(float64(hd))), []int{3}, batch, k, []int{3}, batch) // [B, heads, R, S]
	return DotGeneral(Softmax(scores, -1), []int{3}, batch, v, []int{2}, batch)                       // [B, heads, R, hd]
}

// transposeLast2 swaps the last two axes of x [B, H, R, C] → [B, H, C, R]. The Go backend's
// fast transposes (compute v0.1.14) cover rank-2 transposes and permutations that keep the last
// axis; this one it would run through its generic iterator, element by element. As a rank-2
// transpose of [B·H·R, C] followed by [C, B·H, R] → [B·H, C, R] (a fast [1, 0, 2]) it moves the
// data twice at about half the time ([8, 4, 256, 64]: 2.2 → 1.1 ms).
func transposeLast2(x *Node) *Node {
	d := x.Shape().Dimensions
	B, H, R, C := d[0], d[1], d[2], d[3]
	y := Transpose(Reshape(x, B*H*R, C), 0, 1)           // [C, B·H·R]
	y = TransposeAllDims(Reshape(y, C, B*H, R), 1, 0, 2) // [B·H, C, R]
	return Reshape(y, B, H, C, R)
}

// attendBlocks is decomposed attention over blocks of queries, each block's scores ≤ maxBytes.
func attendBlocks(q, k, v *Node, maxBytes int) *Node {
	d := q.Shape().Dimensions
	B, H, S := d[0], d[1], d[2]
	perRow := B * H * S * q.DType().Size()
	rows := max(1, min(S, maxBytes/perRow))
	var blocks []*Node
	for s0 := 0; s0 < S; s0 += rows {
		qb := q
		if rows < S {
			qb = Slice(q, AxisRange(), AxisRange(), AxisRange(s0, min(s0+rows, S))) // [B, heads, rows, hd]
		}
		blocks = append(blocks, attendDecomposed(qb, k, v))
	}
	if len(blocks) == 1 {
		return blocks[0]
	}
	return Concatenate(blocks, 2)
}
