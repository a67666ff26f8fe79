package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The paper's analyses (paper §3, §5.5, App. A.3, B), each returning data for plots/.

// NoiseDivergence is Fig. 3 (left): for every rollout frame, the mean over its steps (and the
// batch) of |σ_scheduled − g_φ(x)|, from a rollout traced with a Probe (or closed-loop Euler).
// Frames without a recorded estimate are NaN.
func NoiseDivergence(trace []RollStep, frames int) ([]float64, error) {
	if frames < 1 {
		return nil, paramErr("frames", frames, "≥ 1")
	}
	sum, n := make([]float64, frames), make([]int, frames)
	seen := false
	for _, st := range trace {
		if st.Estimate == nil {
			continue
		}
		seen = true
		for j, fr := range st.Frame {
			if fr >= 0 && fr < frames && st.Active[j] {
				sum[fr] += math.Abs(st.Sched[j] - st.Estimate[j])
				n[fr]++
			}
		}
	}
	if !seen {
		return nil, paramErr("trace", "no g_φ estimates", "a trace recorded with FrameSampler.Probe set (RollOptions.KeepTrace)")
	}
	for i := range sum {
		if n[i] == 0 {
			sum[i] = math.NaN()
		} else {
			sum[i] /= float64(n[i])
		}
	}
	return sum, nil
}

// TerminationLevels is σ̂ at the end of sampling (App. B.1, B.4): the readout of f on the
// finished frames x, one value per frame (B·T). f must have a readout (an EqF DiT with h_ω, or
// the oracle).
func TerminationLevels(f Field, x *Window) ([]float64, error) {
	if f == nil {
		return nil, paramErr("f", "nil", "a Field with a readout")
	}
	if !f.Info().HasReadout {
		return nil, paramErr("f", f.Info().Name, "a Field with a noise-level readout")
	}
	out, err := evalChecked(f, x, make([]float64, x.NumFrames()), EvalOptions{Readout: true})
	if err != nil {
		return nil, err
	}
	return out.SigmaHat, nil
}

// MissRates returns, for every level, the fraction of termination levels above it.
func MissRates(levels, at []float64) []float64 {
	out := make([]float64, len(at))
	for i, a := range at {
		for _, l := range levels {
			if l > a {
				out[i]++
			}
		}
		if len(levels) > 0 {
			out[i] /= float64(len(levels))
		}
	}
	return out
}

// BowlCurves is App. B.2's measurement: the increase of FM's v-loss on the horizon when it is
// told σ_stable + δ instead of σ_stable.
type BowlCurves struct {
	Delta       []float64
	HorizonOnly []float64 // loss increase over Base, δ on the horizon's level only (context at 0)
	WithContext []float64 // loss increase over Base, δ also on the clean context's level (clamped to [0, 1])
	Base        float64   // the v-loss at δ = 0
}

// Bowls noises the horizon (frames context…T−1 of the clean windows x) to sigmaStable with one
// fixed ε, keeps the first context frames clean, and evaluates the noise-conditional field f at
// levels shifted by each δ (clamped to [0, 1]). The loss is the v-MSE on the horizon frames.
func Bowls(f Field, x *Window, context int, sigmaStable float64, deltas []float64, seed uint64) (res *BowlCurves, err error) {
	defer catch(&err)
	if f == nil || !f.Info().NoiseConditional || f.Info().Diffusion {
		return nil, paramErr("f", "a field", "a noise-conditional flow field (FM)")
	}
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	T := x.Frames()
	if context < 0 || context >= T {
		return nil, paramErr("context", context, fmt.Sprintf("in [0, %d)", T))
	}
	if !(sigmaStable >= 0 && sigmaStable <= 1) {
		return nil, paramErr("sigmaStable", sigmaStable, "in [0, 1]")
	}
	rng := NewRNG(seed)
	eps, _ := Randn(rng, x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4])
	sigma := make([]float64, x.NumFrames())
	for fr := range sigma {
		if fr%T >= context {
			sigma[fr] = sigmaStable
		}
	}
	xs, err := Noise(x, eps, sigma)
	if err != nil {
		return nil, err
	}
	target, err := VelocityTarget(x, eps)
	if err != nil {
		return nil, err
	}
	loss := func(level []float64) (float64, error) {
		out, err := evalChecked(f, xs, level, EvalOptions{})
		if err != nil {
			return 0, err
		}
		var s float64
		n := 0
		for fr := 0; fr < x.NumFrames(); fr++ {
			if fr%T < context {
				continue
			}
			u, v := out.V.Frame(fr), target.Frame(fr)
			for i := range u {
				d := u[i] - v[i]
				s += d * d
			}
			n += len(u)
		}
		return s / float64(n), nil
	}
	clamp := func(v float64) float64 { return math.Min(1, math.Max(0, v)) }
	res = &BowlCurves{Delta: append([]float64(nil), deltas...)}
	if res.Base, err = loss(sigma); err != nil {
		return nil, err
	}
	for _, d := range deltas {
		h, c := make([]float64, len(sigma)), make([]float64, len(sigma))
		for fr, s := range sigma {
			if fr%T >= context {
				h[fr], c[fr] = clamp(s+d), clamp(s+d)
			} else {
				c[fr] = clamp(d)
			}
		}
		lh, err := loss(h)
		if err != nil {
			return nil, err
		}
		lc, err := loss(c)
		if err != nil {
			return nil, err
		}
		res.HorizonOnly = append(res.HorizonOnly, lh-res.Base)
		res.WithContext = append(res.WithContext, lc-res.Base)
	}
	return res, nil
}

