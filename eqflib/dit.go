package eqflib

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/layers/attention"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/nn"
)

// The video DiT backbone (CogVideoX/DiT style): per-frame patch embedding, sinusoidal spatial
// and temporal positions, Depth blocks of full spatiotemporal self-attention and an MLP, each
// modulated per frame by AdaLN-Zero from (noise-level embedding + condition embedding), and a
// modulated linear head back to pixels. It returns (v̂, z): z holds every block's activations
// mean-pooled over the spatial tokens of each frame, [B, T, D] per block, for the readout h_ω.
//
// The level input is per frame: FM feeds σ, Diffusion its time t, and EqF, EqM and NU-FM feed
// zeros (the same network with its noise input switched off, exactly as the authors do).
//
// Inside the backbone tokens are token-major, [N, B, T, D] (N tokens per frame): the layout in
// which the Go backend broadcasts the per-frame AdaLN vectors fastest (perToken). Training
// graphs (DiTConfig.backward) on the Go backend compute the backward pass of their dense
// layers (denseTrain) and attention (attendTrain) themselves.

// DiTConfig is the backbone's architecture.
type DiTConfig struct {
	Channels, Height, Width int     // frame shape
	Patch                   int     // patch side; Height and Width must be multiples
	Hidden                  int     // token width D
	Depth                   int     // number of blocks
	Heads                   int     // attention heads; Hidden must be a multiple
	MLPRatio                float64 // MLP hidden width = MLPRatio·D
	CondDim                 int     // per-frame condition values (actions, camera); 0 for none
	LevelFreqs              int     // sinusoidal frequencies of the noise-level embedding
	// OverlapHead makes the head draw each token's 2p×2p neighbourhood, centred on its patch,
	// under a tent window, and adds the overlapping windows (foldOverlap): every pixel is a
	// convex blend of the 2×2 tokens nearest it, so the output is continuous across patch
	// boundaries, where the plain head draws each p×p patch from its token alone and the patches
	// of a flat wall can settle on different shades (a visible patch grid). The head is four
	// times wider (C·4p² outputs a token). Omitted from JSON when false, so configurations
	// without it hash as before.
	OverlapHead bool `json:",omitempty"`
	// OverlapEmbed is the same on the way in: each token embeds its 2p×2p neighbourhood,
	// centred on its patch, under the tent window (unfoldOverlap), so that no pixel change
	// reaches one token and not its neighbour; the patch embedding is four times wider
	// (C·4p² inputs a token). Omitted from JSON when false.
	OverlapEmbed bool `json:",omitempty"`

	// backward is set only on the copy of the configuration that a training step's graph builds
	// its forward pass with (Trainer.lossGraph): dense layers and attention then take the forms
	// whose backward is cheaper (denseTrain, attendTrain). Never serialised, never set
	// on a stored configuration.
	backward bool
}

// DiTPresets are the DiT presets by name. "tiny" is for CI (16×16 frames, ~0.1M parameters),
// "small" for the CPU demo (32×32, a few M), "medium" the token count a sharper maze model needs
// (32×32 with patch 4: 64 tokens a frame, 6 blocks; the benchmarks' medium row), "paper" the
// 95M-class Minecraft configuration (10 blocks, 12 heads × 64, time embedding 256, 32×32×4
// latents with patch 2) for a GPU.
var DiTPresets = map[string]DiTConfig{
	"tiny":   {Channels: 3, Height: 16, Width: 16, Patch: 4, Hidden: 48, Depth: 2, Heads: 4, MLPRatio: 4, CondDim: 3, LevelFreqs: 64},
	"small":  {Channels: 3, Height: 32, Width: 32, Patch: 8, Hidden: 256, Depth: 4, Heads: 4, MLPRatio: 4, CondDim: 3, LevelFreqs: 128},
	"medium": {Channels: 3, Height: 32, Width: 32, Patch: 4, Hidden: 256, Depth: 6, Heads: 4, MLPRatio: 4, CondDim: 3, LevelFreqs: 128},
	"paper":  {Channels: 4, Height: 32, Width: 32, Patch: 2, Hidden: 768, Depth: 10, Heads: 12, MLPRatio: 4, CondDim: 3, LevelFreqs: 256},
}

