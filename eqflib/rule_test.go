package eqflib

import (
	"errors"
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
