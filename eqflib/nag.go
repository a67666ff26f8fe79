package eqflib

// Nesterov accelerated gradient sampling (paper App. H, Alg. nag_sampling_step). One network
// call per step, like GD:
//
//	x_look = x − μ m;   (v̂, z) = f(x_look);   σ̂ = h_ω(z)
//	m ← μ m + η(σ)/N ⊙ v̂;   x ← x − m
//
// LGD is the lookahead-only variant of EqM's release: m ← η(σ)/N ⊙ f(x_look).

// SampleNAG is NAG with momentum opts.Momentum. σ is the scheduled level ρ(i/N) open loop or the
// readout's σ̂ at x_look closed loop; opts.StepSize > 0 fixes the multiplier (EqM's sampler).
// With μ = 0 it is SampleGD exactly. Reads Steps, Warp, ClosedLoop, Momentum, StepSize, Callback.
func SampleNAG(f Field, x0 *Window, opts Options) (*Result, error) {
	return momentumSampler(f, x0, opts, false)
}

// SampleLGD is the lookahead-only variant: m ← η(σ)/N ⊙ f(x − μ m), x ← x − m.
func SampleLGD(f Field, x0 *Window, opts Options) (*Result, error) {
	return momentumSampler(f, x0, opts, true)
}

func momentumSampler(f Field, x0 *Window, opts Options, lookaheadOnly bool) (res *Result, err error) {
	defer catch(&err)
	name := "nag"
	if lookaheadOnly {
		name = "lgd"
	}
	if err := opts.validate(name, f, x0); err != nil {
		return nil, err
	}
	if opts.ClosedLoop {
		if err := needReadout(f, "closed-loop NAG"); err != nil {
			return nil, err
		}
	}
	w, n := opts.warp(), float64(opts.Steps)
	return momentumLoop(f, x0, opts, lookaheadOnly, opts.ClosedLoop,
		func(i int, sigmaHat []float64, nf int) (level, step []float64) {
			level = fill(nf, w.Rho(float64(i)/n))
			if opts.ClosedLoop {
				level = sigmaHat
			}
			step = make([]float64, nf)
			for fr := range step {
				step[fr] = w.Eta(level[fr]) / n
				if opts.StepSize > 0 {
					step[fr] = opts.StepSize
				}
			}
			return level, step
		})
}

// stepRule returns, for iteration i and the readout σ̂ at x_look (nil without readout), the
// per-frame level used and the multiplier applied to v̂.
type stepRule func(i int, sigmaHat []float64, numFrames int) (level, step []float64)

// momentumLoop runs opts.Steps NAG (or LGD) iterations with the given step rule.
func momentumLoop(f Field, x0 *Window, opts Options, lookaheadOnly, readout bool, rule stepRule) (*Result, error) {
	x := x0.Clone()
	nf := x.NumFrames()
	m := NewWindowLike(x)
	look := NewWindowLike(x)
	mu := opts.Momentum
	res := &Result{}
	for i := 0; i < opts.Steps; i++ {
		axpyFrames(look, x, fill(nf, -mu), m) // x_look = x − μ m
		sched := fill(nf, opts.warp().Rho(float64(i)/float64(opts.Steps)))
		out, err := evalChecked(f, look, sched, EvalOptions{Readout: readout})
		if err != nil {
			return nil, atStep(err, i+1, nil)
		}
		res.NFE++
		if readout {
			res.SigmaHat = out.SigmaHat
		}
		level, step := rule(i, out.SigmaHat, nf)
		if lookaheadOnly {
			for j := range m.Data {
				m.Data[j] = 0
			}
		} else {
			for j := range m.Data {
				m.Data[j] *= mu
			}
		}
		axpyFrames(m, m, step, out.V)     // m ← μ m + η ⊙ v̂  (LGD: m ← η ⊙ v̂)
		axpyFrames(x, x, fill(nf, -1), m) // x ← x − m
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: level, SigmaHat: out.SigmaHat, StepSize: step}, x)
	}
	res.X = x
	return res, nil
}