// perToken broadcasts a per-frame vector v [B, T, D] over the N tokens of each frame:
// [N, B, T, D]. The token axis leads (the backbone's token-major layout), so this is a
// leading-axis broadcast and its gradient a leading-axis sum, several times faster on the Go
// backend than broadcasting into a middle token axis of [B, T, N, D] (BenchmarkGoBackendGaps
// measures both at the medium DiT's shapes; docs in docs/performance.md "Measurements").
func perToken(v *Node, n int) *Node {
	d := v.Shape().Dimensions
	return BroadcastToDims(InsertAxes(v, 0), n, d[0], d[1], d[2])
}

// modulate is AdaLN's x·(1 + scale) + shift, with per-frame shift and scale [B, T, D] broadcast
// over the frame's tokens of x [N, B, T, D].
func modulate(x, shift, scale *Node) *Node {
	n := x.Shape().Dimensions[0]
	return Add(Mul(x, perToken(AddScalar(scale, 1), n)), perToken(shift, n))
}

// dense is a linear layer on the last axis with weights [in, out] and a bias. zeroInit sets
// both to zero (AdaLN-Zero modulation and the output head); otherwise weights are Xavier-uniform.
// The bias is added outside the fused dense op: compute v0.1.14's fused backward sums the bias
// gradient column by column, a strided walk over the [tokens, out] gradient (slower;
// docs/performance.md "Measurements" has the timing).
func dense(scope *model.Scope, x *Node, out int, zeroInit bool) *Node {
	return denseLayer(scope, x, out, zeroInit, false)
}

// dense is the DiT's dense layer: in a training graph on the Go backend, with its own backward
// (denseTrain).
func (c DiTConfig) dense(scope *model.Scope, x *Node, out int, zeroInit bool) *Node {
	return denseLayer(scope, x, out, zeroInit, c.backward)
}

// denseLayer is dense; train (a graph that is differentiated) takes denseTrain on the Go backend.
func denseLayer(scope *model.Scope, x *Node, out int, zeroInit, train bool) *Node {
	g := x.Graph()
	in := x.Shape().Dimensions[x.Rank()-1]
	ws := scope.WithInitializer(initializer.XavierUniformFn(scope))
	if zeroInit {
		ws = scope.WithInitializer(initializer.Zero)
	}
	w := ws.VariableWithShape("weights", shapes.Make(x.DType(), in, out)).NodeValue(g)
	b := scope.WithInitializer(initializer.Zero).VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(g)
	if train && isGoBackend(g.Backend()) {
		return denseTrain(x, w, b)
	}
	var y *Node
	if halfPrecision(g) { // bfloat16 operands, float32 weights and result (precision.go)
		y = inHalf(x.DType(), func(h ...*Node) *Node { return nn.Dense(h[0], h[1], nil, compute.DenseLayoutInputOutputs) }, x, w)
	} else {
		y = nn.Dense(x, w, nil, compute.DenseLayoutInputOutputs)
	}
	return Add(y, BroadcastToDims(ExpandLeftToRank(b, y.Rank()), y.Shape().Dimensions...))
}

// layerNorm normalises the last axis without an affine transform (AdaLN supplies it).
func layerNorm(x *Node) *Node {
	return nn.LayerNorm(x, []int{x.Rank() - 1}, 1e-6, nil, nil, nil)
}

// sinusoidal embeds values v (any shape) into [..., dim] sines and cosines with frequencies
// 1/maxPeriod^(i/half).
func sinusoidal(v *Node, dim int, maxPeriod float64) *Node {
	half := dim / 2
	freqs := make([]float64, half)
	for i := range freqs {
		freqs[i] = math.Exp(-math.Log(maxPeriod) * float64(i) / float64(half))
	}
	target := append(append([]int{}, v.Shape().Dimensions...), half)
	fDims := make([]int, len(target))
	for i := range fDims {
		fDims[i] = 1
	}
	fDims[len(fDims)-1] = half
	f := Reshape(ConvertDType(Const(v.Graph(), freqs), v.DType()), fDims...)
	args := Mul(BroadcastToDims(InsertAxes(v, -1), target...), BroadcastToDims(f, target...)) // [..., half]
	return Concatenate([]*Node{Cos(args), Sin(args)}, -1)
}

