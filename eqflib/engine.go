package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// engine.go is the one loop every sampler runs in (see rule.go for the design). It holds one
// window [B, T, C, H, W] in which some frame positions may be fixed (clean context or known
// frames, fed at level 0 and never moved) while every other frame carries its own sampler state
// (steps taken, momentum, early-stopping phase). One step evaluates the field once on the whole
// window and moves, by its rule, every frame the caller lets move that is not done. A window
// sampler runs it with nothing fixed until every frame is done (sampleWindow, below); rolling
// inference, inpainting and replanning add fixed positions and a schedule of which frames move
// (rollout.go, inpaint.go, replan.go; paper App. I). The engine holds no sampler arithmetic.

// FrameSampler configures the per-frame rule of rolling inference, inpainting and replanning.
type FrameSampler struct {
	// Sampler is the rule: Euler (FM, open loop or closed loop on Options.Estimator), GD, NAG, LGD
	// (EqF, open loop on the warp's schedule or closed loop on the readout, or on
	// Options.Estimator for an FM field), Budget
	// (budget-adaptive: σ̂ over the frame's remaining steps, GD or NAG by Options.Momentum),
	// EarlyStop (adaptive early stopping per chunk) or DDIM (the Diffusion baseline).
	// ParseSampler reads one from its name ("nag:0.3,closed").
	Sampler Rule
	// Depth D is the number of steps a frame takes from noise to data (early stopping: the cap
	// on its adaptive phase).
	Depth int
	// Options: Warp, ClosedLoop, Momentum (NAG, LGD, Budget, EarlyStop), StepSize, Estimator,
	// SigmaThresh, Cleanup, Schedule, as the rule reads them (OptionsRead). Steps, MaxSteps and
	// Callback are not read.
	Options
	// Probe, if set, is a noise-level estimator (g_φ) evaluated on the window's state x before
	// every step (not on the NAG look-ahead) and recorded (RollStep.Estimate) without steering
	// anything: the raw material of the noise-level divergence analysis.
	Probe NoiseEstimator
}

// String names the sampler and the options set, e.g. "nag(Warp=c, ClosedLoop, Momentum=0.3)".
func (s FrameSampler) String() string {
	set := s.Options.setOptions()
	for i, n := range set {
		switch n {
		case "ClosedLoop", "Estimator", "Schedule", "Callback":
		default:
			set[i] = n + "=" + s.Options.describe(n)
		}
	}
	return fmt.Sprintf("%s(%s)", s.Sampler.Name(), strings.Join(set, ", "))
}

// NeedsReadout reports whether the sampler reads σ̂ from the field's readout h_ω (closed-loop
// GD, NAG and LGD, budget-adaptive, early stopping): a model loaded without h_ω cannot run it.
func (s FrameSampler) NeedsReadout() bool {
	if s.Sampler.IsZero() {
		return false
	}
	o := s.Options
	return s.Sampler.impl.readout(&o)
}

func (s *FrameSampler) validate(f Field) error {
	if f == nil {
		return paramErr("f", "nil", "a Field")
	}
	if s.Sampler.IsZero() {
		return paramErr("Sampler", "unset", "a Rule: "+oneOf(Rules))
	}
	if s.Depth < 1 {
		return paramErr("Depth", s.Depth, "≥ 1")
	}
	if err := s.Options.checkRead(s.Sampler.Name()); err != nil {
		return err // the engine reads Depth, never Options.Steps, MaxSteps or Callback
	}
	if err := s.Options.validateShared(); err != nil {
		return err
	}
	return s.Sampler.impl.check(f, &s.Options)
}

// Conditioner is a Field whose per-frame conditions (actions, camera) can be set: the DiT. The
// engine slides conditions with the frames through it.
type Conditioner interface {
	WithConditions(cond []float64) Field
}

// RollStep records one window evaluation. Per-frame slices cover the moving (non-fixed) frames
// of the window in window order, batch-major: for a rollout, the B·H horizon frames.
type RollStep struct {
	Eval     int       // network evaluations so far, this one included
	Emitted  int       // frames emitted before this evaluation
	BakeIn   bool      // a masked bake-in evaluation
	Frame    []int     // the frame's index in the rollout (inpainting: its window position)
	Active   []bool    // whether the frame was moved by this step
	Counter  []int     // steps the frame has taken, this one included
	Sched    []float64 // the scheduled σ at the frame's counter before the step (FM-equivalent σ for DDIM)
	Level    []float64 // the level fed to the field (σ, g_φ's σ̃, or the diffusion time)
	SigmaHat []float64 // the readout's σ̂ (nil when the rule reads none)
	Estimate []float64 // FrameSampler.Probe's (or closed-loop Euler's) g_φ estimate, else nil
	StepSize []float64 // multiplier applied to v̂ (Euler: Δσ; DDIM: noise std removed); 0 if not moved
}

