package eqflib

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/attention"
	"github.com/gomlx/gomlx/ml/model"
)

func TestDiTPresets(t *testing.T) {
	for name, want := range map[string][2]int{"tiny": {50_000, 200_000}, "small": {1_000_000, 10_000_000}, "paper": {80_000_000, 110_000_000}} {
		c, err := DiTPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		n := c.NumParams()
		t.Logf("%s: %d parameters", name, n)
		if n < want[0] || n > want[1] {
			t.Errorf("%s has %d parameters, want %d…%d", name, n, want[0], want[1])
		}
	}
	assertParamErr(t, "preset", second(DiTPreset("huge")), "preset")
	bad := DiTPresets["tiny"]
	bad.Height = 10
	assertParamErr(t, "height", bad.Validate(), "DiTConfig.Height")
	bad = DiTPresets["tiny"]
	bad.Heads = 5
	assertParamErr(t, "heads", bad.Validate(), "DiTConfig.Hidden")
}

// randomiseZeroInit gives the zero-initialised AdaLN and head variables random values, as
// training would, so that every path of the network is exercised.
func randomiseZeroInit(t *testing.T, d *DiT, seed uint64) {
	t.Helper()
	rng := NewRNG(seed)
	for v := range d.Store.IterVariables() {
		if !v.Trainable {
			continue
		}
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		data, err := fromTensorAs(d.DType, val)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			data[i] += 0.2 * rng.NormFloat64()
		}
		if err := v.SetValue(toTensorAs(d.DType, data, val.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiTField(t *testing.T) {
	cfg := DiTPresets["tiny"]
	x, _ := Randn(NewRNG(1), 2, 3, 3, 16, 16)
	cond := make([]float64, 2*3*3)
	for i := 0; i < 6; i++ {
		cond[i*3+i%3] = 1
	}
	level := []float64{0.1, 0.5, 0.9, 0.2, 0.4, 0.6}

	fm, err := NewDiT(cfg, true, 1, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	const tinyArch = "DiT 16×16×3, patch 4 (16 tokens a frame), hidden 48, 2 blocks × 4 heads, 3 conditions a frame"
	if got, want := fm.String(), tinyArch+", float32; level input: σ (FM)"; got != want { // no weights before the first Eval
		t.Errorf("String() of a new FM DiT = %q, want %q", got, want)
	}
	f := fm.WithConditions(cond)
	out, err := f.Eval(x, level, EvalOptions{Activations: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fm.String(), fmt.Sprintf("%s, %.3gk parameters, float32; level input: σ (FM)", tinyArch, float64(cfg.NumParams())/1e3); got != want {
		t.Errorf("String() of an FM DiT = %q, want %q", got, want)
	}
	for _, c := range []struct {
		d    *DiT
		want string
	}{
		{&DiT{Config: cfg, DType: dtypes.Float64}, tinyArch + ", float64; no level input (EqF, EqM, NU-FM)"},
		{&DiT{Config: cfg, DType: dtypes.Float32, NoiseConditional: true, Diffusion: true}, tinyArch + ", float32; level input: the diffusion time (Diffusion)"},
		{&DiT{Config: cfg, DType: dtypes.Float32, readoutProj: 8}, tinyArch + ", float32; no level input (EqF, EqM, NU-FM); with h_ω"},
		{nil, "<nil DiT>"},
	} {
		if got := c.d.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
	// AdaLN-Zero and the zero-initialised head: v̂ = 0 exactly at initialisation.
	for _, v := range out.V.Data {
		if v != 0 {
			t.Fatalf("v̂ = %g at initialisation, want 0", v)
		}
	}
	if len(out.Z) != cfg.Depth || out.Z[0].Shape != [5]int{2, 3, cfg.Hidden, 1, 1} {
		t.Fatalf("z: %d blocks, shape %v", len(out.Z), out.Z[0].Shape)
	}
	if got, want := fm.NumParams(), cfg.NumParams(); got != want {
		t.Errorf("store holds %d parameters, NumParams says %d", got, want)
	}

	randomiseZeroInit(t, fm, 2)
	base, _ := f.Eval(x, level, EvalOptions{})
	lv2 := append([]float64(nil), level...)
	lv2[4] = 0.95
	moved, _ := f.Eval(x, lv2, EvalOptions{})
	if maxAbsDiff(base.V.Data, moved.V.Data) == 0 {
		t.Error("FM DiT ignores its level input")
	}
	// Frame 4's level changes other frames too (full spatiotemporal attention), and frames of
	// the other batch element not at all.
	n := 3 * 16 * 16
	if maxAbsDiff(base.V.Data[3*n:4*n], moved.V.Data[3*n:4*n]) == 0 {
		t.Error("a level change in frame 4 did not reach frame 3 through attention")
	}
	if maxAbsDiff(base.V.Data[:3*n], moved.V.Data[:3*n]) != 0 {
		t.Error("a level change in batch element 1 changed batch element 0")
	}
	c2 := append([]float64(nil), cond...)
	c2[0], c2[1] = 0, 1
	if maxAbsDiff(base.V.Data, fm.WithConditions(c2).(*conditionedDiT).mustEval(t, x, level).V.Data) == 0 {
		t.Error("the DiT ignores its conditions")
	}

	// The same network with its noise input switched off (EqF) ignores the level.
	eqf, _ := NewDiT(cfg, false, 1, dtypes.Float32)
	randomiseZeroInit(t, eqf, 2)
	a := eqf.WithConditions(cond).(*conditionedDiT).mustEval(t, x, level)
	b := eqf.WithConditions(cond).(*conditionedDiT).mustEval(t, x, lv2)
	if maxAbsDiff(a.V.Data, b.V.Data) != 0 {
		t.Error("a noise-unconditional DiT changed with the level")
	}
	if fm.Compiles() != 1 || eqf.Compiles() != 1 {
		t.Errorf("compiled %d and %d graphs for one shape, want 1 each", fm.Compiles(), eqf.Compiles())
	}

	// Samplers run on it unchanged.
	res, err := SampleNAG(eqf.WithConditions(cond), x, Options{Steps: 3, Momentum: 0.3, Warp: mustWarp(t, "c")})
	if err != nil || res.NFE != 3 || res.X.HasNaN() {
		t.Errorf("NAG on the DiT: %v, NFE %d", err, res.NFE)
	}
	assertParamErr(t, "no conditions", second(eqf.Eval(x, nil, EvalOptions{})), "cond")
	assertParamErr(t, "frame shape", second(f.Eval(MustNewWindow(1, 1, 3, 8, 8), []float64{0}, EvalOptions{})), "x.Shape")
	assertParamErr(t, "readout", second(f.Eval(x, level, EvalOptions{Readout: true})), "EvalOptions.Readout")
}

func (c *conditionedDiT) mustEval(t *testing.T, x *Window, level []float64) *Output {
	t.Helper()
	out, err := c.Eval(x, level, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// The whole backbone differentiates correctly (float64 finite differences through patchify,
// positions, AdaLN, attention, MLP, head and unpatchify).
func TestDiTGradientCheck(t *testing.T) {
	for _, overlap := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		t.Run(fmt.Sprintf("OverlapHead=%v,OverlapEmbed=%v", overlap[0], overlap[1]), func(t *testing.T) {
			checkDiTGradient(t, DiTConfig{Channels: 2, Height: 8, Width: 8, Patch: 4, Hidden: 8, Depth: 2, Heads: 2, MLPRatio: 2, CondDim: 2, LevelFreqs: 4, OverlapHead: overlap[0], OverlapEmbed: overlap[1]})
		})
	}
}

// checkDiTGradient compares the gradients of a DiT's output (and of one block's activations)
// with respect to x and the level with finite differences, every weight randomised.
func checkDiTGradient(t *testing.T, cfg DiTConfig) {
	d, err := NewDiT(cfg, true, 3, dtypes.Float64)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Randn(NewRNG(5), 1, 2, 2, 8, 8)
	lv := []float64{0.3, 0.7}
	cond := []float64{1, 0, 0, 1}
	if _, err := d.WithConditions(cond).Eval(x, lv, EvalOptions{}); err != nil { // create and initialise variables
		t.Fatal(err)
	}
	randomiseZeroInit(t, d, 4)
	backend, _ := Backend()
	rng := NewRNG(6)
	w := make([]float64, len(x.Data))
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	lossFn := func(scope *model.Scope, x, level, c *graph.Node) *graph.Node {
		v, z := cfg.Forward(scope.In("dit"), x, level, c)
		wt := graph.Const(x.Graph(), tensors.FromFlatDataAndDimensions(w, x.Shape().Dimensions...))
		return graph.Add(graph.ReduceAllSum(graph.Mul(v, wt)), graph.ReduceAllSum(z[1]))
	}
	gradExec, err := model.NewExec(backend, d.Store, func(scope *model.Scope, x, level, c *graph.Node) []*graph.Node {
		l := lossFn(scope, x, level, c)
		return []*graph.Node{l, graph.Gradient(l, x, level)[0], graph.Gradient(l, x, level)[1]}
	})
	if err != nil {
		t.Fatal(err)
	}
	lossExec, _ := model.NewExec(backend, d.Store, func(scope *model.Scope, x, level, c *graph.Node) *graph.Node { return lossFn(scope, x, level, c) })
	args := func(xd, ld []float64) []any {
		return []any{toTensorAs(dtypes.Float64, xd, x.Shape[:]...), toTensorAs(dtypes.Float64, ld, 1, 2), toTensorAs(dtypes.Float64, cond, 1, 2, 2)}
	}
	outs, err := gradExec.Exec(args(x.Data, lv)...)
	if err != nil {
		t.Fatal(err)
	}
	gx, _ := tensors.CopyFlatData[float64](outs[1])
	gl, _ := tensors.CopyFlatData[float64](outs[2])
	loss := func(xd, ld []float64) float64 {
		o, err := lossExec.Exec(args(xd, ld)...)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tensors.CopyFlatData[float64](o[0])
		return v[0]
	}
	const h = 1e-6
	var maxErr float64
	for i := 0; i < len(x.Data); i += 7 {
		xp := append([]float64(nil), x.Data...)
		xm := append([]float64(nil), x.Data...)
		xp[i] += h
		xm[i] -= h
		fd := (loss(xp, lv) - loss(xm, lv)) / (2 * h)
		maxErr = math.Max(maxErr, math.Abs(fd-gx[i])/(1+math.Abs(fd)))
	}
	// The level enters as sin(1000·σ·f): its curvature is large, so the two-point difference
	// is off by O(h²) (0.065, 7e-4, 8e-6 for h = 1e-4, 1e-5, 1e-6): use a fourth-order stencil.
	for i := range lv {
		at := func(dh float64) float64 {
			l := append([]float64(nil), lv...)
			l[i] += dh
			return loss(x.Data, l)
		}
		fd := (8*(at(h)-at(-h)) - (at(2*h) - at(-2*h))) / (12 * h)
		maxErr = math.Max(maxErr, math.Abs(fd-gl[i])/(1+math.Abs(fd)))
	}
	// GoMLX's exact Gelu has a ~5e-7 gradient error in float64 (TestKnownGoMLXGaps); every
	// other op on these paths checks to ~1e-10.
	if maxErr > 2e-6 {
		t.Errorf("DiT gradient differs from finite differences by %.3g", maxErr)
	}
	if got, want := d.NumParams(), cfg.NumParams(); got != want {
		t.Errorf("NumParams: the store holds %d, the config counts %d", got, want)
	}
}

// A training graph's dense layers (denseTrain) and attention (attendTrain) have their own
// backward passes: the loss and the gradients of every weight, x and the level must equal those
// of the plain graph, differentiated by GoMLX (float64, to rounding); both of denseTrain's
// weight-gradient forms (widening and narrowing layers) must be present in the config.
func TestDiTTrainingLayoutGradients(t *testing.T) {
	// S = 8 tokens; 2 heads of 4 take attendTrain's (Qᵀ·dS)ᵀ form (S ≥ 2·hd), 1 head of 8 its
	// dSᵀ·Q form.
	for _, heads := range []int{2, 1} {
		t.Run(fmt.Sprintf("heads=%d", heads), func(t *testing.T) {
			testDiTTrainingLayoutGradients(t, DiTConfig{Channels: 2, Height: 8, Width: 8, Patch: 4, Hidden: 8, Depth: 2, Heads: heads, MLPRatio: 2, CondDim: 2, LevelFreqs: 4})
		})
	}
}

func testDiTTrainingLayoutGradients(t *testing.T, cfg DiTConfig) {
	if int(cfg.MLPRatio*float64(cfg.Hidden)) <= cfg.Hidden {
		t.Fatal("the MLP's output layer must narrow for this test")
	}
	d, err := NewDiT(cfg, true, 3, dtypes.Float64)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Randn(NewRNG(5), 1, 2, 2, 8, 8)
	lv, cond := []float64{0.3, 0.7}, []float64{1, 0, 0, 1}
	if _, err := d.WithConditions(cond).Eval(x, lv, EvalOptions{}); err != nil {
		t.Fatal(err)
	}
	randomiseZeroInit(t, d, 4)
	backend, _ := Backend()
	grads := func(backward bool) [][]float64 {
		c := cfg
		c.backward = backward
		exec, err := model.NewExec(backend, d.Store, func(scope *model.Scope, x, level, cn *graph.Node) []*graph.Node {
			keepVariablesAsParameters(scope, x.Graph())
			v, z := c.Forward(scope.In("dit"), x, level, cn)
			l := graph.Add(graph.ReduceAllSum(graph.Mul(v, v)), graph.ReduceAllSum(z[1]))
			wrt := []*graph.Node{x, level}
			for vr := range d.Store.IterVariables() {
				if vr.Trainable {
					wrt = append(wrt, vr.NodeValue(x.Graph()))
				}
			}
			return append([]*graph.Node{l}, graph.Gradient(l, wrt...)...)
		})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exec.Exec(toTensorAs(dtypes.Float64, x.Data, x.Shape[:]...), toTensorAs(dtypes.Float64, lv, 1, 2), toTensorAs(dtypes.Float64, cond, 1, 2, 2))
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]float64, len(outs))
		for i, o := range outs {
			out[i], _ = tensors.CopyFlatData[float64](o)
		}
		return out
	}
	plain, transposed := grads(false), grads(true)
	if len(plain) < 10 || len(plain) != len(transposed) {
		t.Fatalf("%d and %d outputs", len(plain), len(transposed))
	}
	var maxErr float64
	for i := range plain {
		for j := range plain[i] {
			maxErr = math.Max(maxErr, math.Abs(plain[i][j]-transposed[i][j])/(1+math.Abs(plain[i][j])))
		}
	}
	if maxErr > 1e-12 {
		t.Errorf("the training layout's loss or gradients differ from the plain layout's by %.3g", maxErr)
	}
}

// Attention in blocks of queries (the pure-Go backend's bounded-memory form) equals attention
// over all queries at once, for a block size that does not divide the sequence.
func TestAttentionBlocks(t *testing.T) {
	rng := NewRNG(5)
	q, k, v := randTensor(rng, 1, 0, 2, 7, 3, 4), randTensor(rng, 1, 0, 2, 7, 3, 4), randTensor(rng, 1, 0, 2, 7, 3, 4)
	outs := graphEval(t, func(in []*graph.Node) []*graph.Node {
		whole := attendBlocks(in[0], in[1], in[2], 1<<30)
		blocks := attendBlocks(in[0], in[1], in[2], 2*7*3*8*2) // [B 2, heads 7, S 3]: query blocks of 2 + 1 rows
		ref, _ := attention.Core(in[0], in[1], in[2], attention.LayoutBHSD, attention.CoreOptions{})
		return []*graph.Node{whole, blocks, ref}
	}, q, k, v)
	for i := range outs[0] {
		if math.Abs(outs[0][i]-outs[1][i]) > 1e-12 || math.Abs(outs[0][i]-outs[2][i]) > 1e-12 {
			t.Fatalf("element %d: whole %.15g, blocks %.15g, attention.Core %.15g", i, outs[0][i], outs[1][i], outs[2][i])
		}
	}
}

// positionsReference builds the position embedding in the graph from sinusoidal (the level
// embedding's features): positions' host computation must equal it.
func positionsReference(c DiTConfig, g *graph.Graph, frames int, dtypeOf *graph.Node) *graph.Node {
	hp, wp, d := c.Height/c.Patch, c.Width/c.Patch, c.Hidden
	n := hp * wp
	tIdx := make([]float64, frames)
	for i := range tIdx {
		tIdx[i] = float64(i)
	}
	rows, cols := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		rows[i], cols[i] = float64(i/wp), float64(i%wp)
	}
	cv := func(v []float64) *graph.Node { return graph.ConvertDType(graph.Const(g, v), dtypeOf.DType()) }
	te := sinusoidal(cv(tIdx), d/2, 10000)
	se := graph.Concatenate([]*graph.Node{sinusoidal(cv(rows), d/4, 100), sinusoidal(cv(cols), d/4, 100)}, -1)
	te = graph.BroadcastToDims(graph.InsertAxes(te, 0), n, frames, d/2)
	se = graph.BroadcastToDims(graph.InsertAxes(se, 1), n, frames, d/2)
	return graph.Concatenate([]*graph.Node{te, se}, -1)
}

// TestDiTPositions: the host-computed position embedding equals sinusoidal's graph features of
// the frame index, patch row and column: exactly in float64, to float32 rounding in float32.
func TestDiTPositions(t *testing.T) {
	backend, err := Backend()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"tiny", "small", "medium", "paper"} {
		c := DiTPresets[name]
		for _, dt := range []dtypes.DType{dtypes.Float64, dtypes.Float32} {
			out := graph.MustExecOnce(backend, func(x *graph.Node) *graph.Node {
				x = graph.ConvertDType(x, dt)
				diff := graph.Sub(c.positions(x.Graph(), 5, x), positionsReference(c, x.Graph(), 5, x))
				return graph.ConvertDType(graph.ReduceAllMax(graph.Abs(diff)), dtypes.Float64)
			}, []float64{1})
			got, tol := out.Value().(float64), 0.0
			if dt == dtypes.Float32 {
				tol = 1e-6 // float32 rounding of the graph's arguments (up to 63 rad)
			}
			if got > tol {
				t.Errorf("%s, %s: positions differ from sinusoidal's features by %g (tolerance %g)", name, dt, got, tol)
			}
		}
	}
}

// TestUnfoldOverlap: the overlapping embedding gives each token its 2p×2p window centred on its
// patch, weighted by the tent, with zeros outside the frame (a host loop over every entry).
func TestUnfoldOverlap(t *testing.T) {
	cfg := DiTConfig{Channels: 2, Height: 8, Width: 12, Patch: 4, OverlapEmbed: true}
	p, C, H, W := cfg.Patch, cfg.Channels, cfg.Height, cfg.Width
	N, B, T := cfg.Tokens(), 2, 1
	x := make([]float64, B*T*C*H*W)
	for i := range x {
		x[i] = float64(i%97) - 40
	}
	backend, _ := Backend()
	e, err := graph.NewExec(backend, func(x *graph.Node) *graph.Node { return cfg.unfoldOverlap(x) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Call(toTensorAs(dtypes.Float64, x, B, T, C, H, W))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tensors.CopyFlatData[float64](out[0])
	tent := tentWindow(p)
	if len(got) != N*B*T*C*4*p*p {
		t.Fatalf("unfold gives %d values, want %d", len(got), N*B*T*C*4*p*p)
	}
	for n := range N {
		r, c := n/(W/p), n%(W/p)
		for bt := range B * T {
			for ch := range C {
				for i := range 2 * p {
					for j := range 2 * p {
						y, xx := r*p-p/2+i, c*p-p/2+j
						want := 0.0
						if y >= 0 && y < H && xx >= 0 && xx < W {
							want = x[((bt*C+ch)*H+y)*W+xx] * tent[i*2*p+j]
						}
						k := (((n*B*T+bt)*C+ch)*2*p+i)*2*p + j
						if got[k] != want {
							t.Fatalf("token %d, frame %d, channel %d, window (%d, %d): %g, want %g", n, bt, ch, i, j, got[k], want)
						}
					}
				}
			}
		}
	}
}

// TestFoldOverlap: the overlapping head's tents sum to one everywhere, the border included (every
// token drawing the same value v gives v on every pixel), and tokens of different shades blend
// across patch boundaries: the largest jump between neighbouring pixels is a fraction of the
// shades' difference, where the plain unpatchify jumps by all of it.
func TestFoldOverlap(t *testing.T) {
	cfg := DiTConfig{Channels: 2, Height: 16, Width: 24, Patch: 4, OverlapHead: true}
	p, C, H, W := cfg.Patch, cfg.Channels, cfg.Height, cfg.Width
	N, B, T := cfg.Tokens(), 1, 2
	backend, _ := Backend()
	fold := func(perToken func(n int) float64, overlap bool) []float64 {
		k := C * p * p
		if overlap {
			k *= 4
		}
		data := make([]float64, N*B*T*k)
		for n := range N {
			for i := range B * T * k {
				data[n*B*T*k+i] = perToken(n)
			}
		}
		e, err := graph.NewExec(backend, func(h *graph.Node) *graph.Node {
			if overlap {
				return cfg.foldOverlap(h)
			}
			return cfg.unpatchify(h)
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Call(toTensorAs(dtypes.Float64, data, N, B, T, k))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tensors.CopyFlatData[float64](out[0])
		if len(v) != B*T*C*H*W {
			t.Fatalf("fold gives %d values, want %d", len(v), B*T*C*H*W)
		}
		return v
	}
	for i, v := range fold(func(int) float64 { return 0.7 }, true) {
		if math.Abs(v-0.7) > 1e-12 {
			t.Fatalf("constant tokens 0.7: pixel %d = %.15g", i, v)
		}
	}
	rng := NewRNG(3)
	shade := make([]float64, N)
	for n := range shade {
		shade[n] = rng.NormFloat64()
	}
	jump := func(v []float64) (worst float64) {
		for f := 0; f < B*T*C; f++ {
			x := v[f*H*W : (f+1)*H*W]
			for y := range H {
				for c := range W {
					if c+1 < W {
						worst = math.Max(worst, math.Abs(x[y*W+c+1]-x[y*W+c]))
					}
					if y+1 < H {
						worst = math.Max(worst, math.Abs(x[(y+1)*W+c]-x[y*W+c]))
					}
				}
			}
		}
		return worst
	}
	var most float64 // the largest shade difference between neighbouring tokens
	wp := W / p
	for n := range N {
		if (n+1)%wp != 0 {
			most = math.Max(most, math.Abs(shade[n+1]-shade[n]))
		}
		if n+wp < N {
			most = math.Max(most, math.Abs(shade[n+wp]-shade[n]))
		}
	}
	plain, blended := jump(fold(func(n int) float64 { return shade[n] }, false)), jump(fold(func(n int) float64 { return shade[n] }, true))
	if math.Abs(plain-most) > 1e-12 || blended > 0.5*most {
		t.Errorf("largest jump between neighbouring pixels: unpatchify %.3f (want the shades' %.3f), overlapping head %.3f (want ≤ half of it)", plain, most, blended)
	}
	if err := (DiTConfig{Channels: 3, Height: 6, Width: 6, Patch: 3, Hidden: 8, Depth: 1, Heads: 1, MLPRatio: 1, LevelFreqs: 2, OverlapHead: true}).Validate(); err == nil || !strings.Contains(err.Error(), "OverlapHead") {
		t.Errorf("odd patch with OverlapHead: err = %v, want one naming OverlapHead", err)
	}
}