// positions returns the fixed spatiotemporal position embedding [N, T, D] (token-major): half
// of D encodes the frame index, a quarter each the patch row and column, each as sinusoidal's
// cosines then sines. It is computed on the host in float64 and enters the graph as a constant
// of x's dtype, so that a step does not recompute it (on the Go backend a graph computes its
// sines, cosines and concatenations again at every execution).
func (c DiTConfig) positions(g *Graph, frames int, dtypeOf *Node) *Node {
	hp, wp, d := c.Height/c.Patch, c.Width/c.Patch, c.Hidden
	n := hp * wp
	// embed writes sinusoidal's features of value (cosines, then sines) into dst.
	embed := func(dst []float64, value float64, maxPeriod float64) {
		half := len(dst) / 2
		for i := 0; i < half; i++ {
			a := value * math.Exp(-math.Log(maxPeriod)*float64(i)/float64(half))
			dst[i], dst[half+i] = math.Cos(a), math.Sin(a)
		}
	}
	te, se := make([]float64, frames*d/2), make([]float64, n*d/2)
	for t := 0; t < frames; t++ {
		embed(te[t*d/2:][:d/2], float64(t), 10000) // the frame index
	}
	for tok := 0; tok < n; tok++ {
		embed(se[tok*d/2:][:d/4], float64(tok/wp), 100)     // the patch row
		embed(se[tok*d/2+d/4:][:d/4], float64(tok%wp), 100) // the patch column
	}
	v := make([]float64, n*frames*d)
	for tok := 0; tok < n; tok++ {
		for t := 0; t < frames; t++ {
			e := v[(tok*frames+t)*d:][:d]
			copy(e[:d/2], te[t*d/2:][:d/2])
			copy(e[d/2:], se[tok*d/2:][:d/2])
		}
	}
	return Const(g, toTensorAs(dtypeOf.DType(), v, n, frames, d))
}

// Forward runs the backbone: x [B, T, C, H, W], level [B, T], cond [B, T, CondDim] (nil when
// CondDim = 0). It returns v̂ [B, T, C, H, W] and z, one [B, T, D] per block.
func (c DiTConfig) Forward(scope *model.Scope, x, level, cond *Node) (v *Node, z []*Node) {
	return c.forward(scope, x, level, cond, nil)
}

// ForwardModulated is Forward on precomputed modulations mod [NumModulations(), B, T, D]
// (Modulations' output): the blocks and the head skip their AdaLN layers and the frame
// conditioning. The sampler engine computes them once per window of a noise-unconditional DiT,
// whose conditioning does not change between its steps (ditfield.go).
func (c DiTConfig) ForwardModulated(scope *model.Scope, x, mod *Node) (v *Node, z []*Node) {
	return c.forward(scope, x, nil, nil, mod)
}

// forward is Forward, or ForwardModulated when mod is not nil.
func (c DiTConfig) forward(scope *model.Scope, x, level, cond, mod *Node) (v *Node, z []*Node) {
	if err := c.Validate(); err != nil {
		panic(err)
	}
	dims := x.Shape().Dimensions
	B, T := dims[0], dims[1]
	if dims[2] != c.Channels || dims[3] != c.Height || dims[4] != c.Width {
		panic(paramErr("x.Shape", dims, fmt.Sprintf("[B, T, %d, %d, %d]", c.Channels, c.Height, c.Width)))
	}
	var ce *Node       // [B, T, D]: the frame conditioning, or nil with precomputed modulations
	var mods [][]*Node // each block's six [B, T, D] and the head's two (nil: computed in place)
	if mod == nil {
		if c.CondDim > 0 && cond == nil {
			panic(paramErr("cond", "nil", fmt.Sprintf("[B, T, %d] conditions", c.CondDim)))
		}
		level.AssertDims(B, T)
		mods = make([][]*Node, c.Depth+1)
	} else {
		mod.AssertDims(c.NumModulations(), B, T, c.Hidden)
		mods = c.splitModulations(mod)
	}

	// Tokens are token-major inside the backbone, [N, B, T, D]: per-frame vectors then
	// broadcast over a leading axis (see perToken); attention sees the same T·N tokens.
	var h *Node
	if c.OverlapEmbed {
		h = c.unfoldOverlap(x) // [N, B, T, C·2p·2p]
	} else {
		h = c.patchify(x) // [N, B, T, C·p·p]
	}
	h = c.dense(scope.In("patch_embed"), h, c.Hidden, false) // [N, B, T, D]
	pos := InsertAxes(c.positions(x.Graph(), T, x), 1)       // [N, 1, T, D]
	h = Add(h, BroadcastToDims(pos, h.Shape().Dimensions...))
	if mod == nil {
		ce = c.frameConditioning(scope, level, cond)
	}
	for l := 0; l < c.Depth; l++ {
		h = c.block(scope.In("block_%d", l), h, ce, mods[l])
		z = append(z, ReduceMean(h, 0)) // [B, T, D]: this block's activations pooled per frame
	}
	h = c.finalLayer(scope, h, ce, mods[c.Depth]) // [N, B, T, C·p·p], or C·2p·2p with OverlapHead
	if c.OverlapHead {
		v = c.foldOverlap(h) // [B, T, C, H, W]
	} else {
		v = c.unpatchify(h) // [B, T, C, H, W]
	}
	return v, z
}