// engine holds a window and the per-frame sampler state.
type engine struct {
	f     Field
	rl    rule
	r     *runParams
	probe NoiseEstimator
	x, m  *Window      // state and momentum, [B, T, C, H, W]
	fixed []bool       // per window position t
	st    []frameState // per frame (B·T)
	chunk []int        // per window position: the chunk whose frames stop together (early stopping)
	frame []int        // per window position: the index recorded in RollStep.Frame
	nfe   int
	rng   *rand.Rand
	// Backend state (stepgraph.go): backend holds x and m when the field is a graph (opened at
	// most once: backendOpened); hostCurrent and backendCurrent say which copies are up to date.
	backend                                    stepState
	backendOpened, hostCurrent, backendCurrent bool
}

// newEngine builds the engine of a FrameSampler (N = maxSteps = Depth) on x (which it modifies).
func newEngine(f Field, s FrameSampler, x *Window, fixed []bool, rng *rand.Rand) (*engine, error) {
	return newEngineRun(f, s.Sampler.impl, s.Options, s.Depth, s.Depth, s.Probe, x, fixed, rng)
}

func newEngineRun(f Field, rl rule, o Options, n, maxSteps int, probe NoiseEstimator, x *Window, fixed []bool, rng *rand.Rand) (*engine, error) {
	r, err := newRun(rl, o, n, maxSteps)
	if err != nil {
		return nil, err
	}
	e := &engine{f: f, rl: rl, r: r, probe: probe, x: x, m: NewWindowLike(x), fixed: fixed, rng: rng, hostCurrent: true}
	nf, T := x.NumFrames(), x.Frames()
	e.st = make([]frameState, nf)
	for i := range e.st {
		e.st[i] = freshState()
	}
	e.chunk, e.frame = make([]int, T), make([]int, T)
	for t := range e.frame {
		e.frame[t] = t
	}
	return e, nil
}

// resetFrames puts window positions [from, from+n) of every batch element back to fresh N(0, I)
// noise (drawn as one Randn(rng, B, n, …) block) with zero momentum and no steps taken.
func (e *engine) resetFrames(from, n int) error {
	if err := e.hostState(); err != nil {
		return err
	}
	defer e.hostChanged()
	sh := e.x.Shape
	noise, _ := Randn(e.rng, sh[0], n, sh[2], sh[3], sh[4])
	copyFrames(e.x, from, noise, 0, n)
	T := sh[1]
	for b := 0; b < sh[0]; b++ {
		for t := from; t < from+n; t++ {
			fr := b*T + t
			clear(e.m.Frame(fr))
			e.st[fr] = freshState()
		}
	}
	return nil
}

// shift slides the window left by s positions (position t takes position t+s's frame and
// state); the last s positions are reset to noise. Frames entering fixed positions lose their
// momentum.
func (e *engine) shift(s int) error {
	if err := e.hostState(); err != nil {
		return err
	}
	T, n := e.x.Frames(), e.x.FrameSize()
	for b := 0; b < e.x.Batch(); b++ {
		for t := 0; t+s < T; t++ {
			dst, src := b*T+t, b*T+t+s
			copy(e.x.Data[dst*n:(dst+1)*n], e.x.Data[src*n:(src+1)*n])
			copy(e.m.Data[dst*n:(dst+1)*n], e.m.Data[src*n:(src+1)*n])
			if e.fixed[t] {
				clear(e.m.Data[dst*n : (dst+1)*n])
			}
			e.st[dst] = e.st[src]
		}
	}
	for t := 0; t+s < T; t++ {
		e.frame[t] = e.frame[t+s]
	}
	return e.resetFrames(T-s, s)
}

// done reports whether frame fr (= b·T + t) needs no more steps.
func (e *engine) done(fr int) bool { return e.rl.done(e.r, &e.st[fr]) }

