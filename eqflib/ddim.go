package eqflib

// SampleDDIM is deterministic DDIM for the Diffusion baseline (a Field with Info().Diffusion,
// predicting v at diffusion time t). From timestep k to the next k' (−1 meaning clean data),
// with ᾱ = ᾱ_k and ᾱ' = ᾱ_{k'} (1 for k' = −1):
//
//	x̂ = √ᾱ z − √(1−ᾱ) v̂,   ε̂ = √ᾱ v̂ + √(1−ᾱ) z,   z ← √ᾱ' x̂ + √(1−ᾱ') ε̂.
//
// Timesteps follow Schedule.DDIMTimesteps(Steps); the trace's StepSize is the noise std removed,
// √(1−ᾱ) − √(1−ᾱ'). Reads Steps, Schedule, Callback.
func SampleDDIM(f Field, x0 *Window, opts Options) (res *Result, err error) {
	defer catch(&err)
	if err := opts.validate("ddim", f, x0); err != nil {
		return nil, err
	}
	if !f.Info().Diffusion {
		return nil, paramErr("f", f.Info().Name, "a Diffusion field (Info().Diffusion) for DDIM")
	}
	sched := opts.Schedule
	if sched == nil {
		sched = DefaultDiffusion()
	}
	ks, err := sched.DDIMTimesteps(opts.Steps)
	if err != nil {
		return nil, err
	}
	z := x0.Clone()
	nf := z.NumFrames()
	res = &Result{}
	for i := 0; i < opts.Steps; i++ {
		t := sched.Time(ks[i])
		out, err := evalChecked(f, z, fill(nf, t), EvalOptions{})
		if err != nil {
			return nil, atStep(err, i+1, nil)
		}
		res.NFE++
		a, s := sched.AlphaSigma(t)
		an, sn := 1.0, 0.0
		if ks[i+1] >= 0 {
			an, sn = sched.AlphaSigma(sched.Time(ks[i+1]))
		}
		for j, zj := range z.Data {
			v := out.V.Data[j]
			xh := a*zj - s*v
			eh := a*v + s*zj
			z.Data[j] = an*xh + sn*eh
		}
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: fill(nf, t), StepSize: fill(nf, s-sn)}, z)
	}
	res.X = z
	return res, nil
}
