package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The frame engine is what rolling inference (rollout.go), inpainting (inpaint.go) and online
// replanning (replan.go) share: one window [B, T, C, H, W] in which some frame positions are
// fixed (clean context or known frames, fed at level 0 and never moved) and every other frame
// carries its own sampler state — steps taken, NAG momentum, early-stopping phase — so the
// samplers of sampler.go run framewise inside a sliding window (paper App. I).

// FrameSampler configures the per-frame rule of the engine. Sampler names follow the Samplers
// registry; Options supplies everything else (Steps is replaced by Depth).
type FrameSampler struct {
	// Sampler is one of "euler" (FM, open loop or closed loop on Options.Estimator), "gd", "nag"
	// (EqF, open loop on the warp's schedule or closed loop on the readout), "budget"
	// (budget-adaptive: σ̂ over the frame's remaining steps, GD or NAG by Options.Momentum),
	// "earlystop" (adaptive early stopping per chunk) and "ddim" (the Diffusion baseline).
	Sampler string
	// Depth D is the number of steps a frame takes from noise to data (early stopping: the cap
	// on its adaptive phase).
	Depth int
	// Options: Warp, ClosedLoop, Momentum ("nag", "budget", "earlystop"), StepSize, Estimator,
	// SigmaThresh, Cleanup, Schedule. Steps, MaxSteps and Callback are not read.
	Options
	// Probe, if set, is a noise-level estimator (g_φ) evaluated on every state the field sees
	// and recorded (RollStep.Estimate) without steering anything: the raw material of the
	// noise-level divergence analysis.
	Probe NoiseEstimator
}

// frameSamplers are the rules the engine knows.
var frameSamplers = map[string]bool{"euler": true, "gd": true, "nag": true, "budget": true, "earlystop": true, "ddim": true}

func (s *FrameSampler) validate(f Field) error {
	if f == nil {
		return paramErr("f", "nil", "a Field")
	}
	if !frameSamplers[s.Sampler] {
		return paramErr("Sampler", s.Sampler, oneOf(frameSamplers))
	}
	if s.Depth < 1 {
		return paramErr("Depth", s.Depth, "≥ 1")
	}
	if err := s.Options.checkRead(s.Sampler); err != nil {
		return err // the engine reads Depth, never Options.Steps, MaxSteps or Callback
	}
	if !(s.Momentum >= 0 && s.Momentum < 1) {
		return paramErr("Options.Momentum", s.Momentum, "in [0, 1)")
	}
	if !(s.StepSize >= 0) {
		return paramErr("Options.StepSize", s.StepSize, "≥ 0 (0 means use the warp)")
	}
	info := f.Info()
	switch s.Sampler {
	case "euler":
		if s.ClosedLoop && s.Estimator == nil {
			return paramErr("Options.Estimator", "nil", "a NoiseEstimator (g_φ) for closed-loop Euler")
		}
	case "gd", "nag":
		if s.ClosedLoop {
			if err := needReadout(f, "closed-loop "+s.Sampler); err != nil {
				return err
			}
		}
	case "budget":
		if err := needReadout(f, "budget-adaptive sampling"); err != nil {
			return err
		}
	case "earlystop":
		if err := needReadout(f, "adaptive early stopping"); err != nil {
			return err
		}
		if !(s.SigmaThresh >= 0 && s.SigmaThresh <= 1) {
			return paramErr("Options.SigmaThresh", s.SigmaThresh, "in [0, 1]")
		}
		if s.Cleanup < 1 {
			return paramErr("Options.Cleanup", s.Cleanup, "≥ 1 (C_s cleanup steps)")
		}
	case "ddim":
		if !info.Diffusion {
			return paramErr("f", info.Name, "a Diffusion field (Info().Diffusion) for DDIM")
		}
	}
	return nil
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
	f      Field
	s      FrameSampler
	x, m   *Window // state and NAG momentum, [B, T, C, H, W]
	fixed  []bool  // per window position t
	count  []int   // per frame (B·T): steps taken (early stopping: adaptive steps)
	clean  []int   // per frame: early stopping's cleanup steps taken
	maxHat []float64
	chunk  []int // per window position: early stopping's chunk id (−1 for fixed)
	frame  []int // per window position: the index recorded in RollStep.Frame
	levels []float64
	ks     []int
	sched  *DiffusionSchedule
	nfe    int
	rng    *rand.Rand
}

