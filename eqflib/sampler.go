package eqflib

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Samplers (paper §4.3–4.5, App. C.1, H) are plain functions with one signature, as in k-diffusion's sampling.py:
//
//	func(f Field, x *Window, opts Options) (*Result, error)
//
// x is the initial state (usually N(0, I) noise at σ = 1); it is not modified. Every sampler acts
// framewise, counts network evaluations (NFE), records a per-step trace and calls
// opts.Callback after each step. Warps and schedules are separate from samplers (warp.go,
// diffusion.go) and come in through Options.

// SamplerFunc is the common signature of every window sampler (SampleNAG, …, and Rule.Sample:
// a FrameSampler's Sampler is the Rule, the same step rule without the window loop).
type SamplerFunc func(f Field, x *Window, opts Options) (*Result, error)

// Options configures a sampler; each sampler documents which fields it reads.
type Options struct {
	// Steps is the budget N (network evaluations for fixed-budget samplers); ≥ 1.
	Steps int
	// Warp is the η warp (nil means identity). Open loop it sets the scheduled levels ρ(i/N)
	// and the step multipliers η(ρ(i/N))/N; closed loop the multipliers are η(σ̂)/N.
	Warp Warp
	// ClosedLoop uses the readout's σ̂ (GD, NAG, LGD), or the Estimator's σ̃ when one is set
	// (Euler, GD, NAG, LGD: closed-loop FM), instead of the scheduled level.
	ClosedLoop bool
	// Momentum is NAG's μ ∈ [0, 1) (NAG, LGD, budget-adaptive, early stopping).
	Momentum float64
	// StepSize, when > 0, replaces the warp's multiplier by this fixed value (EqM's own sampler:
	// NAG on its field with a fixed step size and no readout).
	StepSize float64
	// Estimator is the framewise noise-level predictor g_φ for closed-loop FM: with ClosedLoop,
	// its estimate at the look-ahead is fed to the field and stepped on.
	Estimator NoiseEstimator
	// SigmaThresh is early stopping's σ_thresh ∈ [0, 1]; Cleanup is C_s ≥ 1; MaxSteps caps the
	// adaptive phase (0 means Steps).
	SigmaThresh float64
	Cleanup     int
	MaxSteps    int
	// Schedule is DDIM's diffusion schedule (nil means DefaultDiffusion()).
	Schedule *DiffusionSchedule
	// Callback, if set, is called after every step.
	Callback func(StepInfo)
}

// StepInfo describes one sampler step. Per-frame slices have length B·T.
type StepInfo struct {
	Step     int       // iteration index, from 0
	NFE      int       // network evaluations so far, this step's included
	Level    []float64 // the level the step was computed from: scheduled σ, σ̂, σ̃, or DDIM time
	Sched    []float64 // the scheduled level ρ(i/N) before the step (DDIM: its FM-equivalent σ)
	SigmaHat []float64 // the readout's σ̂ at this step (nil when the sampler uses none)
	StepSize []float64 // the multiplier applied to v̂ (Euler: Δσ) per frame; 0 for a frame not moved
	X        *Window   // the state after the step (only in Callback; not kept in Result.Trace)
}

// Result is what a sampler returns.
type Result struct {
	X        *Window
	NFE      int        // network evaluations (batched Field.Eval calls)
	SigmaHat []float64  // the last readout per frame (nil when the sampler used none)
	Trace    []StepInfo // one entry per step, without X
	// NFEPerSample is set by samplers whose batch elements stop at different times (early
	// stopping): the evaluations each batch element took part in.
	NFEPerSample []int
}

func (o *Options) warp() Warp {
	if o.Warp == nil {
		return IdentityWarp()
	}
	return o.Warp
}

// OptionsRead lists the Options fields a sampler reads, as FrameSampler (rolling inference,
// inpainting, replanning) takes them; window samplers also read Steps and Callback, and
// SampleEarlyStopping MaxSteps. Any other field set is an error. Budget and early stopping are
// closed loop by construction: they accept ClosedLoop.
func OptionsRead(sampler string) []string {
	r, ok := Rules[sampler]
	if !ok {
		return nil
	}
	return r.impl.reads()
}

