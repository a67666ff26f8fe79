package eqflib

// SampleGD is EqF's gradient-descent sampler (paper eq. sampler_update):
//
//	(v̂, z) = f(x),   x ← x − η(σ)/N ⊙ v̂,
//
// with σ the scheduled level ρ(i/N) (open loop) or the readout's σ̂ = h_ω(z) from the same
// forward pass (opts.ClosedLoop). With opts.Estimator set, closed loop reads the framewise
// estimate σ̃ = g_φ(x) instead and feeds it to the field as its level (closed-loop FM with GD
// steps; no readout needed). With the identity warp open loop this is Euler with Δσ = 1/N:
// NU-FM's sampler. opts.StepSize > 0 fixes the multiplier instead.
// Reads Steps, Warp, ClosedLoop, Estimator, StepSize, Callback.
func SampleGD(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(GD, f, x0, opts)
}

// gdRule: β = η(σ)/N with σ = ρ(c/N) open loop or σ̂ closed loop, or a fixed StepSize. NAG and
// LGD are this rule with momentum (nag.go).
type gdRule struct {
	noPrepare
	stepsDone
}

func (gdRule) name() string                         { return "gd" }
func (gdRule) reads() []string                      { return []string{"Warp", "ClosedLoop", "Estimator", "StepSize"} }
func (gdRule) momentum(*Options) (float64, float64) { return 0, 0 }
func (gdRule) readout(o *Options) bool              { return readsReadout(o) }
func (gdRule) check(f Field, o *Options) error {
	return needReadoutIf(readsReadout(o), f, "closed-loop GD")
}
func (gdRule) plan(r *runParams, st *frameState) plan { return gradientPlan(r, st) }

// readsReadout: closed loop on h_ω's σ̂, unless an Estimator (g_φ) gives the level instead.
func readsReadout(o *Options) bool { return o.ClosedLoop && o.Estimator == nil }

// gradientPlan is the step of GD, NAG and LGD.
func gradientPlan(r *runParams, st *frameState) plan {
	sigma := r.level(st.steps)
	p := fixedPlan(sigma, r.warp.Eta(sigma)/float64(r.n))
	if r.o.ClosedLoop {
		p.betaForm, p.betaArg, p.levelFromSigmaHat = betaEta, float64(r.n), true
	}
	if r.o.StepSize > 0 {
		p.betaForm, p.betaArg = betaFixed, r.o.StepSize
	}
	return p
}
