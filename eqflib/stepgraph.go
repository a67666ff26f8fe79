package eqflib

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/core/tensors"
)

// Sampler state on the backend. When the field is a graph (the DiT, a GraphField) the engine keeps
// x and the momentum m as backend tensors and runs the whole step of rule.go,
//
//	x_look = x − μ m;   (v̂, σ̂) = f(x_look, level);   β from σ̂;   m ← μ' m + β v̂;   x ← α x − m,
//
// in one executor call with the network: no host copy of the window per step, only the
// per-frame inputs (level, α, β's form and value, which frames move) go in and σ̂ comes out. The
// host copy is refreshed only when something reads it (a callback, an emitted chunk, the end of
// sampling). The update is computed in the graph's float type (float32 for models), so results
// equal the host path's up to that rounding. Fields that are not graphs, and runs that read the
// window on the host every step (a closed-loop Euler estimator or a Probe), keep the host path.

// stateField is a Field that can hold a sampler's state on its backend.
type stateField interface {
	// stepState opens backend state for a run whose closed-loop multipliers use warp w; readout
	// says whether the step reads σ̂. ok is false when the field cannot (it keeps the host path).
	stepState(w Warp, readout bool) (s stepState, ok bool, err error)
}

// stepState is one run's state on the backend.
type stepState interface {
	// load copies the host state into the backend; store copies it back.
	load(x, m *Window) error
	store(x, m *Window) error
	// step runs one step. cond (nil: the field's own) are the window's conditions. It returns σ̂
	// per frame (nil without readout) and the per-frame sum of v̂ (non-finite when v̂ is).
	step(in *stepInputs, cond []float64) (sigmaHat, check []float64, err error)
	// free releases the backend tensors.
	free()
}

// stepInputs are a step's per-frame inputs ([B, T] each, batch-major) and momenta.
type stepInputs struct {
	level, alpha, from, value, active []float64
	look, carry                       float64
	variant                           stepVariant
}

// stepVariant selects the form of a step's update, so that the common step does no more
// full-size arithmetic than it needs (on the Go backend every elementwise op over the window
// costs about as much as a small layer).
type stepVariant struct {
	// masked: some frame that does not move has momentum to keep, so μ' and the update are
	// masked per frame. Otherwise a frame stays put through β = 0 alone (its m is zero).
	masked bool
	// affine: some frame has α ≠ 1 (DDIM).
	affine bool
}

func (v stepVariant) key(w Warp) string { return fmt.Sprintf("%s|%v|%v", w.Name(), v.masked, v.affine) }

// stepCall runs a sampler-step executor (graph.Exec.Call or model.Exec.Exec).
type stepCall func(args ...any) ([]*tensors.Tensor, error)

// stepExecs caches a field's sampler-step executors by warp and update variant (each compiles
// once per input shape); safe for concurrent use.
type stepExecs struct {
	mu sync.Mutex
	m  map[string]stepCall
}

// get returns the executor for (w, v), building it once.
func (c *stepExecs) get(w Warp, v stepVariant, build func() (stepCall, error)) (stepCall, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if call, ok := c.m[v.key(w)]; ok {
		return call, nil
	}
	call, err := build()
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]stepCall{}
	}
	c.m[v.key(w)] = call
	return call, nil
}

// reset drops every executor (they are built again on next use).
func (c *stepExecs) reset() {
	c.mu.Lock()
	c.m = nil
	c.mu.Unlock()
}