// NumModulations is the number of AdaLN vectors per frame: six per block (shift, scale and gate
// for attention and for the MLP) and two for the head (shift, scale).
func (c DiTConfig) NumModulations() int { return 6*c.Depth + 2 }

// Modulations computes every AdaLN modulation of the backbone from level [B, T] and cond
// [B, T, CondDim] (nil when CondDim = 0): [NumModulations(), B, T, D], each block's six vectors
// in the order block uses them, then the head's two. With the same variables as Forward, so that
// ForwardModulated(x, Modulations(level, cond)) = Forward(x, level, cond). Vector-major, so that
// a step takes each vector with a Gather on the leading axis, which copies it whole (compute
// v0.1.14's Slice copies element by element).
func (c DiTConfig) Modulations(scope *model.Scope, level, cond *Node) *Node {
	ce := c.frameConditioning(scope, level, cond) // [B, T, D]
	B, T, d := ce.Shape().Dimensions[0], ce.Shape().Dimensions[1], c.Hidden
	vectorMajor := func(m *Node, k int) *Node { // [B, T, k·D] → [k, B, T, D]
		return TransposeAllDims(Reshape(m, B, T, k, d), 2, 0, 1, 3)
	}
	var mods []*Node
	for l := 0; l < c.Depth; l++ {
		mods = append(mods, vectorMajor(c.dense(scope.In("block_%d", l).In("adaln"), ce, 6*d, true), 6))
	}
	mods = append(mods, vectorMajor(c.dense(scope.In("final_adaln"), ce, 2*d, true), 2))
	return Concatenate(mods, 0)
}

// splitModulations cuts Modulations' output into each block's six [B, T, D] and the head's two.
func (c DiTConfig) splitModulations(mod *Node) [][]*Node {
	dims := mod.Shape().Dimensions
	vector := func(k int) *Node {
		return Reshape(Gather(mod, Const(mod.Graph(), [][]int32{{int32(k)}})), dims[1:]...)
	}
	mods := make([][]*Node, c.Depth+1)
	for l := range mods {
		n := 6
		if l == c.Depth {
			n = 2
		}
		for i := range n {
			mods[l] = append(mods[l], vector(6*l+i))
		}
	}
	return mods
}

// patchify cuts frames into non-overlapping p×p patches, token-major: [B, T, C, H, W] →
// [N, B, T, C·p·p] (token n = row·(W/p) + column).
// Reshape + transpose rather than a strided convolution: GoMLX v0.28.16's even-sized
// convolution has a wrong input gradient (docs/performance.md "Known GoMLX gaps").
func (c DiTConfig) patchify(x *Node) *Node {
	B, T := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	p, hp, wp := c.Patch, c.Height/c.Patch, c.Width/c.Patch
	h := Reshape(x, B, T, c.Channels, hp, p, wp, p) // [B, T, C, hp, p, wp, p]
	h = TransposeAllAxes(h, 3, 5, 0, 1, 2, 4, 6)    // [hp, wp, B, T, C, p, p]
	return Reshape(h, hp*wp, B, T, c.Channels*p*p)  // [N, B, T, C·p·p]
}

