package eqflib

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// DiT is a video DiT with its variables: a Field for every sampler. NoiseConditional selects
// whether it sees the level input (FM, Diffusion) or zeros (EqF, EqM, NU-FM). Per-frame
// conditions (actions, camera) are bound with WithConditions; a DiT with CondDim = 0 is a Field
// by itself. One executor per DiT is compiled once per input shape and reused by every Eval.
type DiT struct {
	Config           DiTConfig
	NoiseConditional bool
	Diffusion        bool // the level input is a diffusion time (DDIM)
	Store            *model.Store
	DType            dtypes.DType

	// HostState keeps a sampler's x and momentum on the host in float64 between network calls,
	// instead of on the backend in the DiT's float type (stepgraph.go): slower, for comparisons.
	HostState bool

	prefix      string // variable scope prefix: "" for the live weights, "/ema" for their EMA
	readoutProj int    // > 0 when h_ω is attached (its projection width)
	exec        *model.Exec
	compiles    atomic.Int64
	steps       stepExecs // the sampler-step executors (stepgraph.go)
	modSteps    stepExecs // the same on precomputed modulations (a noise-unconditional DiT)
	// guidedSteps and guidedModSteps are the step executors of classifier-free guidance (Guide):
	// the conditioned and the action-free evaluation as one batch of 2B.
	guidedSteps, guidedModSteps stepExecs
	modMu                       sync.Mutex
	modExec                     *model.Exec  // Modulations: conditions → every AdaLN modulation
	modRuns                     atomic.Int64 // how many times modExec ran (tests)
}

// DefaultDType is the float type a DiT is trained and sampled in (Float64 is for gradient checks).
// A notebook passes it to NewDiT rather than importing GoMLX's dtypes, which GoNB would fetch
// at its newest version, not the one eqf pins.
const DefaultDType = dtypes.Float32

// NewDiT builds a DiT with freshly initialised variables (seeded) of the given float type
// (DefaultDType, or Float64).
func NewDiT(cfg DiTConfig, noiseConditional bool, seed uint64, dtype dtypes.DType) (d *DiT, err error) {
	defer catch(&err)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if dtype != dtypes.Float32 && dtype != dtypes.Float64 {
		return nil, paramErr("dtype", dtype, "Float32 or Float64")
	}
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	d = &DiT{Config: cfg, NoiseConditional: noiseConditional, Store: model.NewStore(), DType: dtype}
	if err := d.Store.SetRNGStateFromSeed(int64(seed)); err != nil {
		return nil, err
	}
	if err := d.buildExec(backend); err != nil {
		return nil, err
	}
	return d, nil
}

// ditScope is where the backbone's variables live: /dit (live) or /ema/dit (their EMA).
func (d *DiT) ditScope(store *model.Store) *model.Scope {
	if d.prefix == "" {
		return store.RootScope().In("dit")
	}
	return store.Scope(d.prefix).In("dit")
}

func (d *DiT) buildExec(backend compute.Backend) (err error) {
	cfg := d.Config
	d.exec, err = model.NewExec(backend, d.Store, func(scope *model.Scope, x, level, cond *Node) []*Node {
		d.compiles.Add(1)
		keepVariablesAsParameters(scope, x.Graph())
		if cfg.CondDim == 0 {
			cond = nil
		}
		v, z := cfg.Forward(d.ditScope(scope.Store()), x, level, cond)
		out := append([]*Node{v}, z...)
		if d.readoutProj > 0 {
			out = append(out, Sigmoid(readoutLogit(scope.Store().Scope(readoutScope), z, d.readoutProj))) // σ̂ [B, T]
		}
		return out
	})
	d.steps.reset() // built again for the new readout
	d.modSteps.reset()
	d.guidedSteps.reset()
	d.guidedModSteps.reset()
	return err
}

// stepState implements stateField: the sampler's state on the backend, stepped by an executor
// that runs the DiT and the update together (one per warp, compiled once per input shape).
func (d *DiT) stepState(w Warp, readout bool) (stepState, bool, error) {
	return d.openStepState(w, readout, nil)
}