// stepGraph builds one sampler step around a field's forward pass fn inside a graph: x and m are
// [B, T, C, H, W]; level, alpha, from (0 fixed, 1 η(σ̂)/value, 2 σ̂/value; betaFrom), value and
// active (1 moves the frame) are [B, T]; mu holds (μ, μ'). It returns x', m', σ̂ (zeros without
// readout) and the per-frame sum of v̂ (non-finite when v̂ is).
func stepGraph(w Warp, variant stepVariant, fn func(look, level *Node) (v, sigmaHat *Node), x, m, level, alpha, from, value, active, mu *Node) []*Node {
	dtype := x.DType()
	dims := x.Shape().Dimensions
	// [B, T] → [B, T, C, H, W], broadcast once (elementwise ops on equal shapes take the backend's
	// fast paths; implicit broadcasting does not).
	perFrame := func(n *Node) *Node { return BroadcastToDims(InsertAxes(n, -1, -1, -1), dims...) }
	muLook, muCarry := Reshape(Slice(mu, AxisElem(0))), Reshape(Slice(mu, AxisElem(1)))
	look := Sub(x, Mul(muLook, m)) // x_look = x − μ m
	v, hat := fn(look, level)
	beta := value // β = value, η(σ̂)/value or σ̂/value, by frame
	if hat != nil {
		beta = Where(Equal(from, Scalar(from.Graph(), dtype, float64(betaEta))), Div(w.EtaGraph(hat), value),
			Where(Equal(from, Scalar(from.Graph(), dtype, float64(betaHat))), Div(hat, value), value))
	} else {
		hat = ZerosLike(level)
	}
	beta = Mul(beta, active)       // a frame that does not move has β = 0
	check := ReduceSum(v, 2, 3, 4) // per-frame sums of v̂: non-finite exactly when an entry is (or they overflow)
	if !variant.masked {
		// m ← μ' m + β v̂;  x ← α x − m. A frame that does not move has m = 0 and β = 0, α = 1,
		// so it comes back unchanged (exactly).
		mNew := Add(Mul(muCarry, m), Mul(perFrame(beta), v))
		xNew := Sub(x, mNew)
		if variant.affine {
			xNew = Sub(Mul(perFrame(alpha), x), mNew)
		}
		return []*Node{xNew, mNew, hat, check}
	}
	// Masked: a frame that does not move gets μ' = 1, β = 0, α = 1 and γ = 0, so that m and x
	// come back unchanged (exactly: 1·m + 0·v̂ = m and 1·x − 0·m = x); the others take
	// m ← μ' m + β v̂, x ← α x − m. Masking by coefficients keeps every full-size op on the
	// backend's fast paths (its Where is not).
	still := Sub(OnesLike(active), active)
	carry := Add(Mul(active, BroadcastToDims(Reshape(muCarry, 1, 1), active.Shape().Dimensions...)), still)
	mNew := Add(Mul(perFrame(carry), m), Mul(perFrame(beta), v))
	xNew := Sub(Mul(perFrame(Add(Mul(alpha, active), still)), x), Mul(perFrame(active), mNew))
	return []*Node{xNew, mNew, hat, check}
}

// graphState is a stepState whose executor takes (x, m, level, cond, alpha, from, value, active,
// mu) and returns stepGraph's outputs.
type graphState struct {
	exec    func(v stepVariant) (stepCall, error)
	calls   map[stepVariant]stepCall // this run's executors, looked up once per variant
	dtype   dtypes.DType
	x, m    *tensors.Tensor
	shape   [5]int
	cond    func(cond []float64, b, t int) (*tensors.Tensor, error)
	readout bool
	extra   []*tensors.Tensor // inputs after mu (guidance: its weight)
}

func (s *graphState) load(x, m *Window) error {
	s.free()
	s.shape = x.Shape
	s.x, s.m = toTensorAs(s.dtype, x.Data, x.Shape[:]...), toTensorAs(s.dtype, m.Data, m.Shape[:]...)
	return nil
}

func (s *graphState) free() {
	for _, t := range []*tensors.Tensor{s.x, s.m} {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
	s.x, s.m = nil, nil
}

func (s *graphState) store(x, m *Window) error {
	if s.x == nil {
		return fmt.Errorf("eqflib: backend sampler state read before it was loaded")
	}
	xs, err := fromTensorAs(s.dtype, s.x)
	if err != nil {
		return err
	}
	ms, err := fromTensorAs(s.dtype, s.m)
	if err != nil {
		return err
	}
	copy(x.Data, xs)
	copy(m.Data, ms)
	return nil
}

func (s *graphState) step(in *stepInputs, cond []float64) (sigmaHat, bad []float64, err error) {
	B, T := s.shape[0], s.shape[1]
	ct, err := s.cond(cond, B, T)
	if err != nil {
		return nil, nil, err
	}
	call, ok := s.calls[in.variant]
	if !ok {
		if call, err = s.exec(in.variant); err != nil {
			return nil, nil, err
		}
		if s.calls == nil {
			s.calls = map[stepVariant]stepCall{}
		}
		s.calls[in.variant] = call
	}
	per := func(v []float64) *tensors.Tensor { return toTensorAs(s.dtype, v, B, T) }
	args := []any{s.x, s.m, per(in.level), ct, per(in.alpha), per(in.from), per(in.value), per(in.active),
		toTensorAs(s.dtype, []float64{in.look, in.carry}, 2)}
	for _, t := range s.extra {
		args = append(args, t)
	}
	outs, err := call(args...)
	if err != nil {
		return nil, nil, err
	}
	s.free()
	s.x, s.m = outs[0], outs[1]
	defer func() { _ = outs[2].FinalizeAll(); _ = outs[3].FinalizeAll() }()
	if s.readout {
		if sigmaHat, err = fromTensorAs(s.dtype, outs[2]); err != nil {
			return nil, nil, err
		}
	}
	bad, err = fromTensorAs(s.dtype, outs[3])
	return sigmaHat, bad, err
}

// nonFinite returns a *NonFiniteError for the first frame whose velocity sum or σ̂ is not finite.
func nonFinite(check, sigmaHat []float64, T int) error {
	if err := nonFiniteFrame("velocity", check, T); err != nil {
		return err
	}
	return nonFiniteFrame("σ̂", sigmaHat, T)
}