// Agreement is Table fm_eqf_field_agreement and the check of Prop. 4.1 on identical (x, σ, ε).
type Agreement struct {
	FieldMSE    float64 // E‖f_FM − f_EqF‖² (per element)
	LossFM      float64 // E‖f_FM(x^σ, σ) − v‖²
	LossEqF     float64 // E‖f_EqF(x^σ) − v‖²
	RelFieldMSE float64 // FieldMSE / (½(E‖f_FM‖² + E‖f_EqF‖²))
	Pearson     float64 // correlation of the flattened outputs
	// Gap is LossEqF − LossFM; Prop. 4.1 says Gap = FieldMSE for the optimal FM field. GapSE is
	// the standard error of Gap − FieldMSE (per-frame estimates), the scale to compare them on.
	Gap, GapSE float64
	Samples    int // frames
	// Points are up to DefaultAgreementPoints (f_FM, f_EqF) output pairs, evenly strided over
	// the flattened outputs, for scatter plots.
	Points [][2]float64
}

// DefaultAgreementPoints is how many output pairs CompareFields keeps for plotting.
const DefaultAgreementPoints = 4000

// CompareFields evaluates an FM field and an EqF field on the same noisy frames: x ([B, T, …]
// clean windows) noised with σ ~ U[0, 1] per frame and one ε draw (seeded).
func CompareFields(fm, eqf Field, x *Window, seed uint64) (res *Agreement, err error) {
	defer catch(&err)
	if fm == nil || eqf == nil {
		return nil, paramErr("fm, eqf", "nil", "two Fields")
	}
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xa9))
	sigma, err := SampleSigmaIndependent(rng, x.Shape[0], x.Shape[1])
	if err != nil {
		return nil, err
	}
	eps, _ := Randn(rng, x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4])
	xs, err := Noise(x, eps, sigma)
	if err != nil {
		return nil, err
	}
	v, _ := VelocityTarget(x, eps)
	a, err := evalChecked(fm, xs, sigma, EvalOptions{})
	if err != nil {
		return nil, err
	}
	b, err := evalChecked(eqf, xs, sigma, EvalOptions{})
	if err != nil {
		return nil, err
	}
	nf, fs := x.NumFrames(), float64(x.FrameSize())
	res = &Agreement{Samples: nf}
	var sa, sb, saa, sbb, sab float64
	diffs := make([]float64, nf) // per-frame (L_EqF − L_FM) − field MSE
	for fr := 0; fr < nf; fr++ {
		af, bf, vf := a.V.Frame(fr), b.V.Frame(fr), v.Frame(fr)
		var fmse, lfm, leqf float64
		for i := range af {
			d := af[i] - bf[i]
			fmse += d * d
			lfm += (af[i] - vf[i]) * (af[i] - vf[i])
			leqf += (bf[i] - vf[i]) * (bf[i] - vf[i])
			sa += af[i]
			sb += bf[i]
			saa += af[i] * af[i]
			sbb += bf[i] * bf[i]
			sab += af[i] * bf[i]
		}
		res.FieldMSE += fmse / fs / float64(nf)
		res.LossFM += lfm / fs / float64(nf)
		res.LossEqF += leqf / fs / float64(nf)
		diffs[fr] = (leqf - lfm - fmse) / fs
	}
	total := len(a.V.Data)
	stride := max(1, total/DefaultAgreementPoints)
	for i := 0; i < total && len(res.Points) < DefaultAgreementPoints; i += stride {
		res.Points = append(res.Points, [2]float64{a.V.Data[i], b.V.Data[i]})
	}
	n := float64(nf) * fs
	res.RelFieldMSE = res.FieldMSE / (0.5 * (saa/n + sbb/n))
	cov := sab/n - (sa/n)*(sb/n)
	res.Pearson = cov / math.Sqrt((saa/n-(sa/n)*(sa/n))*(sbb/n-(sb/n)*(sb/n)))
	res.Gap = res.LossEqF - res.LossFM
	var mean, ss float64
	for _, d := range diffs {
		mean += d / float64(nf)
	}
	for _, d := range diffs {
		ss += (d - mean) * (d - mean)
	}
	if nf > 1 {
		res.GapSE = math.Sqrt(ss / float64(nf-1) / float64(nf))
	}
	return res, nil
}
