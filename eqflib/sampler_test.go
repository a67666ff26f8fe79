package eqflib

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// lineField is a test double with an exact readout: the data is the single point m, and a
// sample started at ε₀ stays on the line x = (1−σ)m + σε₀, where v = ε₀ − m exactly and σ is
// recovered by projection onto ε₀ − m.
type lineField struct{ m, eps []float64 }

func (l *lineField) Info() FieldInfo { return FieldInfo{Name: "line", HasReadout: true} }
func (l *lineField) Eval(x *Window, _ []float64, o EvalOptions) (*Output, error) {
	out := &Output{V: NewWindowLike(x)}
	if o.Readout {
		out.SigmaHat = make([]float64, x.NumFrames())
	}
	for f := 0; f < x.NumFrames(); f++ {
		var num, den float64
		for i, xi := range x.Frame(f) {
			v := l.eps[i] - l.m[i]
			out.V.Frame(f)[i] = v
			num += (xi - l.m[i]) * v
			den += v * v
		}
		if o.Readout {
			out.SigmaHat[f] = num / den
		}
	}
	return out, nil
}

func TestBudgetAdaptivePerfectReadout(t *testing.T) {
	rng := NewRNG(21)
	x0, _ := Randn(rng, 1, 1, 32, 1, 1)
	m := make([]float64, 32)
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	f := &lineField{m: m, eps: x0.Data}
	var levels []float64
	res, err := SampleBudgetAdaptive(f, x0, Options{Steps: 4, Callback: func(s StepInfo) {
		out, _ := f.Eval(s.X, nil, EvalOptions{Readout: true})
		levels = append(levels, out.SigmaHat[0])
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{.75, .5, .25, 0}
	for i, w := range want {
		near(t, "level after step", levels[i], w, 1e-12)
		near(t, "σ̂ read at step", res.Trace[i].SigmaHat[0], 1-0.25*float64(i), 1e-12)
	}
	for i, xi := range res.X.Data {
		near(t, "final sample = data point", xi, m[i], 1e-12)
	}
	if res.NFE != 4 || len(res.Trace) != 4 {
		t.Errorf("NFE = %d, trace %d, want 4", res.NFE, len(res.Trace))
	}
}

func gaussianOracles(t *testing.T, d int) (data *Mixture, mean []float64, fm, eqf *Oracle) {
	t.Helper()
	rng := NewRNG(1)
	mean = make([]float64, d)
	for i := range mean {
		mean[i] = rng.NormFloat64()
	}
	data, err := NewGaussian(mean, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	fm, _ = NewOracle(data, OracleFM)
	eqf, _ = NewOracle(data, OracleEqF)
	return data, mean, fm, eqf
}

func TestNAGWithZeroMomentumIsGD(t *testing.T) {
	_, _, _, eqf := gaussianOracles(t, 64)
	x0, _ := Randn(NewRNG(2), 8, 2, 64, 1, 1)
	for _, spec := range []string{"identity", "c", "sd3", "logsnr"} {
		for _, closed := range []bool{false, true} {
			o := Options{Steps: 30, Warp: mustWarp(t, spec), ClosedLoop: closed}
			gd, err := SampleGD(eqf, x0, o)
			if err != nil {
				t.Fatal(err)
			}
			nag, _ := SampleNAG(eqf, x0, o)
			lgd, _ := SampleLGD(eqf, x0, o)
			for i := range gd.X.Data {
				if gd.X.Data[i] != nag.X.Data[i] || gd.X.Data[i] != lgd.X.Data[i] {
					t.Fatalf("%s closed=%v: GD %v, NAG(μ=0) %v, LGD(μ=0) %v at %d", spec, closed, gd.X.Data[i], nag.X.Data[i], lgd.X.Data[i], i)
				}
			}
			// and momentum changes the result
			o.Momentum = 0.3
			nag3, _ := SampleNAG(eqf, x0, o)
			if nag3.X.Data[0] == gd.X.Data[0] {
				t.Errorf("%s: NAG with μ = 0.3 equals GD", spec)
			}
		}
	}
}

func TestEarlyStoppingSavesEvaluations(t *testing.T) {
	_, mean, _, eqf := gaussianOracles(t, 64)
	x0, _ := Randn(NewRNG(3), 300, 1, 64, 1, 1)
	c := mustWarp(t, "c")
	prev := math.Inf(1)
	var first, last float64
	for i, th := range []float64{0, 0.1, 0.2, 0.3, 0.5, 0.7} {
		res, err := SampleEarlyStopping(eqf, x0, Options{Steps: 100, Warp: c, SigmaThresh: th, Cleanup: 8})
		if err != nil {
			t.Fatal(err)
		}
		var nfe float64
		for _, n := range res.NFEPerSample {
			nfe += float64(n) / float64(len(res.NFEPerSample))
		}
		_, slope, v := sampleStats(res.X, mean, 0.5)
		t.Logf("σ_thresh=%.1f  mean NFE %.1f  slope %.4f  var/s² %.4f", th, nfe, slope, v)
		if nfe > prev {
			t.Errorf("NFE rose from %.1f to %.1f at σ_thresh = %g", prev, nfe, th)
		}
		if i == 0 {
			first = nfe
			near(t, "fixed budget N + C_s at σ_thresh = 0", nfe, 108, 1e-9)
		}
		prev, last = nfe, nfe
	}
	if last > 0.6*first {
		t.Errorf("σ_thresh = 0.7 used %.1f evaluations, not far below %.1f", last, first)
	}
}

// NAG needs an attractor: on the c-function it settles, on SD3 (η(0) = r) it overshoots the
// data (sample means past the true means) and keeps moving.
func TestNAGAttractorVersusSD3(t *testing.T) {
	_, mean, _, eqf := gaussianOracles(t, 64)
	x0, _ := Randn(NewRNG(4), 500, 1, 64, 1, 1)
	measure := func(spec string) (overshoot, lastMove float64) {
		var prev *Window
		res, err := SampleNAG(eqf, x0, Options{Steps: 100, Warp: mustWarp(t, spec), ClosedLoop: true, Momentum: 0.3,
			Callback: func(s StepInfo) {
				if s.Step == 98 {
					prev = s.X.Clone()
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		_, slope, _ := sampleStats(res.X, mean, 0.5)
		var mv float64
		for i, v := range res.X.Data {
			mv += (v - prev.Data[i]) * (v - prev.Data[i])
		}
		return slope - 1, math.Sqrt(mv / float64(len(res.X.Data)))
	}
	oc, mc := measure("c")
	os, ms := measure("sd3")
	t.Logf("NAG μ=0.3 closed loop, N=100: c-function overshoot %.4f last move %.2e; SD3 overshoot %.4f last move %.2e", oc, mc, os, ms)
	if !(os > 10*math.Abs(oc)) {
		t.Errorf("SD3 overshoot %.4f not well above the c-function's %.4f", os, oc)
	}
	// Measured 79× (4.0e-4 vs 3.2e-2); the final multipliers alone differ by η(0.001)/η_SD3(0) ≈ 300×.
	if !(mc < ms/20) {
		t.Errorf("c-function's last step %.2e not far below SD3's %.2e", mc, ms)
	}
}

func TestSamplerTraceAndCallback(t *testing.T) {
	_, _, _, eqf := gaussianOracles(t, 16)
	x0, _ := Randn(NewRNG(5), 2, 3, 16, 1, 1)
	orig := x0.Clone()
	calls := 0
	res, err := SampleNAG(eqf, x0, Options{Steps: 7, Warp: mustWarp(t, "c"), ClosedLoop: true, Momentum: 0.2,
		Callback: func(s StepInfo) {
			if s.Step != calls || s.NFE != calls+1 || len(s.SigmaHat) != 6 || len(s.StepSize) != 6 || s.X == nil {
				t.Errorf("callback %d: %+v", calls, s)
			}
			calls++
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 7 || len(res.Trace) != 7 || res.NFE != 7 || res.Trace[3].X != nil {
		t.Errorf("calls %d, trace %d, NFE %d", calls, len(res.Trace), res.NFE)
	}
	for i := range orig.Data {
		if orig.Data[i] != x0.Data[i] {
			t.Fatal("sampler modified its input")
		}
	}
}

// panicField panics inside Eval, like a GoMLX graph that fails to build.
type panicField struct{}

func (panicField) Info() FieldInfo {
	return FieldInfo{Name: "panics", HasReadout: true, Diffusion: true}
}
func (panicField) Eval(*Window, []float64, EvalOptions) (*Output, error) {
	panic("graph build failed")
}

// shortField returns a velocity of the wrong shape.
type shortField struct{}

func (shortField) Info() FieldInfo { return FieldInfo{Name: "short"} }
func (shortField) Eval(x *Window, _ []float64, _ EvalOptions) (*Output, error) {
	return &Output{V: MustNewWindow(1, 1, 1, 1, 1)}, nil
}

func TestSamplerBadInput(t *testing.T) {
	_, _, fm, eqf := gaussianOracles(t, 4)
	x := MustNewWindow(1, 1, 4, 1, 1)
	for name, rule := range Rules {
		s := rule.Sample
		assertParamErr(t, name+" steps", second(s(eqf, x, Options{Steps: 0})), "Options.Steps")
		assertParamErr(t, name+" momentum 1", second(s(eqf, x, Options{Steps: 2, Momentum: 1})), "Options.Momentum")
		assertParamErr(t, name+" momentum < 0", second(s(eqf, x, Options{Steps: 2, Momentum: -0.1})), "Options.Momentum")
		assertParamErr(t, name+" nil field", second(s(nil, x, Options{Steps: 2})), "f")
		assertParamErr(t, name+" bad window", second(s(eqf, &Window{Shape: [5]int{1, 1, 4, 1, 1}}, Options{Steps: 2})), "x.Data")
		opts := Options{Steps: 2, ClosedLoop: name != "ddim"}
		switch name {
		case "euler":
			opts.Estimator = fm
		case "earlystop":
			opts.Cleanup = 1
		}
		_, err := s(panicField{}, x, opts)
		if err == nil || !strings.Contains(err.Error(), "graph build failed") {
			t.Errorf("%s: a panicking field gave %v", name, err)
		}
	}
	noReadout := &Oracle{Data: eqf.Data, Kind: OracleEqF}
	_ = noReadout
	var mr *MissingReadoutError
	if err := second(SampleGD(shortField{}, x, Options{Steps: 2, ClosedLoop: true})); !errors.As(err, &mr) || mr.Why != "closed-loop GD" {
		t.Errorf("gd closed, no readout: %v, want a MissingReadoutError", err)
	}
	if err := second(SampleBudgetAdaptive(shortField{}, x, Options{Steps: 2})); !errors.As(err, &mr) || !strings.Contains(err.Error(), "h_ω") {
		t.Errorf("budget, no readout: %v, want a MissingReadoutError", err)
	}
	// An option a sampler does not read is an error naming it, never silently dropped.
	for _, c := range []struct {
		name    string
		s       SamplerFunc
		opts    Options
		unread  string
		sampler string
	}{
		{"gd momentum", SampleGD, Options{Steps: 2, Momentum: 0.3}, "Options.Momentum", "gd"},
		{"euler step size", SampleEuler, Options{Steps: 2, StepSize: 0.1}, "Options.StepSize", "euler"},
		{"nag cleanup", SampleNAG, Options{Steps: 2, Cleanup: 3}, "Options.Cleanup", "nag"},
		{"budget warp", SampleBudgetAdaptive, Options{Steps: 2, Warp: IdentityWarp()}, "Options.Warp", "budget"},
		{"ddim warp", SampleDDIM, Options{Steps: 2, Warp: IdentityWarp()}, "Options.Warp", "ddim"},
		{"earlystop estimator", SampleEarlyStopping, Options{Steps: 2, Cleanup: 2, Estimator: fm}, "Options.Estimator", "earlystop"},
	} {
		err := second(c.s(eqf, x, c.opts))
		assertParamErr(t, c.name, err, c.unread)
		if err != nil && !strings.Contains(err.Error(), `"`+c.sampler+`" does not read it`) {
			t.Errorf("%s: %v does not say the sampler ignores it", c.name, err)
		}
	}
	assertParamErr(t, "wrong output shape", second(SampleGD(shortField{}, x, Options{Steps: 2})), "Field.Eval output V.Shape")
	assertParamErr(t, "euler closed, no estimator", second(SampleEuler(fm, x, Options{Steps: 2, ClosedLoop: true})), "Options.Estimator")
	assertParamErr(t, "early thresh", second(SampleEarlyStopping(eqf, x, Options{Steps: 2, Cleanup: 2, SigmaThresh: 1.5})), "Options.SigmaThresh")
	assertParamErr(t, "early cleanup", second(SampleEarlyStopping(eqf, x, Options{Steps: 2})), "Options.Cleanup")
	assertParamErr(t, "ddim field", second(SampleDDIM(fm, x, Options{Steps: 2})), "f")
	assertParamErr(t, "ddim steps", second(SampleDDIM(&Oracle{Data: eqf.Data, Kind: OracleDiffusion, Schedule: DefaultDiffusion()}, x, Options{Steps: 2000})), "N")
	assertParamErr(t, "step size", second(SampleNAG(eqf, x, Options{Steps: 2, StepSize: -1})), "Options.StepSize")
	assertParamErr(t, "sampler name", second(RuleByName("heun")), "sampler")
	assertParamErr(t, "zero rule", second(Rule{}.Sample(eqf, x, Options{Steps: 2})), "Rule")
}

// nanField is an oracle that returns NaN in one frame's velocity from its n-th evaluation on.
type nanField struct {
	Field
	n, calls, frame int
}

func (f *nanField) Eval(x *Window, level []float64, opts EvalOptions) (*Output, error) {
	out, err := f.Field.Eval(x, level, opts)
	if err != nil {
		return nil, err
	}
	f.calls++
	if f.calls >= f.n {
		out.V.Frame(f.frame)[0] = math.NaN()
	}
	return out, nil
}

// A field that returns NaN stops every sampler and the rolling engine with the step and frame.
func TestSamplersStopOnNaN(t *testing.T) {
	_, _, fm, eqf := gaussianOracles(t, 4)
	x := MustNewWindow(2, 3, 4, 1, 1) // flat frame 4 = batch element 1, frame 1
	for name, s := range map[string]SamplerFunc{"euler": SampleEuler, "gd": SampleGD, "nag": SampleNAG} {
		base := Field(eqf)
		if name == "euler" {
			base = fm
		}
		res, err := s(&nanField{Field: base, n: 3, frame: 4}, x, Options{Steps: 10})
		var nf *NonFiniteError
		if !errors.As(err, &nf) || nf.Step != 3 || nf.Batch != 1 || nf.Frame != 1 || nf.What != "velocity" || res != nil {
			t.Errorf("%s: %v (%+v), want a NonFiniteError at step 3, batch element 1, frame 1", name, err, nf)
		}
	}
	// Rolling: C = 1, H = 2, S = 1; window position 2 of batch element 0 is flat frame 2.
	ctx := MustNewWindow(1, 1, 4, 1, 1)
	_, err := Roll(&nanField{Field: eqf, n: 5, frame: 2}, ctx, RollOptions{RollConfig: RollConfig{Context: 1, Horizon: 2, Stride: 1, Depth: 2},
		Sampler: FrameSampler{Sampler: GD}, Frames: 6})
	var nf *NonFiniteError
	// After the bake-in (evaluation 1) every evaluation emits a frame: at evaluation 5 the
	// window's last position holds rollout frame 4.
	if !errors.As(err, &nf) || nf.Step != 5 || nf.Batch != 0 || nf.Frame != 4 {
		t.Fatalf("rollout: %v, want a NonFiniteError at evaluation 5, rollout frame 4", err)
	}
	t.Logf("rollout: %v", err)
}

// Rule.Sample is the named window sampler, bit for bit; NeedsReadout says which configurations
// read h_ω's σ̂.
func TestRuleSampleIsTheSampler(t *testing.T) {
	_, _, fm, eqf := gaussianOracles(t, 4)
	x, _ := Randn(NewRNG(3), 2, 2, 4, 1, 1)
	named := map[string]SamplerFunc{"euler": SampleEuler, "gd": SampleGD, "nag": SampleNAG, "lgd": SampleLGD,
		"budget": SampleBudgetAdaptive, "earlystop": SampleEarlyStopping, "ddim": SampleDDIM}
	if len(named) != len(Rules) {
		t.Fatalf("%d rules, %d named samplers", len(Rules), len(named))
	}
	for name, rule := range Rules {
		f, opts := Field(eqf), Options{Steps: 4}
		switch name {
		case "euler":
			f = fm
		case "ddim":
			f = &Oracle{Data: eqf.Data, Kind: OracleDiffusion, Schedule: DefaultDiffusion()}
		case "earlystop":
			opts.Cleanup, opts.SigmaThresh = 1, 0.2
		}
		got, err1 := rule.Sample(f, x, opts)
		want, err2 := named[name](f, x, opts)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v / %v", name, err1, err2)
		}
		if maxAbsDiff(got.X.Data, want.X.Data) != 0 || got.NFE != want.NFE {
			t.Errorf("%s: Rule.Sample differs from the named sampler", name)
		}
	}
	for spec, want := range map[string]bool{"nag:0.3,closed": true, "nag:0.3": false, "gd,closed": true, "gd": false,
		"euler": false, "budget:0.1": true, "earlystop:0.3,thresh=0.2,cleanup=2": true, "ddim": false} {
		fs, err := ParseSampler(spec)
		if err != nil {
			t.Fatal(err)
		}
		if fs.NeedsReadout() != want {
			t.Errorf("%s: NeedsReadout %v, want %v", spec, fs.NeedsReadout(), want)
		}
	}
}
