package eqflib

import (
	"fmt"
	"math"
)

// Online replanning (paper App. J, Alg. closed_loop_planning, planning_energy and
// masked_planning_denoise). The authors' release does not contain this experiment;
// this file follows the paper's algorithms line by line.
//
// The working buffer b holds C ground-truth context frames and an H-frame clean plan. Each round
// ℓ commits b_{1:S} to the evaluation buffer, reveals the ground truth into b_{1:S}, scores the
// retained plan b_{S+1:H} against the new observations, slides by S, and then either reuses the
// plan (score < τ: only S appended noise frames are denoised) or regenerates the whole horizon.

// DefaultNumProbes is M, the number of compatibility probe levels (paper: 5).
const DefaultNumProbes = 5

// DefaultProbes returns M evenly spaced probe levels, the midpoints (m − ½)/M of [0, 1]
// (0.1, 0.3, 0.5, 0.7, 0.9 for M = 5). The paper says "evenly spaced" without the end points;
// midpoints avoid the degenerate σ = 0 (no noise) and σ = 1 (no signal) probes.
func DefaultProbes(m int) []float64 {
	out := make([]float64, m)
	for i := range out {
		out[i] = (float64(i) + 0.5) / float64(m)
	}
	return out
}

// ReplanOptions configures Replan.
type ReplanOptions struct {
	Context, Horizon, Stride int
	Frames                   int          // R: frames committed to the evaluation buffer (a multiple of Stride)
	Sampler                  FrameSampler // MaskedDenoise's rule and its Depth D (paper: Euler; EqF samplers where appropriate)
	// Tau is the replanning threshold τ ≥ 0: 0 always replans, +Inf never does.
	Tau float64
	// Probes are the probe levels σ_m (nil: DefaultProbes(DefaultNumProbes)).
	Probes []float64
	// Conditions along the timeline, [B, L, CondDim] with L = Context + Frames + Horizon − Stride.
	Conditions []float64
	CondDim    int
	Seed       uint64
	// OnDenoise, if set, is called after every MaskedDenoise with the round, the window
	// [B, C+H, …] and the mask of the frames it generated.
	OnDenoise func(round int, window *Window, mask []bool)
}

// Replanning is Replan's result.
type Replanning struct {
	Frames    *Window   // the evaluation buffer x^eval, [B, Frames, C, H, W]
	NFE       int       // MaskedDenoise network evaluations
	ProbeNFE  int       // compatibility-probe evaluations (0 for τ = 0 and τ = ∞, where no score is needed)
	Scores    []float64 // per round ℓ ≥ 1 (rounds that slide): the score 𝒮, NaN where not computed
	Replanned []bool    // per round ℓ ≥ 1: whether the horizon was regenerated
}

// NFEPerFrame is (NFE + ProbeNFE) / Frames.
func (r *Replanning) NFEPerFrame() float64 {
	if r.Frames == nil || r.Frames.Frames() == 0 {
		return 0
	}
	return float64(r.NFE+r.ProbeNFE) / float64(r.Frames.Frames())
}

