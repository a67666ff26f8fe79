package eqflib

// SampleBudgetAdaptive is EqF's budget-adaptive sampler (paper Alg. budget_adaptive): the step
// multiplier is the readout's estimate divided by the steps left,
//
//	(v̂, z) = f(x_look),   σ̂ = h_ω(z),   m ← μ m + σ̂/(N − i) ⊙ v̂,   x ← x − m,
//
// which re-plans the identity warp from the current estimate at every step (GD for μ = 0, NAG
// otherwise). With a perfect readout starting at σ̂ = 1 and N = 4 the levels go .75, .5, .25, 0.
// Reads Steps, Momentum, Callback; needs a readout.
func SampleBudgetAdaptive(f Field, x0 *Window, opts Options) (res *Result, err error) {
	defer catch(&err)
	if err := opts.validate("budget", f, x0); err != nil {
		return nil, err
	}
	if err := needReadout(f, "budget-adaptive sampling"); err != nil {
		return nil, err
	}
	n := opts.Steps
	return momentumLoop(f, x0, opts, false, true, func(i int, sigmaHat []float64, nf int) (level, step []float64) {
		step = make([]float64, nf)
		for fr, s := range sigmaHat {
			step[fr] = s / float64(n-i)
		}
		return sigmaHat, step
	})
}
