package eqflib

// SampleEuler is Flow Matching's Euler sampler on a warped schedule (paper eq.
// flow_matching_sampling): with levels σ_i = ρ(i/N),
//
//	x ← x − (σ_i − σ_{i+1}) ⊙ f(x, σ_i).
//
// With opts.ClosedLoop the field is conditioned on the estimate σ̃ = g_φ(x) of opts.Estimator
// instead of σ_i (closed-loop FM, paper §3); the step keeps the schedule's Δσ_i.
// Reads Steps, Warp, ClosedLoop, Estimator, Callback.
func SampleEuler(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(Euler, f, x0, opts)
}

// eulerRule: a frame that took c steps is fed σ_c (or g_φ's σ̃, closed loop: the engine feeds
// the estimator's output) and moves by Δσ_c = σ_c − σ_{c+1}.
type eulerRule struct {
	noPrepare
	stepsDone
}

func (eulerRule) name() string                         { return "euler" }
func (eulerRule) reads() []string                      { return []string{"Warp", "ClosedLoop", "Estimator"} }
func (eulerRule) momentum(*Options) (float64, float64) { return 0, 0 }
func (eulerRule) readout(*Options) bool                { return false }
func (eulerRule) plan(r *runParams, st *frameState) plan {
	c := min(st.steps, r.n-1)
	return fixedPlan(r.level(st.steps), r.levels[c]-r.levels[c+1])
}
func (eulerRule) check(_ Field, o *Options) error {
	if o.ClosedLoop && o.Estimator == nil {
		return paramErr("Options.Estimator", "nil", "a NoiseEstimator (g_φ) for closed-loop Euler")
	}
	return nil
}