func (c *conditionedDiT) stepState(w Warp, readout bool) (stepState, bool, error) {
	return c.d.openStepState(w, readout, c.cond)
}

// openStepState opens a run's backend state. bound are the conditions WithConditions bound (nil:
// none). A noise-unconditional DiT whose variables exist steps on precomputed modulations: its
// AdaLN modulations depend only on the conditions and the weights, not on x or the level, so the
// run computes them once per window (a separate executor, Modulations) and feeds them to every
// step until the conditions change. That saves each step the frame conditioning and Depth + 1
// small products at batch B·T, which the Go backend runs single-threaded (docs/performance.md "Known GoMLX
// gaps"); the step computes the same values as Forward's. A fresh DiT whose variables do not exist
// yet takes the plain step, so that the first graph creates them in Forward's order.
func (d *DiT) openStepState(w Warp, readout bool, bound []float64) (stepState, bool, error) {
	return d.openGuidedStepState(w, readout, bound, -1)
}

// openGuidedStepState is openStepState; guidance ≥ 0 makes every step classifier-free guidance
// of that weight (Guide): the window enters the DiT twice in one batch of 2B, under its
// conditions and under the null condition (zeros), and the step uses
// v̂ = v̂(x | ∅) + w·(v̂(x | c) − v̂(x | ∅)) with σ̂ from the conditioned half. The weight is an
// input of the executor, not a constant of its graph.
func (d *DiT) openGuidedStepState(w Warp, readout bool, bound []float64, guidance float64) (stepState, bool, error) {
	if d.HostState {
		return nil, false, nil
	}
	guided := guidance >= 0
	modulated := !d.NoiseConditional && d.ditScope(d.Store).In("final_adaln").GetVariable("weights") != nil
	steps := &d.steps
	switch {
	case guided && modulated:
		steps = &d.guidedModSteps
	case guided:
		steps = &d.guidedSteps
	case modulated:
		steps = &d.modSteps
	}
	exec := func(v stepVariant) (stepCall, error) {
		return steps.get(w, v, func() (stepCall, error) {
			e, err := d.stepExec(w, v, modulated, guided)
			if err != nil {
				return nil, err
			}
			return e.Exec, nil
		})
	}
	condDim := d.Config.CondDim
	// The conditions a step's network sees: the window's [B, T, CondDim], and for guidance
	// those followed by as many zeros, [2B, T, CondDim] (batch-major: the null condition is the
	// second half of the batch).
	pairOf := func(cond []float64, b int) ([]float64, int) {
		if cond == nil {
			cond = bound
		}
		if !guided {
			return cond, b
		}
		return append(slices.Clone(cond), make([]float64, len(cond))...), 2 * b
	}
	condOf := func(cond []float64, b, t int) (*tensors.Tensor, error) {
		cond, b = pairOf(cond, b)
		return condTensor(d.DType, cond, b, t, condDim)
	}
	var extra []*tensors.Tensor
	if guided {
		extra = []*tensors.Tensor{toTensorAs(d.DType, []float64{guidance})}
	}
	if !modulated {
		return &graphState{exec: exec, dtype: d.DType, readout: readout, cond: condOf, extra: extra}, true, nil
	}
	// The modulations of the last conditions, kept for the run.
	var last struct {
		cond []float64
		b, t int
		mod  *tensors.Tensor
	}
	modOf := func(cond []float64, b, t int) (*tensors.Tensor, error) {
		cond, b = pairOf(cond, b)
		if last.mod != nil && last.b == b && last.t == t && slices.Equal(last.cond, cond) {
			return last.mod, nil
		}
		ct, err := condTensor(d.DType, cond, b, t, condDim)
		if err != nil {
			return nil, err
		}
		mod, err := d.modulations(ct)
		if err != nil {
			return nil, err
		}
		if last.mod != nil {
			_ = last.mod.FinalizeAll()
		}
		last.cond, last.b, last.t, last.mod = slices.Clone(cond), b, t, mod
		return mod, nil
	}
	return &graphState{exec: exec, dtype: d.DType, readout: readout, cond: modOf, extra: extra}, true, nil
}