// setOptions names the fields of o that differ from their zero value, in declaration order.
func (o *Options) setOptions() []string {
	var set []string
	add := func(name string, isSet bool) {
		if isSet {
			set = append(set, name)
		}
	}
	add("Steps", o.Steps != 0)
	add("Warp", o.Warp != nil)
	add("ClosedLoop", o.ClosedLoop)
	add("Momentum", o.Momentum != 0)
	add("StepSize", o.StepSize != 0)
	add("Estimator", o.Estimator != nil)
	add("SigmaThresh", o.SigmaThresh != 0)
	add("Cleanup", o.Cleanup != 0)
	add("MaxSteps", o.MaxSteps != 0)
	add("Schedule", o.Schedule != nil)
	add("Callback", o.Callback != nil)
	return set
}

// checkRead rejects an option that the sampler would silently ignore. extra are fields read in
// this context beyond optionsRead (the window samplers: Steps and Callback).
func (o *Options) checkRead(sampler string, extra ...string) error {
	reads := append(OptionsRead(sampler), extra...)
	for _, n := range o.setOptions() {
		if !slices.Contains(reads, n) {
			return paramErr("Options."+n, fmt.Sprintf("set (%s)", o.describe(n)),
				fmt.Sprintf("unset: sampler %q does not read it (it reads %s)", sampler, strings.Join(reads, ", ")))
		}
	}
	return nil
}

// describe renders one option's value for an error message.
func (o *Options) describe(name string) string {
	switch name {
	case "Steps":
		return fmt.Sprint(o.Steps)
	case "Warp":
		return o.Warp.Name()
	case "Momentum":
		return fmt.Sprint(o.Momentum)
	case "StepSize":
		return fmt.Sprint(o.StepSize)
	case "SigmaThresh":
		return fmt.Sprint(o.SigmaThresh)
	case "Cleanup":
		return fmt.Sprint(o.Cleanup)
	case "MaxSteps":
		return fmt.Sprint(o.MaxSteps)
	}
	return "non-zero"
}

// validate checks the options shared by all samplers and rejects any the sampler does not read.
func (o *Options) validate(sampler string, f Field, x *Window, extra ...string) error {
	if err := o.checkRead(sampler, append([]string{"Steps", "Callback"}, extra...)...); err != nil {
		return err
	}
	if f == nil {
		return paramErr("f", "nil", "a Field")
	}
	if err := x.Validate("x"); err != nil {
		return err
	}
	if o.Steps < 1 {
		return paramErr("Options.Steps", o.Steps, "≥ 1")
	}
	return o.validateShared()
}

// validateShared checks the options every context reads the same way.
func (o *Options) validateShared() error {
	if !(o.Momentum >= 0 && o.Momentum < 1) {
		return paramErr("Options.Momentum", o.Momentum, "in [0, 1)")
	}
	if !(o.StepSize >= 0) {
		return paramErr("Options.StepSize", o.StepSize, "≥ 0 (0 means use the warp)")
	}
	return nil
}

// MissingReadoutError says that a sampler needs a noise-level readout the field does not have.
type MissingReadoutError struct{ Field, Why string }

func (e *MissingReadoutError) Error() string {
	return fmt.Sprintf("eqflib: %s needs a noise-level readout h_ω, and field %q has none (train one with NewReadoutTrainer and attach it with DiT.AttachReadout, or load a checkpoint saved with one)", e.Why, e.Field)
}

// needReadout returns a *MissingReadoutError when f has no readout.
func needReadout(f Field, why string) error {
	if !f.Info().HasReadout {
		return &MissingReadoutError{Field: f.Info().Name, Why: why}
	}
	return nil
}

// record appends a trace entry and calls the callback.
func (r *Result) record(o *Options, info StepInfo, x *Window) {
	r.Trace = append(r.Trace, info)
	if o.Callback != nil {
		info.X = x
		o.Callback(info)
	}
}

// oneOf describes the allowed names of a registry: `one of "a", "b", …` (sorted).
func oneOf[V any](registry map[string]V) string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return "one of " + strings.Join(names, ", ")
}
