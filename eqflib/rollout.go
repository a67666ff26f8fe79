package eqflib

import (
	"errors"
	"fmt"
	"iter"
)

// Rolling autoregressive inference (paper App. I, Alg. outer_rolling_inference and
// inner_denoising_loop). The model sees [c_{−C+1:0}, x_{1:H}] with level 0 on the
// context. The horizon is split into G = H/S groups of S frames; every K = D·S/H inner steps the
// first group is clean, is emitted, joins the context, and S fresh noise frames are appended.
// A masked bake-in of G − 1 cycles builds the steady-state staircase first: cycle b moves only
// the first b·S frames, so afterwards group g has taken (G − g)·K steps.

// RollConfig is the geometry of a rollout.
type RollConfig struct {
	Context int // C: clean frames the model conditions on (≥ 0)
	Horizon int // H: frames being denoised at once (≥ 1)
	Stride  int // S: frames emitted per cycle (divides H)
	Depth   int // D: steps a frame takes from noise to data (D·S/H whole)
}

// Validate checks the configuration and names the parameter at fault.
func (c RollConfig) Validate() error {
	switch {
	case c.Context < 0:
		return paramErr("Context", c.Context, "≥ 0")
	case c.Horizon < 1:
		return paramErr("Horizon", c.Horizon, "≥ 1")
	case c.Stride < 1 || c.Stride > c.Horizon || c.Horizon%c.Stride != 0:
		return paramErr("Stride", c.Stride, fmt.Sprintf("a divisor of Horizon = %d", c.Horizon))
	case c.Depth < 1:
		return paramErr("Depth", c.Depth, "≥ 1")
	case (c.Depth*c.Stride)%c.Horizon != 0:
		return paramErr("Depth", c.Depth, fmt.Sprintf("such that K = Depth·Stride/Horizon = %d·%d/%d is whole (Depth a multiple of %d)",
			c.Depth, c.Stride, c.Horizon, c.Horizon/gcd(c.Stride, c.Horizon)))
	}
	return nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Groups is G = H/S.
func (c RollConfig) Groups() int { return c.Horizon / max(c.Stride, 1) } // (an invalid config: see Validate)

// Inner is K = D·S/H, the steps between two emissions.
func (c RollConfig) Inner() int { return c.Depth * c.Stride / max(c.Horizon, 1) }

// BakeInCycles is G − 1.
func (c RollConfig) BakeInCycles() int { return c.Groups() - 1 }

// Window is C + H, the frames the model sees.
func (c RollConfig) Window() int { return c.Context + c.Horizon }

// RollOptions configures Roll and RollStream.
type RollOptions struct {
	RollConfig
	// Sampler is the per-frame rule (Depth is taken from RollConfig). With EarlyStop there is
	// no fixed cadence: the first chunk of S frames is emitted once its largest σ̂ fell below
	// SigmaThresh (or its D adaptive steps ran out) and it finished its Cleanup steps; several
	// chunks may be in cleanup at once, and there is no bake-in (every frame starts at σ̂ = 1).
	Sampler FrameSampler
	// Frames is the number of frames to emit (a multiple of Stride).
	Frames int
	// Conditions are per-frame conditions along the whole timeline, [B, L, CondDim] with
	// L = Context + Frames + Horizon − Stride (the context's first frame is timeline frame 0);
	// nil for unconditional fields. They slide with the frames.
	Conditions []float64
	CondDim    int
	// Seed seeds the noise of the horizon and of every appended frame.
	Seed uint64
	// OnStep, if set, is called after every network evaluation with the record and the window
	// state [B, C+H, …] (read-only, valid during the call).
	OnStep func(RollStep, *Window)
	// KeepTrace keeps every RollStep in Rollout.Trace (Roll only).
	KeepTrace bool
	// Done, if set, stops the rollout once it is closed (a context's Done(), for a stop
	// signal): before each network evaluation Roll and RollStream check it and return
	// ErrRollStopped.
	Done <-chan struct{}
}

// ErrRollStopped is the error of a rollout stopped by RollOptions.Done.
var ErrRollStopped = errors.New("eqflib: rollout stopped (RollOptions.Done was closed)")

// Chunk is what RollStream yields: S emitted frames.
type Chunk struct {
	Start  int     // index of the chunk's first frame in the rollout
	Frames *Window // [B, S, C, H, W]
	NFE    int     // network evaluations so far
}

// Rollout is the evaluation buffer of a finished rollout and its accounting.
type Rollout struct {
	Frames       *Window // [B, Frames, C, H, W]
	NFE          int     // network evaluations (each advances the whole batch)
	BakeInNFE    int     // of which in the bake-in
	BakeInCycles int
	Trace        []RollStep // when KeepTrace
}

// NFEPerFrame is NFE divided by the emitted frames.
func (r *Rollout) NFEPerFrame() float64 {
	if r.Frames == nil || r.Frames.Frames() == 0 {
		return 0
	}
	return float64(r.NFE) / float64(r.Frames.Frames())
}

func (o *RollOptions) validate(f Field, context *Window) (B int, err error) {
	if err := o.RollConfig.Validate(); err != nil {
		return 0, err
	}
	s := o.Sampler
	s.Depth = o.Depth
	if err := s.validate(f); err != nil {
		return 0, err
	}
	if o.Frames < o.Stride || o.Frames%o.Stride != 0 {
		return 0, paramErr("Frames", o.Frames, fmt.Sprintf("a positive multiple of Stride = %d", o.Stride))
	}
	if err := context.Validate("context"); err != nil {
		return 0, err
	}
	if o.Context > 0 && context.Frames() != o.Context {
		return 0, paramErr("context", fmt.Sprintf("%d frames", context.Frames()), fmt.Sprintf("Context = %d frames", o.Context))
	}
	B = context.Batch()
	L := o.Context + o.Frames + o.Horizon - o.Stride
	return B, checkConditions(f, o.Conditions, o.CondDim, B, L)
}

// RollStream runs a rolling rollout from the clean context frames and yields every emitted
// chunk as soon as it is clean, so a notebook can show a rollout while it grows. Stopping the
// iteration stops the rollout. context is [B, Context, C, H, W]; with Context = 0 any window
// serves as a template (only its batch size and frame shape are read).
func RollStream(f Field, context *Window, opts RollOptions) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		var err error
		defer func() {
			if err != nil {
				yield(Chunk{}, err)
			}
		}()
		defer catch(&err)
		err = roll(f, context, opts, nil, yield)
	}
}

