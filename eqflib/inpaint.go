package eqflib

import "fmt"

// Inpainting (paper App. C.3): some frames of the window are known and clean (typically both
// ends), the others start as noise and are denoised by any frame sampler while the model sees
// the known frames at level 0. Known frames are never touched: they come back bit-exact.

// InpaintOptions configures Inpaint.
type InpaintOptions struct {
	Sampler    FrameSampler // the rule and its Depth
	Conditions []float64    // [B, T, CondDim] window conditions, or nil
	CondDim    int
	Seed       uint64 // seeds the noise of the unknown frames
	OnStep     func(RollStep, *Window)
	KeepTrace  bool
}

// Inpainting is Inpaint's result.
type Inpainting struct {
	X     *Window // the window with the unknown frames generated
	NFE   int
	Trace []RollStep // when KeepTrace
}

// InpaintEnds marks the first head and last tail frames of a T-frame window as known.
func InpaintEnds(T, head, tail int) ([]bool, error) {
	if head < 0 || tail < 0 || head+tail >= T {
		return nil, paramErr("head, tail", fmt.Sprintf("%d, %d", head, tail), fmt.Sprintf("≥ 0 with head + tail < T = %d", T))
	}
	known := make([]bool, T)
	for t := range known {
		known[t] = t < head || t >= T-tail
	}
	return known, nil
}

// Inpaint generates the frames of x ([B, T, C, H, W]) not marked in known (one flag per window
// position, shared by the batch); x is not modified.
func Inpaint(f Field, x *Window, known []bool, opts InpaintOptions) (res *Inpainting, err error) {
	defer catch(&err)
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	fs := opts.Sampler
	if err := fs.validate(f); err != nil {
		return nil, err
	}
	T := x.Frames()
	if len(known) != T {
		return nil, paramErr("known", fmt.Sprintf("%d flags", len(known)), fmt.Sprintf("one per frame (%d)", T))
	}
	unknown := 0
	for _, k := range known {
		if !k {
			unknown++
		}
	}
	if unknown == 0 {
		return nil, paramErr("known", "every frame known", "at least one unknown frame")
	}
	if err := checkConditions(f, opts.Conditions, opts.CondDim, x.Batch(), T); err != nil {
		return nil, err
	}
	w := x.Clone()
	e, err := newEngine(f, fs, w, append([]bool(nil), known...), NewRNG(opts.Seed))
	if err != nil {
		return nil, err
	}
	for t := 0; t < T; {
		if known[t] {
			e.chunk[t] = -1
			t++
			continue
		}
		n := 0
		for t+n < T && !known[t+n] {
			e.chunk[t+n] = 0 // early stopping: the unknown frames stop together
			n++
		}
		if err := e.resetFrames(t, n); err != nil {
			return nil, err
		}
		t += n
	}
	res = &Inpainting{X: w}
	if err := e.denoise(opts.Conditions, opts.OnStep, func(r RollStep) {
		if opts.KeepTrace {
			res.Trace = append(res.Trace, r)
		}
	}); err != nil {
		return nil, err
	}
	res.NFE = e.nfe
	return res, nil
}

// denoise runs the engine until every moving frame is done: Depth steps, or for early stopping
// until every chunk finished its cleanup.
func (e *engine) denoise(cond []float64, onStep func(RollStep, *Window), keep func(RollStep)) error {
	defer e.release()
	all := func(int, int) bool { return true }
	for e.busy() {
		r, err := e.step(all, cond)
		if err != nil {
			return err
		}
		rec := e.rollStep(r, 0, false)
		if onStep != nil {
			if err := e.hostState(); err != nil {
				return err
			}
			onStep(rec, e.x)
		}
		keep(rec)
	}
	return e.hostState()
}