// busy reports whether some moving frame is not done.
func (e *engine) busy() bool {
	T := e.x.Frames()
	for fr := range e.st {
		if !e.fixed[fr%T] && !e.done(fr) {
			return true
		}
	}
	return false
}

// stepRecord is one step's per-frame record (B·T entries; zero on fixed frames).
type stepRecord struct {
	fed, used, sched, size []float64 // level fed; level the step was computed from; scheduled σ; step size
	sigmaHat, estimate     []float64 // nil when not read
	moved                  []bool
}

// step evaluates the field once on the window (at the look-ahead x − μ m) and moves the frames
// for which active(b, t) is true and that are not done. cond, when non-nil, are the window's
// conditions [B, T, CondDim].
func (e *engine) step(active func(b, t int) bool, cond []float64) (rec stepRecord, err error) {
	B, T, nf := e.x.Batch(), e.x.Frames(), e.x.NumFrames()
	if cond != nil {
		if _, ok := e.f.(Conditioner); !ok {
			return rec, paramErr("f", e.f.Info().Name, "a Field with WithConditions (a Conditioner) when conditions are given")
		}
	}
	o := &e.r.o
	rec = stepRecord{fed: make([]float64, nf), used: make([]float64, nf), sched: make([]float64, nf), size: make([]float64, nf), moved: make([]bool, nf)}
	plans := make([]plan, nf)
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			if fr := b*T + t; !e.fixed[t] {
				plans[fr] = e.rl.plan(e.r, &e.st[fr])
				rec.fed[fr], rec.sched[fr] = plans[fr].level, plans[fr].sched
				rec.moved[fr] = active(b, t) && !e.done(fr)
			}
		}
	}
	look, carry := e.rl.momentum(o)
	readout := e.rl.readout(o)
	if err := e.openBackendState(readout); err != nil {
		return rec, err
	}
	var hat []float64
	var v *Window // the velocity, on the host path (the backend applies the update itself)
	if e.backend != nil {
		hat, err = e.backendStep(plans, &rec, look, carry, cond)
	} else {
		hat, v, err = e.hostStep(cond, &rec, look, readout)
	}
	if err != nil {
		return rec, atStep(err, e.nfe+1, func(t int) int { return e.frame[t] })
	}
	e.nfe++
	if readout {
		rec.sigmaHat = hat
	}
	for fr := range plans {
		if e.fixed[fr%T] {
			continue
		}
		p := &plans[fr]
		if rec.used[fr] = rec.fed[fr]; p.levelFromSigmaHat {
			rec.used[fr] = hat[fr]
		}
		if rec.moved[fr] {
			beta := p.beta(e.r.warp, at(hat, fr))
			if v != nil {
				e.moveHost(fr, p, beta, v, look, carry)
			}
			if rec.size[fr] = beta; !math.IsNaN(p.size) {
				rec.size[fr] = p.size
			}
			e.rl.advance(e.r, &e.st[fr])
		}
	}
	if cr, ok := e.rl.(chunkRule); ok {
		cr.settle(e.r, e.st, e.chunk, e.fixed, T, hat, rec.moved)
	}
	return rec, nil
}

// at is v[i], or 0 for a nil v.
func at(v []float64, i int) float64 {
	if v == nil {
		return 0
	}
	return v[i]
}

// hostStep is step's host path up to the update: the look-ahead and Field.Eval in float64. It
// returns σ̂ (or the steering estimate) and the velocity.
func (e *engine) hostStep(cond []float64, rec *stepRecord, look float64, readout bool) (hat []float64, v *Window, err error) {
	T := e.x.Frames()
	o := &e.r.o
	f := e.f
	if cond != nil {
		f = e.f.(Conditioner).WithConditions(cond)
	}
	xl := e.x
	if look > 0 { // x_look = x − μ m on the moving frames
		xl = e.x.Clone()
		for fr := range rec.moved {
			if !e.fixed[fr%T] {
				lf, mf := xl.Frame(fr), e.m.Frame(fr)
				for i := range lf {
					lf[i] -= look * mf[i]
				}
			}
		}
	}
	// Closed loop on g_φ (closed-loop FM) feeds its estimate at x_look instead of the schedule,
	// and the rule reads it where it would read σ̂; a Probe only records its own, on the state x.
	if o.ClosedLoop && o.Estimator != nil {
		if rec.estimate, err = estimate(o.Estimator, "Estimator", xl); err != nil {
			return nil, nil, err
		}
		for fr := range rec.fed {
			if !e.fixed[fr%T] {
				rec.fed[fr] = rec.estimate[fr]
			}
		}
		hat = rec.estimate
	} else if e.probe != nil {
		if rec.estimate, err = estimate(e.probe, "Probe", e.x); err != nil {
			return nil, nil, err
		}
	}
	out, err := evalChecked(f, xl, rec.fed, EvalOptions{Readout: readout})
	if err != nil {
		return nil, nil, err
	}
	if readout {
		hat = out.SigmaHat
	}
	return hat, out.V, nil
}

