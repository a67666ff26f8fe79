package eqflib

import (
	"fmt"
	"math"
)

// The Diffusion baseline (paper §5.1): a variance-preserving DDPM with the v-parameterisation,
// z_t = √ᾱ_t x + √(1−ᾱ_t) ε, target v = √ᾱ_t ε − √(1−ᾱ_t) x, on a 1000-step cosine schedule
// whose log-SNR is clipped to [−15, 15] (Simple Diffusion's "cosine" with t_min, t_max), loss
// weighted by the sigmoid weighting with bias −1, and sampled with deterministic DDIM.
//
// A diffusion Field receives the continuous diffusion time t = k/(Steps−1) ∈ [0, 1] of timestep
// k as its per-frame level (t = 0 cleanest, t = 1 noisiest).

// Diffusion defaults.
const (
	DefaultDiffusionSteps  = 1000 // discrete timesteps
	DefaultDiffusionLogSNR = 15.0 // log-SNR clipped to ±15
	DefaultSigmoidBias     = -1.0 // sigmoid loss weighting bias b: ε-weight sigmoid(b − λ)
	DefaultDDIMSteps       = 50   // DDIM sampling steps
)

// DiffusionSchedule is the discrete cosine schedule.
type DiffusionSchedule struct {
	Steps                int
	LogSNRMin, LogSNRMax float64
	tMin, tMax           float64
}

// NewCosineSchedule returns the cosine schedule with `steps` timesteps and log-SNR in
// [logSNRMin, logSNRMax]: λ(t) = −2 log tan(t_min + t(t_max − t_min)), t_min = atan(e^{−λmax/2}),
// t_max = atan(e^{−λmin/2}), timestep k at t = k/(steps−1).
func NewCosineSchedule(steps int, logSNRMin, logSNRMax float64) (*DiffusionSchedule, error) {
	if steps < 2 {
		return nil, paramErr("steps", steps, "≥ 2")
	}
	if !(logSNRMin < logSNRMax) || math.IsInf(logSNRMin, 0) || math.IsInf(logSNRMax, 0) {
		return nil, paramErr("logSNRMin", logSNRMin, fmt.Sprintf("finite and < logSNRMax = %g", logSNRMax))
	}
	return &DiffusionSchedule{
		Steps: steps, LogSNRMin: logSNRMin, LogSNRMax: logSNRMax,
		tMin: math.Atan(math.Exp(-0.5 * logSNRMax)),
		tMax: math.Atan(math.Exp(-0.5 * logSNRMin)),
	}, nil
}

// DefaultDiffusion is the paper's schedule: 1000 steps, log-SNR in [−15, 15].
func DefaultDiffusion() *DiffusionSchedule {
	d, _ := NewCosineSchedule(DefaultDiffusionSteps, -DefaultDiffusionLogSNR, DefaultDiffusionLogSNR)
	return d
}

// LogSNR returns λ(t) at continuous time t ∈ [0, 1].
func (d *DiffusionSchedule) LogSNR(t float64) float64 {
	return -2 * math.Log(math.Tan(d.tMin+t*(d.tMax-d.tMin)))
}

// AlphaSigma returns (√ᾱ, √(1−ᾱ)) at continuous time t.
func (d *DiffusionSchedule) AlphaSigma(t float64) (alpha, sigma float64) {
	ab := SigmaFromLogit(d.LogSNR(t))
	return math.Sqrt(ab), math.Sqrt(1 - ab)
}

// Time returns the continuous time of timestep k.
func (d *DiffusionSchedule) Time(k int) float64 { return float64(k) / float64(d.Steps-1) }

// DDIMTimesteps returns the n+1 timesteps DDIM visits, from noise to data: the authors'
// truncation of linspace(−1, Steps−1, n+1), reversed; the last entry is −1, meaning clean data.
func (d *DiffusionSchedule) DDIMTimesteps(n int) ([]int, error) {
	if n < 1 || n > d.Steps {
		return nil, paramErr("N", n, fmt.Sprintf("in [1, %d] (the schedule's steps)", d.Steps))
	}
	out := make([]int, n+1)
	for i := 0; i <= n; i++ {
		v := -1 + float64(i)*float64(d.Steps)/float64(n)
		out[n-i] = int(v) // truncation toward zero, like torch's .long()
	}
	return out, nil
}

// VLossWeight is the sigmoid weighting of a v-prediction loss at continuous time t:
// sigmoid(b − λ)·snr/(snr + 1) with snr = e^λ (the ε-weighting sigmoid(b − λ) carried to v).
func (d *DiffusionSchedule) VLossWeight(t, bias float64) float64 {
	l := d.LogSNR(t)
	return SigmaFromLogit(bias-l) * SigmaFromLogit(l)
}