// unpatchify is patchify's inverse: [N, B, T, C·p·p] → [B, T, C, H, W].
func (c DiTConfig) unpatchify(h *Node) *Node {
	B, T := h.Shape().Dimensions[1], h.Shape().Dimensions[2]
	p, hp, wp := c.Patch, c.Height/c.Patch, c.Width/c.Patch
	h = Reshape(h, hp, wp, B, T, c.Channels, p, p) // [hp, wp, B, T, C, p, p]
	h = TransposeAllAxes(h, 2, 3, 4, 0, 5, 1, 6)   // [B, T, C, hp, p, wp, p]
	return Reshape(h, B, T, c.Channels, c.Height, c.Width)
}

// foldOverlap is the overlapping head's unpatchify: h [N, B, T, C·2p·2p] holds each token's
// 2p×2p window, centred on its patch (rows r·p − p/2 … r·p + 3p/2 for token row r); each window
// is weighted by the tent w(i)·w(j), w(i) = (i + ½)/p below p and (2p − i − ½)/p from p on (so
// that w(i) + w(i + p) = 1: overlapping tents sum to one), the windows are added on a canvas
// p pixels larger than the frame, and the frame is cut from its middle. Within p/2 of the
// frame's border only one token row or column covers a pixel: there the sum is divided by
// the tents' total (between ½ and 1), so each pixel is a weighted mean of the tokens over it.
// The window is cut into its four p×p quadrants (a, b), each unpatchified as a frame and placed
// on the canvas a·p rows and b·p columns down. → [B, T, C, H, W].
func (c DiTConfig) foldOverlap(h *Node) *Node {
	dims := h.Shape().Dimensions
	N, B, T := dims[0], dims[1], dims[2]
	p, C, H, W := c.Patch, c.Channels, c.Height, c.Width
	h = Reshape(h, N, B, T, C, 2, p, 2, p) // [N, B, T, C, a, i, b, j]: row a·p + i, column b·p + j
	h = weightByTent(h, p)
	var canvas *Node // [B, T, C, H + p, W + p]
	zero := ScalarZero(h.Graph(), h.DType())
	for a := range 2 {
		for b := range 2 {
			q := Slice(h, AxisRange(), AxisRange(), AxisRange(), AxisRange(), AxisElem(a), AxisRange(), AxisElem(b), AxisRange())
			f := c.unpatchify(Reshape(q, N, B, T, C*p*p)) // [B, T, C, H, W]
			f = Pad(f, zero, compute.PadAxis{}, compute.PadAxis{}, compute.PadAxis{}, compute.PadAxis{Start: a * p, End: p - a*p}, compute.PadAxis{Start: b * p, End: p - b*p})
			if canvas == nil {
				canvas = f
			} else {
				canvas = Add(canvas, f)
			}
		}
	}
	frame := Slice(canvas, AxisRange(), AxisRange(), AxisRange(), AxisRange(p/2, p/2+H), AxisRange(p/2, p/2+W)) // [B, T, C, H, W]
	// The tents' total over each pixel of the frame: 1 inside, less within p/2 of the border.
	total := make([]float64, H*W)
	cover := func(y, n int) float64 { // the tents over row (or column) y of a frame n pixels long
		s := 0.0
		for r := 0; r < n/p; r++ {
			if i := y + p/2 - r*p; i >= 0 && i < 2*p {
				s += tent(p, i)
			}
		}
		return s
	}
	for y := range H {
		for x := range W {
			total[y*W+x] = 1 / (cover(y, H) * cover(x, W))
		}
	}
	return Mul(frame, BroadcastToDims(Const(h.Graph(), toTensorAs(h.DType(), total, 1, 1, 1, H, W)), frame.Shape().Dimensions...))
}

// unfoldOverlap is the overlapping embedding's patchify: each token's 2p×2p window of x
// [B, T, C, H, W], centred on its patch (rows r·p − p/2 … r·p + 3p/2 for token row r, zeros
// outside the frame), weighted by foldOverlap's tent window → [N, B, T, C·2p·2p], laid out
// [C, a, i, b, j] for window row a·p + i and column b·p + j.
func (c DiTConfig) unfoldOverlap(x *Node) *Node {
	B, T := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	p, C, H, W := c.Patch, c.Channels, c.Height, c.Width
	N := (H / p) * (W / p)
	zero := ScalarZero(x.Graph(), x.DType())
	canvas := Pad(x, zero, compute.PadAxis{}, compute.PadAxis{}, compute.PadAxis{}, compute.PadAxis{Start: p / 2, End: p / 2}, compute.PadAxis{Start: p / 2, End: p / 2}) // [B, T, C, H + p, W + p]
	rows := make([]*Node, 2)
	for a := range 2 {
		cols := make([]*Node, 2)
		for b := range 2 {
			q := Slice(canvas, AxisRange(), AxisRange(), AxisRange(), AxisRange(a*p, a*p+H), AxisRange(b*p, b*p+W)) // [B, T, C, H, W]
			cols[b] = Reshape(c.patchify(q), N, B, T, C, 1, p, 1, p)
		}
		rows[a] = Concatenate(cols, 6)
	}
	h := Concatenate(rows, 4) // [N, B, T, C, 2, p, 2, p]
	h = weightByTent(h, p)
	return Reshape(h, N, B, T, C*4*p*p)
}

