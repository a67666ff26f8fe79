package eqflib

// SampleDDIM is deterministic DDIM for the Diffusion baseline (a Field with Info().Diffusion,
// predicting v at diffusion time t). From timestep k to the next k' (−1 meaning clean data),
// with ᾱ = ᾱ_k and ᾱ' = ᾱ_{k'} (1 for k' = −1):
//
//	x̂ = √ᾱ z − √(1−ᾱ) v̂,   ε̂ = √ᾱ v̂ + √(1−ᾱ) z,   z ← √ᾱ' x̂ + √(1−ᾱ') ε̂.
//
// Timesteps follow Schedule.DDIMTimesteps(Steps); the trace's StepSize is the noise std removed,
// √(1−ᾱ) − √(1−ᾱ'). Reads Steps, Schedule, Callback.
func SampleDDIM(f Field, x0 *Window, opts Options) (*Result, error) {
	return sampleWindow(DDIM, f, x0, opts)
}

// ddimRule writes the DDIM step as the loop's affine update: with a = √ᾱ, s = √(1−ᾱ) and a', s'
// at the next timestep, z ← (a'a + s's) z − (a's − s'a) v̂, so α = a'a + s's and β = a's − s'a.
// The field is fed the diffusion time; the recorded σ is the FM-equivalent s/(a + s).
type ddimRule struct{ stepsDone }

func (ddimRule) name() string                         { return "ddim" }
func (ddimRule) reads() []string                      { return []string{"Schedule"} }
func (ddimRule) momentum(*Options) (float64, float64) { return 0, 0 }
func (ddimRule) readout(*Options) bool                { return false }
func (ddimRule) check(f Field, _ *Options) error {
	if !f.Info().Diffusion {
		return paramErr("f", f.Info().Name, "a Diffusion field (Info().Diffusion) for DDIM")
	}
	return nil
}

func (ddimRule) prepare(r *runParams) (err error) {
	r.sched = r.o.Schedule
	if r.sched == nil {
		r.sched = DefaultDiffusion()
	}
	r.ks, err = r.sched.DDIMTimesteps(r.n)
	return err
}

func (ddimRule) plan(r *runParams, st *frameState) plan {
	c := st.steps
	if c >= r.n || r.ks[c] < 0 { // clean: time 0, nothing to move
		return fixedPlan(0, 0)
	}
	t := r.sched.Time(r.ks[c])
	a, s := r.sched.AlphaSigma(t)
	an, sn := 1.0, 0.0
	if r.ks[c+1] >= 0 {
		an, sn = r.sched.AlphaSigma(r.sched.Time(r.ks[c+1]))
	}
	p := fixedPlan(t, an*s-sn*a)
	p.sched, p.alpha, p.size = s/(a+s), an*a+sn*s, s-sn
	return p
}