// moveHost applies the update to frame fr on the host: m ← μ' m + β v̂, x ← α x − m (without
// momentum, x ← α x − β v̂).
func (e *engine) moveHost(fr int, p *plan, beta float64, v *Window, look, carry float64) {
	xf, mf, vf := e.x.Frame(fr), e.m.Frame(fr), v.Frame(fr)
	if look == 0 && carry == 0 {
		for i := range xf {
			xf[i] = p.alpha*xf[i] - beta*vf[i]
		}
		return
	}
	for i := range xf {
		mf[i] = carry*mf[i] + beta*vf[i]
		xf[i] = p.alpha*xf[i] - mf[i]
	}
}

// openBackendState moves the state to the backend, once per engine, when the field is a graph
// and nothing reads the window on the host every step (stepgraph.go).
func (e *engine) openBackendState(readout bool) error {
	if e.backendOpened {
		return nil
	}
	e.backendOpened = true
	sf, ok := e.f.(stateField)
	if !ok || e.probe != nil || (e.r.o.ClosedLoop && e.r.o.Estimator != nil) {
		return nil
	}
	s, ok, err := sf.stepState(e.r.warp, readout)
	if err != nil || !ok {
		return err
	}
	e.backend, e.backendCurrent = s, false
	return nil
}

// backendStep is step's backend path: one executor call runs the look-ahead, the network and
// the update. It returns σ̂.
func (e *engine) backendStep(plans []plan, rec *stepRecord, look, carry float64, cond []float64) ([]float64, error) {
	if !e.backendCurrent {
		if err := e.backend.load(e.x, e.m); err != nil {
			return nil, err
		}
		e.backendCurrent = true
	}
	nf := len(plans)
	in := stepInputs{level: rec.fed, alpha: make([]float64, nf), from: make([]float64, nf), value: make([]float64, nf),
		active: make([]float64, nf), look: look, carry: carry}
	T := e.x.Frames()
	for fr, moved := range rec.moved {
		if moved {
			p := &plans[fr]
			in.alpha[fr], in.from[fr], in.value[fr], in.active[fr] = p.alpha, float64(p.betaForm), p.betaArg, 1
			in.variant.affine = in.variant.affine || p.alpha != 1
		} else {
			in.alpha[fr], in.value[fr] = 1, 1
			// A frame that stays put but has stepped since its reset may hold momentum to keep.
			st := &e.st[fr]
			in.variant.masked = in.variant.masked || (!e.fixed[fr%T] && (look > 0 || carry > 0) && st.steps+st.cleanup > 0)
		}
	}
	hat, bad, err := e.backend.step(&in, cond)
	if err != nil {
		return nil, err
	}
	e.hostCurrent = false
	return hat, nonFinite(bad, hat, T)
}

// hostState brings the host copy of x and m up to date with the backend's.
func (e *engine) hostState() error {
	if e.backend == nil || e.hostCurrent {
		return nil
	}
	e.hostCurrent = true
	return e.backend.store(e.x, e.m)
}

// hostChanged records that the host copy was modified: the backend reloads it before its next step.
func (e *engine) hostChanged() { e.backendCurrent = false }

// release frees the backend state.
func (e *engine) release() {
	if e.backend != nil {
		e.backend.free()
		e.backend, e.backendOpened = nil, false
	}
}

// estimate runs a noise-level estimator on x and checks its output.
func estimate(est NoiseEstimator, name string, x *Window) ([]float64, error) {
	v, err := est.EstimateSigma(x)
	if err != nil {
		return nil, err
	}
	if err := perFrame(name+".EstimateSigma output", x, v); err != nil {
		return nil, err
	}
	return v, nil
}