// weightByTent multiplies h [N, B, T, C, 2, p, 2, p] (window row a·p + i, column b·p + j) by
// tentWindow, the same for every token, frame and channel.
func weightByTent(h *Node, p int) *Node {
	w := Const(h.Graph(), toTensorAs(h.DType(), tentWindow(p), 1, 1, 1, 1, 2, p, 2, p))
	return Mul(h, BroadcastToDims(w, h.Shape().Dimensions...))
}

// tentWindow is the 2p×2p window tent(i)·tent(j) of foldOverlap and unfoldOverlap, row-major.
func tentWindow(p int) []float64 {
	window := make([]float64, 4*p*p)
	for i := range 2 * p {
		for j := range 2 * p {
			window[i*2*p+j] = tent(p, i) * tent(p, j)
		}
	}
	return window
}

// tent is the weight of row (or column) i of a 2p-wide window: (i + ½)/p below p and
// (2p − i − ½)/p from p on, so that tent(i) + tent(i + p) = 1.
func tent(p, i int) float64 {
	if i < p {
		return (float64(i) + 0.5) / float64(p)
	}
	return (float64(2*p-i) - 0.5) / float64(p)
}

// frameConditioning is the per-frame vector every block is modulated by: the noise-level
// embedding (an MLP on sinusoidal features of 1000·level; EqF feeds level 0) plus the
// condition embedding, through SiLU. level [B, T], cond [B, T, CondDim] → [B, T, D].
func (c DiTConfig) frameConditioning(scope *model.Scope, level, cond *Node) *Node {
	d := c.Hidden
	ls := scope.In("level_embed")
	e := sinusoidal(MulScalar(level, 1000), c.LevelFreqs, 10000) // [B, T, F]
	e = c.dense(ls.In("fc1"), e, d, false)                       // [B, T, D]
	e = c.dense(ls.In("fc2"), activation.Swish(e), d, false)     // [B, T, D]
	if c.CondDim > 0 {
		e = Add(e, c.dense(scope.In("cond_embed"), cond, d, false)) // [B, T, D]
	}
	return activation.Swish(e)
}

