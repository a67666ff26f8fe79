package eqflib

// SampleEuler is Flow Matching's Euler sampler on a warped schedule (paper eq.
// flow_matching_sampling): with levels σ_i = ρ(i/N),
//
//	x ← x − (σ_i − σ_{i+1}) ⊙ f(x, σ_i).
//
// With opts.ClosedLoop the field is conditioned on the estimate σ̃ = g_φ(x) of opts.Estimator
// instead of σ_i (closed-loop FM, paper §3); the step keeps the schedule's Δσ_i.
// Reads Steps, Warp, ClosedLoop, Estimator, Callback.
func SampleEuler(f Field, x0 *Window, opts Options) (res *Result, err error) {
	defer catch(&err)
	if err := opts.validate("euler", f, x0); err != nil {
		return nil, err
	}
	if opts.ClosedLoop && opts.Estimator == nil {
		return nil, paramErr("Options.Estimator", "nil", "a NoiseEstimator (g_φ) for closed-loop Euler")
	}
	levels, err := Levels(opts.warp(), opts.Steps)
	if err != nil {
		return nil, err
	}
	x := x0.Clone()
	nf := x.NumFrames()
	res = &Result{}
	for i := 0; i < opts.Steps; i++ {
		cond := fill(nf, levels[i])
		if opts.ClosedLoop {
			if cond, err = opts.Estimator.EstimateSigma(x); err != nil {
				return nil, err
			}
			if err := perFrame("Estimator.EstimateSigma output", x, cond); err != nil {
				return nil, err
			}
		}
		out, err := evalChecked(f, x, cond, EvalOptions{})
		if err != nil {
			return nil, atStep(err, i+1, nil)
		}
		res.NFE++
		dSigma := fill(nf, levels[i]-levels[i+1])
		axpyFrames(x, x, negate(dSigma), out.V)
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: cond, StepSize: dSigma}, x)
	}
	res.X = x
	return res, nil
}
