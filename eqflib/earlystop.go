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
func SampleEarlyStopping(f Field, x0 *Window, opts Options) (*Result, error) {
	return EarlyStop.Sample(f, x0, opts)
}

// earlyStopRule: a frame is in the adaptive phase while its chunk's largest σ̂ exceeds
// σ_thresh (and its adaptive steps last), then takes C_s cleanup steps, then is done. The frames
// of a chunk (a window sampler's batch element; rolling inference's S-frame group) stop together.
type earlyStopRule struct{ noPrepare }

func (earlyStopRule) name() string { return "earlystop" }
func (earlyStopRule) reads() []string {
	return []string{"Warp", "ClosedLoop", "Momentum", "SigmaThresh", "Cleanup"}
}
func (earlyStopRule) momentum(o *Options) (float64, float64) { return o.Momentum, o.Momentum }
func (earlyStopRule) readout(*Options) bool                  { return true }
func (earlyStopRule) check(f Field, o *Options) error {
	if err := needReadout(f, "adaptive early stopping"); err != nil {
		return err
	}
	if !(o.SigmaThresh >= 0 && o.SigmaThresh <= 1) {
		return paramErr("Options.SigmaThresh", o.SigmaThresh, "in [0, 1]")
	}
	if o.Cleanup < 1 {
		return paramErr("Options.Cleanup", o.Cleanup, "≥ 1 (C_s cleanup steps)")
	}
	return nil
}

// phase is 0 adaptive, 1 cleanup, 2 done.
func (earlyStopRule) phase(r *runParams, st *frameState) int {
	switch {
	case st.steps < r.maxSteps && st.maxHat > r.o.SigmaThresh && st.cleanup == 0:
		return 0
	case st.cleanup < r.o.Cleanup:
		return 1
	}
	return 2
}

func (e earlyStopRule) plan(r *runParams, st *frameState) plan {
	p := fixedPlan(r.level(st.steps), 0)
	p.levelFromSigmaHat = true
	if e.phase(r, st) == 0 {
		p.betaForm, p.betaArg = betaEta, float64(r.n)
	} else {
		p.betaForm, p.betaArg = betaHat, float64(r.o.Cleanup-min(st.cleanup, r.o.Cleanup-1))
	}
	return p
}

func (e earlyStopRule) done(r *runParams, st *frameState) bool { return e.phase(r, st) == 2 }

func (e earlyStopRule) advance(r *runParams, st *frameState) {
	if e.phase(r, st) == 1 {
		st.cleanup++
	} else {
		st.steps++
	}
}

// settle sets, for every chunk whose frames took an adaptive step, the chunk's largest σ̂ (the
// stopping trigger) on each of its frames still in the adaptive phase.
func (earlyStopRule) settle(_ *runParams, states []frameState, chunk []int, fixed []bool, T int, sigmaHat []float64, moved []bool) {
	for b := 0; b < len(states)/T; b++ {
		mx := map[int]float64{}
		adaptive := map[int]bool{}
		for t := 0; t < T; t++ {
			fr := b*T + t
			if fixed[t] || !moved[fr] || states[fr].cleanup > 0 {
				continue
			}
			q := chunk[t]
			adaptive[q] = true
			mx[q] = math.Max(mx[q], sigmaHat[fr])
		}
		for t := 0; t < T; t++ {
			fr := b*T + t
			if !fixed[t] && adaptive[chunk[t]] && states[fr].cleanup == 0 {
				states[fr].maxHat = mx[chunk[t]]
			}
		}
	}
}