// Replan runs closed-loop planning with observation feedback over the ground-truth video gt
// ([B, Context + Frames, C, H, W]: its first Context frames are the initial observations).
//
// One departure from the pseudo-code: its last round denoises a plan that is never committed;
// Replan stops after the last commit instead (D fewer evaluations, for every τ alike).
func Replan(f Field, gt *Window, opts ReplanOptions) (res *Replanning, err error) {
	defer catch(&err)
	C, H, S, R := opts.Context, opts.Horizon, opts.Stride, opts.Frames
	switch {
	case C < 0:
		return nil, paramErr("Context", C, "≥ 0")
	case H < 1:
		return nil, paramErr("Horizon", H, "≥ 1")
	case S < 1 || S > H:
		return nil, paramErr("Stride", S, fmt.Sprintf("in [1, Horizon = %d]", H))
	case R < S || R%S != 0:
		return nil, paramErr("Frames", R, fmt.Sprintf("a positive multiple of Stride = %d", S))
	case !(opts.Tau >= 0):
		return nil, paramErr("Tau", opts.Tau, "≥ 0 (0 always replans, +Inf never)")
	}
	if err := gt.Validate("gt"); err != nil {
		return nil, err
	}
	if gt.Frames() != C+R {
		return nil, paramErr("gt", fmt.Sprintf("%d frames", gt.Frames()), fmt.Sprintf("Context + Frames = %d frames", C+R))
	}
	fs := opts.Sampler
	if err := fs.validate(f); err != nil {
		return nil, err
	}
	probes := opts.Probes
	if probes == nil {
		probes = DefaultProbes(DefaultNumProbes)
	}
	for _, p := range probes {
		if !(p >= 0 && p <= 1) {
			return nil, paramErr("Probes", p, "levels in [0, 1]")
		}
	}
	scoring := opts.Tau > 0 && !math.IsInf(opts.Tau, 1)
	if scoring && S == H {
		return nil, paramErr("Stride", S, fmt.Sprintf("< Horizon = %d when 0 < Tau < ∞ (no plan is retained to score)", H))
	}
	if scoring && (len(probes) == 0 || f.Info().Diffusion) {
		return nil, paramErr("Probes", len(probes), "at least one probe level, on a flow (not Diffusion) field, when 0 < Tau < ∞")
	}
	B, T, sh := gt.Batch(), C+H, gt.Shape
	L := C + R + H - S
	if err := checkConditions(f, opts.Conditions, opts.CondDim, B, L); err != nil {
		return nil, err
	}
	buf := MustNewWindow(B, T, sh[2], sh[3], sh[4])
	copyFrames(buf, 0, gt, 0, C)
	rng, probeRNG := NewRNG(opts.Seed), NewRNG(opts.Seed^0x9e3779b97f4a7c15)
	res = &Replanning{Frames: MustNewWindow(B, R, sh[2], sh[3], sh[4])}

	// maskedDenoise generates the window positions in active (fresh noise already in place).
	maskedDenoise := func(round, offset int, active []bool, fresh func(e *engine) error) error {
		fixed := make([]bool, T)
		for t := range fixed {
			fixed[t] = t < C || !active[t-C]
		}
		e, err := newEngine(f, fs, buf, fixed, rng)
		if err != nil {
			return err
		}
		for t := range e.chunk {
			e.chunk[t] = 0
		}
		if err := fresh(e); err != nil {
			return err
		}
		cond := windowConditions(opts.Conditions, B, L, opts.CondDim, offset, T)
		if err := e.denoise(cond, nil, func(RollStep) {}); err != nil {
			return err
		}
		res.NFE += e.nfe
		if opts.OnDenoise != nil {
			opts.OnDenoise(round, buf, active)
		}
		return nil
	}
	all := make([]bool, H)
	for i := range all {
		all[i] = true
	}
	// Bootstrap an initial clean plan over the full horizon.
	if err := maskedDenoise(0, 0, all, func(e *engine) error { return e.resetFrames(C, H) }); err != nil {
		return nil, err
	}
	for r, round := 0, 1; ; round++ {
		copyFrames(res.Frames, r, buf, C, S) // commit b_{1:S}
		copyFrames(buf, C, gt, C+r, S)       // reveal the ground truth
		if r+S == R {
			return res, nil
		}
		score := math.NaN()
		if scoring {
			cond := windowConditions(opts.Conditions, B, L, opts.CondDim, r, T)
			if score, err = compatibility(f, buf, C, S, probes, cond, probeRNG); err != nil {
				return nil, err
			}
			res.ProbeNFE += len(probes)
		}
		// Slide the (now ground-truth) context and the plan by S; S fresh frames go at the end.
		shiftWindow(buf, S)
		r += S
		reuse := opts.Tau > 0 && (math.IsInf(opts.Tau, 1) || score < opts.Tau)
		res.Scores = append(res.Scores, score)
		res.Replanned = append(res.Replanned, !reuse)
		mask := all
		fresh := func(e *engine) error { return e.resetFrames(C, H) }
		if reuse {
			mask = make([]bool, H)
			for i := H - S; i < H; i++ {
				mask[i] = true
			}
			fresh = func(e *engine) error { return e.resetFrames(T-S, S) }
		}
		if err := maskedDenoise(round, r, mask, fresh); err != nil {
			return nil, err
		}
	}
}

// shiftWindow moves every batch element's frames left by s (the last s positions keep stale
// frames until they are overwritten).
func shiftWindow(x *Window, s int) {
	T, n := x.Frames(), x.FrameSize()
	for b := 0; b < x.Batch(); b++ {
		base := b * T * n
		copy(x.Data[base:base+(T-s)*n], x.Data[base+s*n:base+T*n])
	}
}

// compatibility is Alg. planning_energy: the mean over probe levels σ_m of the v-MSE on the
// retained plan b_{S+1:H} when only it is noised to σ_m and the observed prefix stays clean.
func compatibility(f Field, buf *Window, C, S int, probes, cond []float64, rng interface{ NormFloat64() float64 }) (float64, error) {
	B, T := buf.Batch(), buf.Frames()
	if cond != nil {
		f = f.(Conditioner).WithConditions(cond)
	}
	var total float64
	for _, sm := range probes {
		noised := buf.Clone()
		target := NewWindowLike(buf)
		level := make([]float64, B*T)
		for b := 0; b < B; b++ {
			for t := C + S; t < T; t++ {
				fr := b*T + t
				level[fr] = sm
				xf, nf, vf := buf.Frame(fr), noised.Frame(fr), target.Frame(fr)
				for i := range xf {
					eps := rng.NormFloat64()
					nf[i] = (1-sm)*xf[i] + sm*eps
					vf[i] = eps - xf[i]
				}
			}
		}
		out, err := evalChecked(f, noised, level, EvalOptions{})
		if err != nil {
			return 0, err
		}
		var sse float64
		n := 0
		for b := 0; b < B; b++ {
			for t := C + S; t < T; t++ {
				fr := b*T + t
				uf, vf := out.V.Frame(fr), target.Frame(fr)
				for i := range uf {
					d := uf[i] - vf[i]
					sse += d * d
				}
				n += len(uf)
			}
		}
		total += sse / float64(n)
	}
	return total / float64(len(probes)), nil
}