// modulations runs Modulations on conditions ct [B, T, max(CondDim, 1)] at level 0 (the DiT is
// noise-unconditional) and returns [NumModulations(), B, T, D] on the backend.
func (d *DiT) modulations(ct *tensors.Tensor) (*tensors.Tensor, error) {
	exec, err := d.modulationExec()
	if err != nil {
		return nil, err
	}
	d.modRuns.Add(1)
	outs, err := exec.Exec(ct)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// modulationExec returns the executor of Modulations, building it once.
func (d *DiT) modulationExec() (*model.Exec, error) {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	if d.modExec != nil {
		return d.modExec, nil
	}
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	cfg := d.Config
	d.modExec, err = model.NewExec(backend, d.Store, func(scope *model.Scope, cond *Node) *Node {
		d.compiles.Add(1)
		keepVariablesAsParameters(scope, cond.Graph())
		dims := cond.Shape().Dimensions
		level := Zeros(cond.Graph(), shapes.Make(cond.DType(), dims[0], dims[1]))
		if cfg.CondDim == 0 {
			cond = nil
		}
		return cfg.Modulations(d.ditScope(scope.Store()), level, cond)
	})
	return d.modExec, err
}

// stepExec builds the sampler-step executor for warp w and an update variant: inputs (x, m,
// level, cond, α, β's form, β's value, active, μ), outputs those of stepGraph. modulated: the
// fourth input is Modulations' output instead of the conditions (openStepState).
func (d *DiT) stepExec(w Warp, variant stepVariant, modulated, guided bool) (*model.Exec, error) {
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	cfg, readoutProj := d.Config, d.readoutProj
	e, err := model.NewExec(backend, d.Store, func(scope *model.Scope, in []*Node) []*Node {
		d.compiles.Add(1)
		keepVariablesAsParameters(scope, in[0].Graph())
		level, cond := in[2], in[3]
		if cfg.CondDim == 0 {
			cond = nil
		}
		if !d.NoiseConditional {
			level = ZerosLike(level)
		}
		fn := func(look, level *Node) (v, sigmaHat *Node) {
			B := look.Shape().Dimensions[0]
			if guided { // the conditioned and the action-free evaluation in one batch of 2B
				look = Concatenate([]*Node{look, look}, 0)
				level = Concatenate([]*Node{level, level}, 0)
			}
			var z []*Node
			if modulated {
				v, z = cfg.ForwardModulated(d.ditScope(scope.Store()), look, in[3])
			} else {
				v, z = cfg.Forward(d.ditScope(scope.Store()), look, level, cond)
			}
			if guided { // v̂ = v̂(x | ∅) + w·(v̂(x | c) − v̂(x | ∅)); σ̂ from the conditioned half
				vc, vu := Slice(v, AxisRange(0, B)), Slice(v, AxisRange(B, 2*B))
				weight := BroadcastToDims(Reshape(in[9]), vc.Shape().Dimensions...)
				v = Add(vu, Mul(weight, Sub(vc, vu)))
				for i := range z {
					z[i] = Slice(z[i], AxisRange(0, B))
				}
			}
			if readoutProj > 0 {
				sigmaHat = Sigmoid(readoutLogit(scope.Store().Scope(readoutScope), z, readoutProj))
			}
			return v, sigmaHat
		}
		return stepGraph(w, variant, fn, in[0], in[1], level, in[4], in[5], in[6], in[7], in[8])
	})
	return e, err
}

// EMA returns the DiT that evaluates the exponential moving average of the weights kept by a
// Trainer (it shares the store; evaluation and sampling use it).
func (d *DiT) EMA() (*DiT, error) {
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	e := &DiT{Config: d.Config, NoiseConditional: d.NoiseConditional, Diffusion: d.Diffusion, Store: d.Store, DType: d.DType,
		prefix: emaPrefix, readoutProj: d.readoutProj}
	if err := e.buildExec(backend); err != nil {
		return nil, err
	}
	return e, nil
}

// Info implements Field.
func (d *DiT) Info() FieldInfo {
	return FieldInfo{Name: fmt.Sprintf("dit(D=%d, depth=%d)", d.Config.Hidden, d.Config.Depth), NoiseConditional: d.NoiseConditional,
		Diffusion: d.Diffusion, HasReadout: d.readoutProj > 0}
}

// String describes the network in one line, as the REPL and notebooks print it: "DiT
// 16×16×3, patch 4 (16 tokens a frame), hidden 48, 2 blocks × 4 heads, 3 conditions a frame,
// 99.5k parameters, float32; no level input (EqF, EqM, NU-FM); with h_ω".
func (d *DiT) String() string {
	if d == nil {
		return "<nil DiT>"
	}
	c := d.Config
	s := fmt.Sprintf("DiT %d×%d×%d", c.Height, c.Width, c.Channels)
	if c.Patch > 0 {
		s += fmt.Sprintf(", patch %d (%d tokens a frame)", c.Patch, (c.Height/c.Patch)*(c.Width/c.Patch))
	}
	s += fmt.Sprintf(", hidden %d, %d blocks × %d heads", c.Hidden, c.Depth, c.Heads)
	if c.CondDim > 0 {
		s += fmt.Sprintf(", %d conditions a frame", c.CondDim)
	}
	switch n := d.NumParams(); {
	case n >= 1e6:
		s += fmt.Sprintf(", %.3gM parameters", float64(n)/1e6)
	case n >= 1e3:
		s += fmt.Sprintf(", %.3gk parameters", float64(n)/1e3)
	case n > 0: // none before the first Eval of a new DiT
		s += fmt.Sprintf(", %d parameters", n)
	}
	s += ", " + strings.ToLower(d.DType.String())
	switch {
	case d.Diffusion:
		s += "; level input: the diffusion time (Diffusion)"
	case d.NoiseConditional:
		s += "; level input: σ (FM)"
	default:
		s += "; no level input (EqF, EqM, NU-FM)"
	}
	if d.HasReadout() {
		s += "; with h_ω"
	}
	return s
}

// Compiles reports how many graphs the executor has built.
func (d *DiT) Compiles() int { return int(d.compiles.Load()) }

// NumParams is the number of trainable float parameters in the store (after the first Eval;
// the store's integer RNG state is not counted).
func (d *DiT) NumParams() int {
	n := 0
	if d.Store == nil {
		return 0 // the zero DiT has no weights
	}
	for v := range d.Store.IterVariables() {
		if v.Trainable && v.DType().IsFloat() && strings.HasPrefix(v.Path(), "/dit/") {
			n += v.Shape().Size()
		}
	}
	return n
}

// Eval implements Field for an unconditioned DiT (CondDim = 0).
func (d *DiT) Eval(x *Window, level []float64, opts EvalOptions) (*Output, error) {
	if d.Config.CondDim > 0 {
		return nil, paramErr("cond", "none bound", fmt.Sprintf("conditions [B, T, %d]: call WithConditions", d.Config.CondDim))
	}
	return d.eval(x, level, nil, opts)
}

// WithConditions binds per-frame conditions [B, T, CondDim] (frame-major, as LoadBatch returns
// them) and returns the conditioned Field.
func (d *DiT) WithConditions(cond []float64) Field { return &conditionedDiT{d: d, cond: cond} }

type conditionedDiT struct {
	d    *DiT
	cond []float64
}

func (c *conditionedDiT) Info() FieldInfo { return c.d.Info() }
func (c *conditionedDiT) Eval(x *Window, level []float64, opts EvalOptions) (*Output, error) {
	return c.d.eval(x, level, c.cond, opts)
}

func (d *DiT) eval(x *Window, level, cond []float64, opts EvalOptions) (out *Output, err error) {
	defer catch(&err)
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	c := d.Config
	if x.Shape[2] != c.Channels || x.Shape[3] != c.Height || x.Shape[4] != c.Width {
		return nil, paramErr("x.Shape", x.Shape, fmt.Sprintf("[B, T, %d, %d, %d] (the DiT's frames)", c.Channels, c.Height, c.Width))
	}
	if opts.Readout && d.readoutProj == 0 {
		return nil, paramErr("EvalOptions.Readout", true, "false: this DiT has no readout attached (AttachReadout)")
	}
	B, T := x.Shape[0], x.Shape[1]
	lv := make([]float64, B*T)
	if d.NoiseConditional {
		if err := perFrame("level", x, level); err != nil {
			return nil, err
		}
		copy(lv, level)
	}
	ct, err := condTensor(d.DType, cond, B, T, c.CondDim)
	if err != nil {
		return nil, err
	}
	outs, err := callToHost(d.exec.Exec, d.DType, toTensorAs(d.DType, x.Data, x.Shape[:]...), toTensorAs(d.DType, lv, B, T), ct)
	if err != nil {
		return nil, err
	}
	out = &Output{V: &Window{Shape: x.Shape, Data: outs[0]}}
	if opts.Readout {
		out.SigmaHat = outs[1+c.Depth]
	}
	if opts.Activations {
		for _, zd := range outs[1 : 1+c.Depth] {
			out.Z = append(out.Z, &Window{Shape: [5]int{B, T, c.Hidden, 1, 1}, Data: zd})
		}
	}
	return out, nil
}

// callToHost runs an executor and returns every output as float64 host values, releasing the
// output tensors.
func callToHost(call func(args ...any) ([]*tensors.Tensor, error), dtype dtypes.DType, args ...any) ([][]float64, error) {
	outs, err := call(args...)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, o := range outs {
			_ = o.FinalizeAll()
		}
	}()
	res := make([][]float64, len(outs))
	for i, o := range outs {
		if res[i], err = fromTensorAs(dtype, o); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// condTensor is the conditions input [B, T, max(condDim, 1)] of a backbone graph: the per-frame
// conditions, or zeros of width 1 for an unconditioned model (graphs always take the input; the
// backbone ignores it when CondDim = 0). It checks the length.
func condTensor(dtype dtypes.DType, cond []float64, b, t, condDim int) (*tensors.Tensor, error) {
	if len(cond) != b*t*condDim {
		return nil, paramErr("cond", fmt.Sprintf("len %d", len(cond)), fmt.Sprintf("len %d = B·T·CondDim", b*t*condDim))
	}
	if condDim == 0 {
		return toTensorAs(dtype, make([]float64, b*t), b, t, 1), nil
	}
	return toTensorAs(dtype, cond, b, t, condDim), nil
}

// toTensorAs converts host values to a tensor of the given float type.
func toTensorAs(dtype dtypes.DType, v []float64, dims ...int) *tensors.Tensor {
	if dtype == dtypes.Float64 {
		return tensors.FromFlatDataAndDimensions(append([]float64(nil), v...), dims...)
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(f, dims...)
}

// fromTensorAs copies a float32 or float64 tensor to float64 host values.
// callFloats runs exec and returns its first output as float64s.
func callFloats(exec *model.Exec, dtype dtypes.DType, args ...any) ([]float64, error) {
	outs, err := exec.Call(args...)
	if err != nil {
		return nil, err
	}
	return fromTensorAs(dtype, outs[0])
}

func fromTensorAs(dtype dtypes.DType, t *tensors.Tensor) ([]float64, error) {
	if dtype == dtypes.Float64 {
		return tensors.CopyFlatData[float64](t)
	}
	f, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(f))
	for i, x := range f {
		out[i] = float64(x)
	}
	return out, nil
}

// keepVariablesAsParameters marks a graph as training. GoMLX's Go backend prefers constants for
// variables, so a graph that is not training embeds every variable that already has a value as
// a constant: its updates are lost and later weight changes are ignored by the compiled graph
// (TestKnownGoMLXGaps). No eqflib layer behaves differently in training (no dropout, no batch
// norm), so every graph that reads variables is marked training to keep them parameters.
func keepVariablesAsParameters(scope *model.Scope, g *Graph) { scope.SetTraining(g, true) }
