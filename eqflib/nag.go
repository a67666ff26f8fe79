package eqflib

// Nesterov accelerated gradient sampling (paper App. H, Alg. nag_sampling_step). One network
// call per step, like GD:
//
//	x_look = x − μ m;   (v̂, z) = f(x_look);   σ̂ = h_ω(z)
//	m ← μ m + η(σ)/N ⊙ v̂;   x ← x − m
//
// LGD is the lookahead-only variant of EqM's release: m ← η(σ)/N ⊙ f(x_look).

// SampleNAG is NAG with momentum opts.Momentum. σ is the scheduled level ρ(i/N) open loop or the
// readout's σ̂ at x_look closed loop (with opts.Estimator: g_φ's estimate at x_look, also fed to
// the field, as closed-loop FM); opts.StepSize > 0 fixes the multiplier (EqM's sampler).
// With μ = 0 it is SampleGD exactly. Reads Steps, Warp, ClosedLoop, Estimator, Momentum,
// StepSize, Callback.
func SampleNAG(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(NAG, f, x0, opts)
}

// SampleLGD is the lookahead-only variant: m ← η(σ)/N ⊙ f(x − μ m), x ← x − m.
func SampleLGD(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(LGD, f, x0, opts)
}

// nagRule is GD's step (gradientPlan) taken from the look-ahead point with momentum μ carried
// (NAG) or dropped (LGD).
type nagRule struct {
	noPrepare
	stepsDone
	lookaheadOnly bool
}

func (r nagRule) name() string {
	if r.lookaheadOnly {
		return "lgd"
	}
	return "nag"
}
func (nagRule) reads() []string {
	return []string{"Warp", "ClosedLoop", "Estimator", "Momentum", "StepSize"}
}
func (r nagRule) momentum(o *Options) (look, carry float64) {
	if r.lookaheadOnly {
		return o.Momentum, 0
	}
	return o.Momentum, o.Momentum
}
func (nagRule) readout(o *Options) bool { return readsReadout(o) }
func (r nagRule) check(f Field, o *Options) error {
	return needReadoutIf(readsReadout(o), f, "closed-loop "+map[bool]string{false: "NAG", true: "LGD"}[r.lookaheadOnly])
}
func (nagRule) plan(r *runParams, st *frameState) plan { return gradientPlan(r, st) }
