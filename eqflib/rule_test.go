package eqflib

import (
	"errors"
	"math"
	"testing"
)

// Every rule run as a window sampler and run by rolling inference over one window (no context,
// stride = horizon, so the rollout denoises the same noise in one chunk) takes the same steps:
// the same step sizes and σ̂ at every step, and bit-identical frames at the end.
func TestRulesWindowAgreesWithRolling(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 16)
	diff, _ := NewOracle(data, OracleDiffusion)
	c := mustWarp(t, "c")
	const N, B, T = 12, 3, 2
	cases := []struct {
		name string
		f    Field
		rule Rule
		o    Options
	}{
		{"euler open", fm, Euler, Options{Warp: c}},
		{"euler closed", fm, Euler, Options{ClosedLoop: true, Estimator: fm}},
		{"gd open", eqf, GD, Options{Warp: c}},
		{"gd closed", eqf, GD, Options{Warp: c, ClosedLoop: true}},
		{"gd fixed step", eqf, GD, Options{StepSize: 0.05}},
		{"nag closed", eqf, NAG, Options{Warp: c, ClosedLoop: true, Momentum: 0.3}},
		{"nag open", eqf, NAG, Options{Warp: c, Momentum: 0.5}},
		{"lgd closed", eqf, LGD, Options{Warp: c, ClosedLoop: true, Momentum: 0.3}},
		{"budget", eqf, Budget, Options{Momentum: 0.3}},
		{"earlystop", eqf, EarlyStop, Options{Warp: c, Momentum: 0.3, SigmaThresh: 0.3, Cleanup: 2}},
		{"ddim", diff, DDIM, Options{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x0, _ := Randn(NewRNG(7), B, T, 16, 1, 1)
			o := tc.o
			o.Steps = N
			win, err := sampleWindow(tc.rule, tc.f, x0, o)
			if err != nil {
				t.Fatal(err)
			}
			roll, err := Roll(tc.f, x0, RollOptions{RollConfig: RollConfig{Horizon: T, Stride: T, Depth: N},
				Sampler: FrameSampler{Sampler: tc.rule, Options: tc.o}, Frames: T, Seed: 7, KeepTrace: true})
			if err != nil {
				t.Fatal(err)
			}
			if win.NFE != roll.NFE || len(win.Trace) != len(roll.Trace) {
				t.Fatalf("window NFE %d (%d steps), rolling NFE %d (%d steps)", win.NFE, len(win.Trace), roll.NFE, len(roll.Trace))
			}
			if tc.rule != EarlyStop && win.NFE != N {
				t.Fatalf("NFE %d, want N = %d", win.NFE, N)
			}
			for i, w := range win.Trace {
				r := roll.Trace[i]
				for fr := range w.StepSize {
					if w.StepSize[fr] != r.StepSize[fr] || (w.StepSize[fr] != 0) != r.Active[fr] {
						t.Fatalf("step %d frame %d: window step size %v, rolling %v (active %v)", i, fr, w.StepSize[fr], r.StepSize[fr], r.Active[fr])
					}
					if (w.SigmaHat == nil) != (r.SigmaHat == nil) || (w.SigmaHat != nil && w.SigmaHat[fr] != r.SigmaHat[fr]) {
						t.Fatalf("step %d frame %d: σ̂ window %v, rolling %v", i, fr, w.SigmaHat, r.SigmaHat)
					}
				}
			}
			for i, v := range win.X.Data {
				if v != roll.Frames.Data[i] {
					t.Fatalf("entry %d: window %v, rolling %v", i, v, roll.Frames.Data[i])
				}
			}
			if win.X.HasNaN() {
				t.Fatal("NaN in the result")
			}
		})
	}
	if len(cases) < len(Rules)+4 {
		t.Fatalf("%d cases do not cover the %d rules", len(cases), len(Rules))
	}
}

func TestParseSampler(t *testing.T) {
	fs, err := ParseSampler("nag:0.3,closed,warp=c:0.8:0.001")
	if err != nil {
		t.Fatal(err)
	}
	if fs.Sampler != NAG || fs.Momentum != 0.3 || !fs.ClosedLoop || fs.Warp == nil || fs.Warp.Name() == "identity" {
		t.Errorf("nag:0.3,closed,warp=c: got %v", fs)
	}
	if got := fs.String(); got != "nag(Warp="+fs.Warp.Name()+", ClosedLoop, Momentum=0.3)" {
		t.Errorf("String() = %q", got)
	}
	fs, err = ParseSampler("earlystop,mu=0.2,thresh=0.1,cleanup=3,depth=20")
	if err != nil || fs.Sampler != EarlyStop || fs.Momentum != 0.2 || fs.SigmaThresh != 0.1 || fs.Cleanup != 3 || fs.Depth != 20 {
		t.Errorf("earlystop: %v, %v", fs, err)
	}
	for name, r := range Rules {
		if fs, err := ParseSampler(name); err != nil || fs.Sampler != r || r.Name() != name {
			t.Errorf("%s: %v, %v", name, fs.Sampler, err)
		}
	}
	for spec, param := range map[string]string{
		"heun":            "sampler",
		"nag:x":           "sampler mu",
		"nag:NaN":         "sampler mu",
		"gd:0.3":          "Options.Momentum", // GD reads no momentum
		"ddim,closed":     "Options.ClosedLoop",
		"nag,cleanup=1.5": "sampler cleanup",
		"nag,foo=1":       "sampler key",
		"nag,warp=zz":     "warp",
		"nag,closed=mayb": "sampler closed",
	} {
		_, err := ParseSampler(spec)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != param {
			t.Errorf("ParseSampler(%q): %v, want a ParamError naming %q", spec, err, param)
		}
	}
	var zero FrameSampler
	if err := zero.validate(eqf1(t)); err == nil {
		t.Error("a FrameSampler without a rule validated")
	}
}