func newEngine(f Field, s FrameSampler, x *Window, fixed []bool, rng *rand.Rand) (*engine, error) {
	e := &engine{f: f, s: s, x: x, m: NewWindowLike(x), fixed: fixed, rng: rng}
	nf, T := x.NumFrames(), x.Frames()
	e.count, e.clean, e.maxHat = make([]int, nf), make([]int, nf), fill(nf, 1)
	e.chunk, e.frame = make([]int, T), make([]int, T)
	for t := range e.frame {
		e.frame[t] = t
	}
	var err error
	if e.levels, err = Levels(s.warp(), s.Depth); err != nil {
		return nil, err
	}
	if s.Sampler == "ddim" {
		e.sched = s.Schedule
		if e.sched == nil {
			e.sched = DefaultDiffusion()
		}
		if e.ks, err = e.sched.DDIMTimesteps(s.Depth); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *engine) momentum() float64 {
	if e.s.Sampler == "nag" || e.s.Sampler == "budget" || e.s.Sampler == "earlystop" {
		return e.s.Momentum
	}
	return 0
}

// schedLevel is the scheduled σ of a frame that has taken c steps.
func (e *engine) schedLevel(c int) float64 {
	c = min(c, e.s.Depth)
	switch e.s.Sampler {
	case "budget":
		return 1 - float64(c)/float64(e.s.Depth)
	case "ddim":
		if e.ks[c] < 0 {
			return 0
		}
		a, s := e.sched.AlphaSigma(e.sched.Time(e.ks[c]))
		return s / (a + s)
	}
	return e.levels[c]
}

// resetFrames puts window positions [from, from+n) of every batch element back to fresh N(0, I)
// noise (drawn as one Randn(rng, B, n, …) block) with zero momentum and no steps taken.
func (e *engine) resetFrames(from, n int) {
	sh := e.x.Shape
	noise, _ := Randn(e.rng, sh[0], n, sh[2], sh[3], sh[4])
	copyFrames(e.x, from, noise, 0, n)
	T := sh[1]
	for b := 0; b < sh[0]; b++ {
		for t := from; t < from+n; t++ {
			fr := b*T + t
			clear(e.m.Frame(fr))
			e.count[fr], e.clean[fr], e.maxHat[fr] = 0, 0, 1
		}
	}
}

// shift slides the window left by s positions (position t takes position t+s's frame and
// state); the last s positions are reset to noise. Frames entering fixed positions lose their
// momentum.
func (e *engine) shift(s int) {
	T, n := e.x.Frames(), e.x.FrameSize()
	for b := 0; b < e.x.Batch(); b++ {
		for t := 0; t+s < T; t++ {
			dst, src := b*T+t, b*T+t+s
			copy(e.x.Data[dst*n:(dst+1)*n], e.x.Data[src*n:(src+1)*n])
			copy(e.m.Data[dst*n:(dst+1)*n], e.m.Data[src*n:(src+1)*n])
			if e.fixed[t] {
				clear(e.m.Data[dst*n : (dst+1)*n])
			}
			e.count[dst], e.clean[dst], e.maxHat[dst] = e.count[src], e.clean[src], e.maxHat[src]
		}
	}
	for t := 0; t+s < T; t++ {
		e.frame[t] = e.frame[t+s]
	}
	e.resetFrames(T-s, s)
}

// phase is early stopping's state of a frame: 0 adaptive, 1 cleanup, 2 done.
func (e *engine) phase(fr int) int {
	switch {
	case e.count[fr] < e.s.Depth && e.maxHat[fr] > e.s.SigmaThresh && e.clean[fr] == 0:
		return 0
	case e.clean[fr] < e.s.Cleanup:
		return 1
	}
	return 2
}

// done reports whether a frame needs no more steps.
func (e *engine) done(fr int) bool {
	if e.s.Sampler == "earlystop" {
		return e.phase(fr) == 2
	}
	return e.count[fr] >= e.s.Depth
}

// step evaluates the field once on the window (at the NAG look-ahead) and moves the frames for
// which active(b, t) is true. cond, when non-nil, are the window's conditions [B, T, CondDim].
func (e *engine) step(active func(b, t int) bool, cond []float64, emitted int, bakeIn bool) (rec RollStep, err error) {
	B, T, nf := e.x.Batch(), e.x.Frames(), e.x.NumFrames()
	f := e.f
	if cond != nil {
		c, ok := e.f.(Conditioner)
		if !ok {
			return rec, paramErr("f", e.f.Info().Name, "a Field with WithConditions (a Conditioner) when conditions are given")
		}
		f = c.WithConditions(cond)
	}
	kind := e.s.Sampler
	ddim := kind == "ddim"
	level := make([]float64, nf)
	sched := make([]float64, nf)
	for fr := range level {
		if e.fixed[fr%T] {
			continue
		}
		sched[fr] = e.schedLevel(e.count[fr])
		level[fr] = sched[fr]
		if ddim { // the field takes the diffusion time, not σ (clean: time 0)
			level[fr] = 0
			if k := e.ks[min(e.count[fr], e.s.Depth)]; k >= 0 {
				level[fr] = e.sched.Time(k)
			}
		}
	}
	var estimate []float64
	if kind == "euler" && e.s.ClosedLoop {
		est, err := e.s.Estimator.EstimateSigma(e.x)
		if err != nil {
			return rec, err
		}
		if err := perFrame("Estimator.EstimateSigma output", e.x, est); err != nil {
			return rec, err
		}
		for fr := range level {
			if !e.fixed[fr%T] {
				level[fr] = est[fr]
			}
		}
		estimate = est
	} else if e.s.Probe != nil {
		if estimate, err = e.s.Probe.EstimateSigma(e.x); err != nil {
			return rec, err
		}
		if err := perFrame("Probe.EstimateSigma output", e.x, estimate); err != nil {
			return rec, err
		}
	}
	mu := e.momentum()
	look := e.x
	if mu > 0 {
		look = e.x.Clone()
		for fr := 0; fr < nf; fr++ {
			if !e.fixed[fr%T] {
				lf, mf := look.Frame(fr), e.m.Frame(fr)
				for i := range lf {
					lf[i] -= mu * mf[i]
				}
			}
		}
	}
	readout := kind == "budget" || kind == "earlystop" || ((kind == "gd" || kind == "nag") && e.s.ClosedLoop)
	out, err := evalChecked(f, look, level, EvalOptions{Readout: readout})
	if err != nil {
		return rec, atStep(err, e.nfe+1, func(t int) int { return e.frame[t] })
	}
	e.nfe++
	rec = RollStep{Eval: e.nfe, Emitted: emitted, BakeIn: bakeIn}
	stepSize := make([]float64, nf)
	moved := make([]bool, nf)
	w, D := e.s.warp(), float64(e.s.Depth)
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			fr := b*T + t
			if e.fixed[t] || !active(b, t) || e.done(fr) {
				continue
			}
			moved[fr] = true
			c := e.count[fr]
			var st float64
			switch kind {
			case "euler":
				st = e.levels[c] - e.levels[c+1]
			case "gd", "nag":
				s := sched[fr]
				if e.s.ClosedLoop {
					s = out.SigmaHat[fr]
				}
				st = w.Eta(s) / D
			case "budget":
				st = out.SigmaHat[fr] / float64(e.s.Depth-c)
			case "earlystop":
				if e.phase(fr) == 0 {
					st = w.Eta(out.SigmaHat[fr]) / D
				} else {
					st = out.SigmaHat[fr] / float64(e.s.Cleanup-e.clean[fr])
				}
			case "ddim":
				a, s := e.sched.AlphaSigma(e.sched.Time(e.ks[c]))
				an, sn := 1.0, 0.0
				if e.ks[c+1] >= 0 {
					an, sn = e.sched.AlphaSigma(e.sched.Time(e.ks[c+1]))
				}
				zf, vf := e.x.Frame(fr), out.V.Frame(fr)
				for i, z := range zf {
					xh, eh := a*z-s*vf[i], a*vf[i]+s*z
					zf[i] = an*xh + sn*eh
				}
				stepSize[fr] = s - sn
				e.count[fr]++
				continue
			}
			if e.s.StepSize > 0 && (kind == "gd" || kind == "nag") {
				st = e.s.StepSize
			}
			stepSize[fr] = st
			xf, mf, vf := e.x.Frame(fr), e.m.Frame(fr), out.V.Frame(fr)
			for i := range xf {
				mf[i] = mu*mf[i] + st*vf[i]
				xf[i] -= mf[i]
			}
			if kind == "earlystop" && e.phase(fr) == 1 {
				e.clean[fr]++
			} else {
				e.count[fr]++
			}
		}
	}
	if kind == "earlystop" {
		e.updateChunks(out.SigmaHat, moved)
	}
	// Keep the moving frames only, in window order.
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			if e.fixed[t] {
				continue
			}
			fr := b*T + t
			rec.Frame = append(rec.Frame, e.frame[t])
			rec.Active = append(rec.Active, moved[fr])
			rec.Counter = append(rec.Counter, e.count[fr]+e.clean[fr])
			rec.Sched = append(rec.Sched, sched[fr])
			rec.Level = append(rec.Level, level[fr])
			rec.StepSize = append(rec.StepSize, stepSize[fr])
			if readout {
				rec.SigmaHat = append(rec.SigmaHat, out.SigmaHat[fr])
			}
			if estimate != nil {
				rec.Estimate = append(rec.Estimate, estimate[fr])
			}
		}
	}
	return rec, nil
}

// updateChunks sets, for every chunk whose frames took an adaptive step, the chunk's max σ̂ (the
// early-stopping trigger) on each of its frames.
func (e *engine) updateChunks(sigmaHat []float64, moved []bool) {
	B, T := e.x.Batch(), e.x.Frames()
	for b := 0; b < B; b++ {
		mx := map[int]float64{}
		adaptive := map[int]bool{}
		for t := 0; t < T; t++ {
			fr := b*T + t
			if e.fixed[t] || !moved[fr] || e.clean[fr] > 0 {
				continue
			}
			q := e.chunk[t]
			adaptive[q] = true
			mx[q] = math.Max(mx[q], sigmaHat[fr])
		}
		for t := 0; t < T; t++ {
			fr := b*T + t
			if !e.fixed[t] && adaptive[e.chunk[t]] && e.clean[fr] == 0 {
				e.maxHat[fr] = mx[e.chunk[t]]
			}
		}
	}
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