// block is one DiT block: full spatiotemporal self-attention over the window's T·N tokens and
// an MLP, each behind a LayerNorm modulated per frame and a gate (AdaLN-Zero: the six vectors
// come from a zero-initialised layer, so every block starts as the identity).
// h [N, B, T, D] (token-major), ce [B, T, D] → [N, B, T, D]; mods, when not nil, are the block's
// six precomputed modulation vectors [B, T, D] (ce is then unused).
func (c DiTConfig) block(scope *model.Scope, h, ce *Node, mods []*Node) *Node {
	dims := h.Shape().Dimensions
	n, B, T, d := dims[0], dims[1], dims[2], dims[3]
	hd := d / c.Heads
	if mods == nil {
		mod := c.dense(scope.In("adaln"), ce, 6*d, true) // [B, T, 6D], zero-initialised
		for i := range 6 {
			mods = append(mods, Slice(mod, AxisRange(), AxisRange(), AxisRange(i*d, (i+1)*d)))
		}
	}
	shift1, scale1, gate1, shift2, scale2, gate2 := mods[0], mods[1], mods[2], mods[3], mods[4], mods[5]
	gate := func(g, x *Node) *Node { return Mul(perToken(g, n), x) }

	// Attention.
	a := modulate(layerNorm(h), shift1, scale1)                        // [N, B, T, D]
	qkv := c.dense(scope.In("qkv"), Reshape(a, n, B*T, d), 3*d, false) // [N, B·T, 3D]
	// One transpose to heads-first: [N, B, T, 3, heads, hd] → [3, B, heads, T, N, hd], so that
	// both attention products run on the matmul kernels without a transpose inside each (the
	// window's token t·N + n: attention is over all T·N tokens, their order is immaterial).
	qkv = TransposeAllDims(Reshape(qkv, n, B, T, 3, c.Heads, hd), 3, 1, 4, 2, 0, 5)
	// q, k, v by Gather on the leading axis: it copies whole chunks, where compute v0.1.14's
	// Slice copies element by element (a visible share of a sampling step; docs/performance.md "Known GoMLX gaps").
	head := func(i int) *Node { // [B, heads, T·N, hd]
		return Reshape(Gather(qkv, Const(qkv.Graph(), [][]int32{{int32(i)}})), B, c.Heads, T*n, hd)
	}
	var att *Node
	if c.backward {
		att = attendTrain(head(0), head(1), head(2))
	} else {
		att = attend(head(0), head(1), head(2))
	} // [B, heads, T·N, hd]
	att = TransposeAllDims(Reshape(att, B, c.Heads, T, n, hd), 3, 0, 2, 1, 4) // [N, B, T, heads, hd]
	att = c.dense(scope.In("proj"), Reshape(att, n, B*T, d), d, false)        // [N, B·T, D]
	h = Add(h, gate(gate1, Reshape(att, n, B, T, d)))

	// MLP (exact GELU: GoMLX v0.28.16's tanh-approximate GELU has a wrong gradient).
	m := modulate(layerNorm(h), shift2, scale2) // [N, B, T, D]
	m = c.dense(scope.In("fc2"), activation.Gelu(c.dense(scope.In("fc1"), m, int(c.MLPRatio*float64(d)), false)), d, false)
	h = Add(h, gate(gate2, m))
	h.AssertDims(n, B, T, d)
	return h
}

// finalLayer is the head: a LayerNorm modulated per frame and a zero-initialised linear map back
// to patch values, so v̂ = 0 at initialisation. h [N, B, T, D] → [N, B, T, C·p·p]; mods, when
// not nil, are the precomputed shift and scale [B, T, D].
func (c DiTConfig) finalLayer(scope *model.Scope, h, ce *Node, mods []*Node) *Node {
	d := c.Hidden
	if mods == nil {
		fm := c.dense(scope.In("final_adaln"), ce, 2*d, true) // [B, T, 2D], zero-initialised
		mods = []*Node{Slice(fm, AxisRange(), AxisRange(), AxisRange(0, d)), Slice(fm, AxisRange(), AxisRange(), AxisRange(d, 2*d))}
	}
	shift, scale := mods[0], mods[1]
	out := c.Channels * c.Patch * c.Patch
	if c.OverlapHead {
		out *= 4 // each token draws its 2p×2p window (foldOverlap)
	}
	return c.dense(scope.In("head"), modulate(layerNorm(h), shift, scale), out, true)
}

// attend is softmax(q·kᵀ/√hd)·v over all tokens, q, k, v [B, heads, S, hd] → [B, heads, S, hd]
// (heads first: on the Go backend the decomposed products then need no transposes inside,
// faster than [B, S, heads, hd]: docs/performance.md "Measurements"). On XLA it is GoMLX's
// attention.Core (fused where the backend can: cuDNN's kernel takes bfloat16, precision.go). On the pure-Go backend its fused attention
// (compute v0.1.14) is a generic scalar loop, so attend uses the decomposed form
// (attendDecomposed), whose two products run on the SIMD matmul kernels, and splits the
// queries into blocks so that no block's scores [B, heads, rows, S] exceed
// DefaultAttentionBlockBytes (the paper preset's 12,800-token window would need 7.8 GB of
// scores per layer at once).
func attend(q, k, v *Node) *Node {
	if !isGoBackend(q.Graph().Backend()) {
		core := func(h ...*Node) *Node {
			out, _ := attention.Core(h[0], h[1], h[2], attention.LayoutBHSD, attention.CoreOptions{})
			return out
		}
		if halfPrecision(q.Graph()) { // cuDNN's fused kernel on CUDA (precision.go)
			return inHalf(q.DType(), core, q, k, v)
		}
		return core(q, k, v)
	}
	return attendBlocks(q, k, v, DefaultAttentionBlockBytes)
}