func eqf1(t *testing.T) Field {
	_, _, _, eqf := gaussianOracles(t, 2)
	return eqf
}

// Closed loop on g_φ instead of h_ω (closed-loop FM, paper §3 and the FM conditioning ablation):
// GD and NAG read the estimator's σ̃ at the look-ahead, feed it to the field and step by
// η(σ̃)/N. With the identity warp GD on σ̃ is closed-loop Euler (Δσ = 1/N); NAG on σ̃ samples the
// data; rolling inference records the estimate and no σ̂.
func TestClosedLoopOnEstimator(t *testing.T) {
	_, mean, fm, _ := gaussianOracles(t, 16)
	x0, _ := Randn(NewRNG(4), 400, 1, 16, 1, 1)
	euler, err := SampleEuler(fm, x0, Options{Steps: 20, ClosedLoop: true, Estimator: fm})
	if err != nil {
		t.Fatal(err)
	}
	gd, err := SampleGD(fm, x0, Options{Steps: 20, ClosedLoop: true, Estimator: fm})
	if err != nil {
		t.Fatal(err)
	}
	var d float64
	for i := range gd.X.Data {
		d = math.Max(d, math.Abs(gd.X.Data[i]-euler.X.Data[i]))
	}
	if d > 1e-9 {
		t.Errorf("GD on σ̃ (identity warp) differs from closed-loop Euler by %.3g", d)
	}
	// NAG on σ̃: the estimator sees the look-ahead x − μ m (at step 1, x₀ − (1 + μ)(x₀ − x₁)), and
	// its estimate is the level fed and stepped on; no readout is read.
	rec := &recordingEstimator{NoiseEstimator: fm}
	var x1 *Window
	const mu = 0.3
	nag, err := SampleNAG(fm, x0, Options{Steps: 20, Warp: mustWarp(t, "c"), ClosedLoop: true, Estimator: rec, Momentum: mu,
		Callback: func(s StepInfo) {
			if s.Step == 0 {
				x1 = s.X.Clone()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if nag.SigmaHat != nil || nag.Trace[0].SigmaHat != nil || len(rec.in) != 20 {
		t.Fatalf("NAG on σ̃: σ̂ %v, %d estimator calls: want no readout and 20 calls", nag.SigmaHat, len(rec.in))
	}
	for i, st := range nag.Trace {
		for fr := range st.Level {
			if st.Level[fr] != rec.out[i][fr] {
				t.Fatalf("step %d frame %d: level %v, estimate %v", i, fr, st.Level[fr], rec.out[i][fr])
			}
		}
	}
	for j, v := range rec.in[1].Data {
		if want := x0.Data[j] - (1+mu)*(x0.Data[j]-x1.Data[j]); math.Abs(v-want) > 1e-12 {
			t.Fatalf("step 1: the estimator saw %v at %d, want the look-ahead %v", v, j, want)
		}
	}
	meanErr, _, varRatio := sampleStats(nag.X, mean, 0.5)
	t.Logf("FM NAG μ = 0.3 on g_φ (c warp, N = 20): mean error %.3f, variance ratio %.3f", meanErr, varRatio)
	ctx, _ := Randn(NewRNG(5), 2, 2, 16, 1, 1)
	r, err := Roll(fm, ctx, RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 6}, Frames: 2, KeepTrace: true,
		Sampler: FrameSampler{Sampler: NAG, Options: Options{ClosedLoop: true, Estimator: fm, Momentum: 0.3}}})
	if err != nil {
		t.Fatal(err)
	}
	if st := r.Trace[len(r.Trace)-1]; st.Estimate == nil || st.SigmaHat != nil || st.Level[0] != st.Estimate[0] {
		t.Errorf("rolling NAG on g_φ: estimate %v, σ̂ %v, level %v", st.Estimate, st.SigmaHat, st.Level)
	}
}

// recordingEstimator keeps what a NoiseEstimator was asked and answered.
type recordingEstimator struct {
	NoiseEstimator
	in  []*Window
	out [][]float64
}

func (r *recordingEstimator) EstimateSigma(x *Window) ([]float64, error) {
	v, err := r.NoiseEstimator.EstimateSigma(x)
	r.in, r.out = append(r.in, x.Clone()), append(r.out, v)
	return v, err
}