// Roll runs a rolling rollout and returns the evaluation buffer (see RollStream).
func Roll(f Field, context *Window, opts RollOptions) (res *Rollout, err error) {
	defer catch(&err)
	res = &Rollout{}
	var buf *Window
	err = roll(f, context, opts, res, func(c Chunk, _ error) bool {
		if buf == nil {
			sh := c.Frames.Shape
			buf = MustNewWindow(sh[0], opts.Frames, sh[2], sh[3], sh[4])
		}
		copyFrames(buf, c.Start, c.Frames, 0, c.Frames.Frames())
		return true
	})
	if err != nil {
		return nil, err
	}
	res.Frames = buf
	return res, nil
}

// copyFrames copies n frames of src starting at srcT into dst starting at dstT, per batch element.
func copyFrames(dst *Window, dstT int, src *Window, srcT, n int) {
	fs := src.FrameSize()
	for b := 0; b < src.Batch(); b++ {
		d := (b*dst.Frames() + dstT) * fs
		s := (b*src.Frames() + srcT) * fs
		copy(dst.Data[d:d+n*fs], src.Data[s:s+n*fs])
	}
}

func roll(f Field, context *Window, opts RollOptions, res *Rollout, yield func(Chunk, error) bool) error {
	B, err := opts.validate(f, context)
	if err != nil {
		return err
	}
	C, H, S, D := opts.Context, opts.Horizon, opts.Stride, opts.Depth
	T := C + H
	sh := context.Shape
	x, err := NewWindow(B, T, sh[2], sh[3], sh[4])
	if err != nil {
		return err
	}
	copyFrames(x, 0, context, 0, C)
	fixed := make([]bool, T)
	for t := 0; t < C; t++ {
		fixed[t] = true
	}
	fs := opts.Sampler
	fs.Depth = D
	e, err := newEngine(f, fs, x, fixed, NewRNG(opts.Seed))
	if err != nil {
		return err
	}
	defer e.release()
	if err := e.resetFrames(C, H); err != nil {
		return err
	}
	for t := C; t < T; t++ {
		e.frame[t] = t - C
		e.chunk[t] = (t - C) / S
	}
	for t := 0; t < C; t++ {
		e.frame[t], e.chunk[t] = t-C, -1
	}
	L := C + opts.Frames + H - S
	emitted := 0
	step := func(active func(b, t int) bool, bakeIn bool) error {
		select {
		case <-opts.Done: // a nil channel never is
			return ErrRollStopped
		default:
		}
		cond := windowConditions(opts.Conditions, B, L, opts.CondDim, emitted, T)
		r, err := e.step(active, cond)
		if err != nil {
			return err
		}
		rec := e.rollStep(r, emitted, bakeIn)
		if opts.OnStep != nil {
			if err := e.hostState(); err != nil {
				return err
			}
			opts.OnStep(rec, e.x)
		}
		if res != nil {
			res.NFE = e.nfe
			if bakeIn {
				res.BakeInNFE++
			}
			if opts.KeepTrace {
				res.Trace = append(res.Trace, rec)
			}
		}
		return nil
	}
	// emit yields the first S horizon frames and slides the window; false stops the rollout.
	emit := func() (bool, error) {
		if err := e.hostState(); err != nil {
			return false, err
		}
		chunk := MustNewWindow(B, S, sh[2], sh[3], sh[4])
		copyFrames(chunk, 0, e.x, C, S)
		start := emitted
		emitted += S
		if !yield(Chunk{Start: start, Frames: chunk, NFE: e.nfe}, nil) {
			return false, nil
		}
		if emitted < opts.Frames {
			if err := e.shift(S); err != nil { // chunk ids stay with window positions: chunks are aligned to S
				return false, err
			}
			for t := T - S; t < T; t++ {
				e.frame[t] = e.frame[t-1] + 1
			}
		}
		return true, nil
	}
	all := func(b, t int) bool { return true }

	if finishesAdaptively(e.rl) {
		for emitted < opts.Frames {
			front := true
			for b := 0; b < B; b++ {
				for t := C; t < C+S; t++ {
					front = front && e.done(b*T+t)
				}
			}
			if front {
				if more, err := emit(); !more {
					return err
				}
				continue
			}
			if err := step(all, false); err != nil {
				return err
			}
		}
		return nil
	}

	K := opts.Inner()
	if res != nil {
		res.BakeInCycles = opts.BakeInCycles()
	}
	for b := 1; b <= opts.BakeInCycles(); b++ {
		upTo := C + b*S
		for k := 0; k < K; k++ {
			if err := step(func(_, t int) bool { return t < upTo }, true); err != nil {
				return err
			}
		}
	}
	for emitted < opts.Frames {
		for k := 0; k < K; k++ {
			if err := step(all, false); err != nil {
				return err
			}
		}
		for b := 0; b < B; b++ {
			for t := C; t < C+S; t++ {
				if c := e.st[b*T+t].steps; c != D {
					return fmt.Errorf("eqflib: rollout invariant broken: emitted frame took %d steps, want D = %d", c, D)
				}
			}
		}
		if more, err := emit(); !more {
			return err
		}
	}
	return nil
}
