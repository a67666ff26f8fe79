package eqflib

import "math"

// SampleEarlyStopping is EqF's adaptive early stopping (paper App. C.1, Alg. adaptive_early_stopping),
// run independently for every batch element b:
//
//	while max_t σ̂_{b,t} > σ_thresh:   (v̂, z) = f(x);  σ̂ = h_ω(z);  x ← x − η(σ̂)/N ⊙ v̂
//	for j in 0 … C_s−1:               (v̂, z) = f(x);  σ̂ = h_ω(z);  x ← x − σ̂/(C_s − j) ⊙ v̂
//
// σ̂ starts at 1. The adaptive phase is capped at opts.MaxSteps (0 means Steps) steps, so a
// threshold of 0 gives the fixed budget N + C_s. With opts.Momentum > 0 both phases take NAG
// steps. Result.NFEPerSample holds each element's evaluations; Result.NFE counts batched calls.
// Reads Steps, Warp, Momentum, SigmaThresh, Cleanup, MaxSteps, Callback; needs a readout.
func SampleEarlyStopping(f Field, x0 *Window, opts Options) (res *Result, err error) {
	defer catch(&err)
	if err := opts.validate("earlystop", f, x0, "MaxSteps"); err != nil {
		return nil, err
	}
	if err := needReadout(f, "adaptive early stopping"); err != nil {
		return nil, err
	}
	if !(opts.SigmaThresh >= 0 && opts.SigmaThresh <= 1) {
		return nil, paramErr("Options.SigmaThresh", opts.SigmaThresh, "in [0, 1]")
	}
	if opts.Cleanup < 1 {
		return nil, paramErr("Options.Cleanup", opts.Cleanup, "≥ 1 (C_s cleanup steps)")
	}
	if opts.MaxSteps < 0 {
		return nil, paramErr("Options.MaxSteps", opts.MaxSteps, "≥ 0 (0 means Steps)")
	}
	maxSteps := opts.MaxSteps
	if maxSteps == 0 {
		maxSteps = opts.Steps
	}
	w, n := opts.warp(), float64(opts.Steps)
	x := x0.Clone()
	B, T, nf := x.Batch(), x.Frames(), x.NumFrames()
	m, look := NewWindowLike(x), NewWindowLike(x)
	mu := opts.Momentum

	// Per batch element: adaptive steps taken, cleanup steps taken, and the last σ̂.
	adaptive := make([]int, B)
	cleanup := make([]int, B)
	maxHat := fill(B, 1)
	res = &Result{NFEPerSample: make([]int, B)}
	phase := func(b int) int { // 0 adaptive, 1 cleanup, 2 done
		switch {
		case adaptive[b] < maxSteps && maxHat[b] > opts.SigmaThresh && cleanup[b] == 0:
			return 0
		case cleanup[b] < opts.Cleanup:
			return 1
		}
		return 2
	}
	for i := 0; ; i++ {
		active := false
		for b := 0; b < B; b++ {
			active = active || phase(b) != 2
		}
		if !active {
			break
		}
		axpyFrames(look, x, fill(nf, -mu), m)
		out, err := evalChecked(f, look, fill(nf, 1), EvalOptions{Readout: true})
		if err != nil {
			return nil, atStep(err, i+1, nil)
		}
		res.NFE++
		res.SigmaHat = out.SigmaHat
		step := make([]float64, nf)
		moved := make([]bool, B)
		for b := 0; b < B; b++ {
			p := phase(b)
			if p == 2 {
				continue
			}
			moved[b] = true
			res.NFEPerSample[b]++
			mx := 0.0
			for t := 0; t < T; t++ {
				fr := b*T + t
				s := out.SigmaHat[fr]
				mx = math.Max(mx, s)
				if p == 0 {
					step[fr] = w.Eta(s) / n
				} else {
					step[fr] = s / float64(opts.Cleanup-cleanup[b])
				}
			}
			if p == 0 {
				adaptive[b]++
				maxHat[b] = mx
			} else {
				cleanup[b]++
			}
		}
		// m ← μ m + step ⊙ v̂ and x ← x − m, only for the elements still sampling.
		for fr := 0; fr < nf; fr++ {
			if !moved[fr/T] {
				continue
			}
			mf, xf, vf := m.Frame(fr), x.Frame(fr), out.V.Frame(fr)
			for j := range mf {
				mf[j] = mu*mf[j] + step[fr]*vf[j]
				xf[j] -= mf[j]
			}
		}
		res.record(&opts, StepInfo{Step: i, NFE: res.NFE, Level: out.SigmaHat, SigmaHat: out.SigmaHat, StepSize: step}, x)
	}
	res.X = x
	return res, nil
}
