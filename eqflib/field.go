package eqflib

import (
	"errors"
	"fmt"
	"math"
)

// Field is what a sampler needs from a model: the oracle, the DiT and any user model implement
// it. Samplers are plain functions over a Field (see sampler.go).
//
// Implementations that run on a compute backend should compile their executors once (when the
// Field is built, or on the first Eval of a shape) and reuse them on every call: levels and
// windows are inputs, never graph constants.
type Field interface {
	// Eval evaluates the field on a noisy window x ([B, T, C, H, W]). level has one entry per
	// frame (B·T): the noise level σ for Flow Matching fields, the diffusion time for Diffusion
	// fields; noise-unconditional fields (EqF, EqM, NU-FM) ignore it and accept nil.
	// With opts.Readout the output also carries σ̂ per frame from the same forward pass
	// (an error if the field has no readout); with opts.Activations it carries z.
	Eval(x *Window, level []float64, opts EvalOptions) (*Output, error)
	// Info describes the field.
	Info() FieldInfo
}

// EvalOptions selects the optional outputs of Field.Eval.
type EvalOptions struct {
	Readout     bool // return σ̂ = h_ω(z) per frame
	Activations bool // return the per-layer activations z
}

// Output is what Field.Eval returns.
type Output struct {
	V        *Window   // v̂ = f(x): the velocity estimate, same shape as x
	SigmaHat []float64 // σ̂ per frame (B·T) when EvalOptions.Readout, else nil
	Z        []*Window // per-layer activations when EvalOptions.Activations, else nil
}

// FieldInfo describes a Field.
type FieldInfo struct {
	Name             string
	NoiseConditional bool // whether Eval's level input changes the output (FM, Diffusion)
	Diffusion        bool // a DDPM v-prediction field whose level is the diffusion time
	HasReadout       bool // whether Eval can return σ̂
}

// NoiseEstimator estimates the noise level of each frame of a window directly from the data:
// the framewise predictor g_φ of paper §3 (or the oracle's exact posterior). Closed-loop FM
// conditions on its estimate.
type NoiseEstimator interface {
	EstimateSigma(x *Window) ([]float64, error)
}

// evalChecked runs f.Eval and checks the shapes of what it returns, so a faulty Field is reported
// instead of corrupting a sampler's state.
func evalChecked(f Field, x *Window, level []float64, opts EvalOptions) (out *Output, err error) {
	defer catch(&err)
	out, err = f.Eval(x, level, opts)
	if err != nil {
		return nil, err
	}
	if out == nil || out.V == nil {
		return nil, paramErr("Field.Eval output", "nil velocity", "a velocity window")
	}
	if err := sameShape("Field.Eval output V", x, out.V); err != nil {
		return nil, err
	}
	if opts.Readout {
		if err := perFrame("Field.Eval output SigmaHat", x, out.SigmaHat); err != nil {
			return nil, err
		}
	}
	if err := checkFinite(out, x.Frames()); err != nil {
		return nil, err
	}
	return out, nil
}

// NonFiniteError reports a NaN or ±Inf in what a field returned: the sampler, rollout,
// inpainting or replanning that met it stops there instead of returning garbage.
type NonFiniteError struct {
	What  string // "velocity" or "σ̂"
	Value float64
	Batch int // batch element
	Frame int // frame: the window position (window samplers) or the rollout frame index (rolling)
	Step  int // the sampler step (window samplers) or network evaluation (rolling), from 1
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("eqflib: the field returned a non-finite %s (%g) at step %d, batch element %d, frame %d: sampling stopped (check the model's weights and inputs)",
		e.What, e.Value, e.Step, e.Batch, e.Frame)
}

// checkFinite returns a *NonFiniteError (Step unset) for the first non-finite output value.
func checkFinite(out *Output, T int) error {
	fs := out.V.FrameSize()
	for i, v := range out.V.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			fr := i / fs
			return &NonFiniteError{What: "velocity", Value: v, Batch: fr / T, Frame: fr % T}
		}
	}
	return nonFiniteFrame("σ̂", out.SigmaHat, T)
}

// nonFiniteFrame returns a *NonFiniteError (Step unset) for the first non-finite per-frame value.
func nonFiniteFrame(what string, perFrame []float64, T int) error {
	for fr, v := range perFrame {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{What: what, Value: v, Batch: fr / T, Frame: fr % T}
		}
	}
	return nil
}

// atStep sets the step (and, through frame, maps the window position to another index) of a
// *NonFiniteError; other errors pass through.
func atStep(err error, step int, frame func(t int) int) error {
	var nf *NonFiniteError
	if errors.As(err, &nf) {
		nf.Step = step
		if frame != nil {
			nf.Frame = frame(nf.Frame)
		}
	}
	return err
}