// rollStep keeps a step's record on the moving frames, in window order, as a RollStep.
func (e *engine) rollStep(rec stepRecord, emitted int, bakeIn bool) RollStep {
	B, T := e.x.Batch(), e.x.Frames()
	rs := RollStep{Eval: e.nfe, Emitted: emitted, BakeIn: bakeIn}
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			if e.fixed[t] {
				continue
			}
			fr := b*T + t
			rs.Frame = append(rs.Frame, e.frame[t])
			rs.Active = append(rs.Active, rec.moved[fr])
			rs.Counter = append(rs.Counter, e.st[fr].steps+e.st[fr].cleanup)
			rs.Sched = append(rs.Sched, rec.sched[fr])
			rs.Level = append(rs.Level, rec.fed[fr])
			rs.StepSize = append(rs.StepSize, rec.size[fr])
			if rec.sigmaHat != nil {
				rs.SigmaHat = append(rs.SigmaHat, rec.sigmaHat[fr])
			}
			if rec.estimate != nil {
				rs.Estimate = append(rs.Estimate, rec.estimate[fr])
			}
		}
	}
	return rs
}

// finishesAdaptively reports whether a rule's frames finish at their own pace (early stopping),
// rather than after exactly Depth steps.
func finishesAdaptively(rl rule) bool {
	_, ok := rl.(chunkRule)
	return ok
}

// sampleWindow runs a rule on one window with nothing fixed until every frame is done: the
// window samplers (SampleEuler, SampleGD, …). extra are Options fields read beyond the rule's
// own, Steps and Callback (early stopping: MaxSteps). x0 is not modified.
func sampleWindow(rl Rule, f Field, x0 *Window, opts Options, extra ...string) (res *Result, err error) {
	defer catch(&err)
	r := rl.impl
	if err := opts.validate(r.name(), f, x0, extra...); err != nil {
		return nil, err
	}
	if err := r.check(f, &opts); err != nil {
		return nil, err
	}
	if opts.MaxSteps < 0 {
		return nil, paramErr("Options.MaxSteps", opts.MaxSteps, "≥ 0 (0 means Steps)")
	}
	maxSteps := opts.Steps
	if opts.MaxSteps > 0 {
		maxSteps = opts.MaxSteps
	}
	e, err := newEngineRun(f, r, opts, opts.Steps, maxSteps, nil, x0.Clone(), make([]bool, x0.Frames()), nil)
	if err != nil {
		return nil, err
	}
	defer e.release()
	res = &Result{}
	B, T := x0.Batch(), x0.Frames()
	if finishesAdaptively(r) {
		res.NFEPerSample = make([]int, B)
	}
	all := func(int, int) bool { return true }
	for i := 0; e.busy(); i++ {
		rec, err := e.step(all, nil)
		if err != nil {
			return nil, err
		}
		res.NFE, res.SigmaHat = e.nfe, rec.sigmaHat
		for b := range res.NFEPerSample {
			for t := 0; t < T; t++ {
				if rec.moved[b*T+t] {
					res.NFEPerSample[b]++
					break
				}
			}
		}
		if opts.Callback != nil {
			if err := e.hostState(); err != nil {
				return nil, err
			}
		}
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: rec.used, Sched: rec.sched, SigmaHat: rec.sigmaHat, StepSize: rec.size}, e.x)
	}
	if err := e.hostState(); err != nil {
		return nil, err
	}
	res.X = e.x
	return res, nil
}

// windowConditions slices [B, L, d] timeline conditions to the window starting at offset.
func windowConditions(cond []float64, B, L, d, offset, T int) []float64 {
	if cond == nil {
		return nil
	}
	out := make([]float64, 0, B*T*d)
	for b := 0; b < B; b++ {
		out = append(out, cond[(b*L+offset)*d:(b*L+offset+T)*d]...)
	}
	return out
}

// checkConditions validates timeline conditions of L frames per batch element.
func checkConditions(f Field, cond []float64, condDim, B, L int) error {
	if cond == nil {
		return nil
	}
	if _, ok := f.(Conditioner); !ok {
		return paramErr("f", f.Info().Name, "a Field with WithConditions (a Conditioner) when Conditions are given")
	}
	if condDim < 1 {
		return paramErr("CondDim", condDim, "≥ 1 when Conditions are given")
	}
	if len(cond) != B*L*condDim {
		return paramErr("Conditions", fmt.Sprintf("%d values", len(cond)), fmt.Sprintf("B·L·CondDim = %d·%d·%d = %d values", B, L, condDim, B*L*condDim))
	}
	return nil
}
