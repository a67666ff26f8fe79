package eqflib

// SampleGD is EqF's gradient-descent sampler (paper eq. sampler_update):
//
//	(v̂, z) = f(x),   x ← x − η(σ)/N ⊙ v̂,
//
// with σ the scheduled level ρ(i/N) (open loop) or the readout's σ̂ = h_ω(z) from the same
// forward pass (opts.ClosedLoop). With the identity warp open loop this is Euler with Δσ = 1/N:
// NU-FM's sampler. opts.StepSize > 0 fixes the multiplier instead.
// Reads Steps, Warp, ClosedLoop, StepSize, Callback.
func SampleGD(f Field, x0 *Window, opts Options) (res *Result, err error) {
	defer catch(&err)
	if err := opts.validate("gd", f, x0); err != nil {
		return nil, err
	}
	if opts.ClosedLoop {
		if err := needReadout(f, "closed-loop GD"); err != nil {
			return nil, err
		}
	}
	w, n := opts.warp(), float64(opts.Steps)
	x := x0.Clone()
	nf := x.NumFrames()
	res = &Result{}
	for i := 0; i < opts.Steps; i++ {
		sched := fill(nf, w.Rho(float64(i)/n))
		out, err := evalChecked(f, x, sched, EvalOptions{Readout: opts.ClosedLoop})
		if err != nil {
			return nil, atStep(err, i+1, nil)
		}
		res.NFE++
		level := sched
		if opts.ClosedLoop {
			level, res.SigmaHat = out.SigmaHat, out.SigmaHat
		}
		step := make([]float64, nf)
		for fr := range step {
			step[fr] = w.Eta(level[fr]) / n
			if opts.StepSize > 0 {
				step[fr] = opts.StepSize
			}
		}
		axpyFrames(x, x, negate(step), out.V)
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: level, SigmaHat: out.SigmaHat, StepSize: step}, x)
	}
	res.X = x
	return res, nil
}
