package eqflib

// SampleBudgetAdaptive is EqF's budget-adaptive sampler (paper Alg. budget_adaptive): the step
// multiplier is the readout's estimate divided by the steps left,
//
//	(v̂, z) = f(x_look),   σ̂ = h_ω(z),   m ← μ m + σ̂/(N − i) ⊙ v̂,   x ← x − m,
//
// which re-plans the identity warp from the current estimate at every step (GD for μ = 0, NAG
// otherwise). With a perfect readout starting at σ̂ = 1 and N = 4 the levels go .75, .5, .25, 0.
// Reads Steps, Momentum, Callback; needs a readout.
func SampleBudgetAdaptive(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(Budget, f, x0, opts)
}

// budgetRule: β = σ̂/(N − c) for a frame that took c of its N steps. It is closed loop by
// construction (it accepts ClosedLoop and ignores it).
type budgetRule struct {
	noPrepare
	stepsDone
}

func (budgetRule) name() string    { return "budget" }
func (budgetRule) reads() []string { return []string{"ClosedLoop", "Momentum"} }
func (budgetRule) momentum(o *Options) (float64, float64) {
	return o.Momentum, o.Momentum
}
func (budgetRule) readout(*Options) bool { return true }
func (budgetRule) check(f Field, _ *Options) error {
	return needReadout(f, "budget-adaptive sampling")
}
func (budgetRule) plan(r *runParams, st *frameState) plan {
	p := fixedPlan(r.level(st.steps), 0)
	p.betaForm, p.betaArg, p.levelFromSigmaHat = betaHat, float64(r.n-min(st.steps, r.n-1)), true
	return p
}
