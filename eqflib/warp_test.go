package eqflib

import (
	"errors"
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.9g, want %.9g (±%g)", what, got, want, tol)
	}
}

// reversed returns the levels in data→noise order, the order of the authors' tabulation.
func reversed(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}

func mustWarp(t *testing.T, spec string) Warp {
	t.Helper()
	w, err := ParseWarp(spec)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestCFunctionNormalisation(t *testing.T) {
	c, err := CFunctionWarp(0.8, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A_α analytic", c.A, 0.2*math.Log(200)+0.8, 1e-15)
	near(t, "A_α analytic (docs/derivations.md)", c.A, 1.859663, 5e-7)
	near(t, "ρ(1)", c.Rho(1), 0.001, 1e-15)
	near(t, "ρ(0)", c.Rho(0), 1, 0)
	near(t, "T(σ_end)", c.Time(0.001), 1, 1e-15)

	tab, err := TabulatedCFunctionWarp(0.8, 0.001, 4096)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "A_α trapezoid 4096", tab.A, 1.86065, 5e-6)
}

func TestGoldenLevelGrids(t *testing.T) {
	// Paper App. G: the c-function's open-loop levels for N = 10 (data→noise) come from the authors'
	// tabulation (trapezoid A, interpolated ρ, clamp at σ_end).
	tab, _ := TabulatedCFunctionWarp(0.8, 0.001, 4096)
	got, err := Levels(tab, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{.001, .002527, .006398, .016218, .041115, .10424, .25574, .441805, .62787, .813935, 1}
	for i, g := range reversed(got) {
		near(t, "c-trapezoid level", g, want[i], 1.5e-6)
	}
	// The analytic warp differs from that grid by < 1% and follows its closed form.
	c, _ := CFunctionWarp(0.8, 0.001)
	an, _ := Levels(c, 10)
	for i, g := range reversed(an) {
		if math.Abs(g-want[i]) > 0.01*want[i] {
			t.Errorf("analytic level %d = %g, more than 1%% from %g", i, g, want[i])
		}
	}
	near(t, "analytic ρ(0.9)", an[9], 0.2*math.Exp(-(c.A*0.9-0.8)/0.2), 1e-15)

	sd3, _ := SD3Warp(3)
	got, _ = Levels(sd3, 10)
	want = []float64{0, .25, .428571, .5625, .666667, .75, .818182, .875, .923077, .964286, 1}
	for i, g := range reversed(got) {
		near(t, "SD3 level", g, want[i], 5e-7)
	}
}

func TestEqMScaleGolden(t *testing.T) {
	sig := []float64{1, .5, .2, .1, .01, 0}
	want := []float64{4, 4, 4, 2, 0.2, 0}
	for i, s := range sig {
		near(t, "c_{4,0.8}", EqMScale(s, 4, 0.8), want[i], 1e-12)
	}
}

func TestSD3Endpoints(t *testing.T) {
	w, _ := SD3Warp(3)
	near(t, "η(1)", w.Eta(1), 1.0/3, 1e-15)
	near(t, "η(0)", w.Eta(0), 3, 1e-15)
	near(t, "ρ(0)", w.Rho(0), 1, 0)
	near(t, "ρ(1)", w.Rho(1), 0, 0)
	if w.Attractor() {
		t.Error("SD3 is a transport warp")
	}
}

// integrate is composite Simpson on [a, b] with n (even) panels.
func integrate(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

func TestWarpProperties(t *testing.T) {
	for _, spec := range []string{"identity", "sd3", "sd3:6", "c", "c:0.5:0.01", "logsnr", "logsnr:-10:8"} {
		w := mustWarp(t, spec)
		t.Run(w.Name(), func(t *testing.T) {
			// ∫_0^1 η(ρ(s)) ds = ρ(0) − ρ(1): 1 − σ_end for warps that start at σ = 1.
			got := integrate(func(s float64) float64 { return w.Eta(w.Rho(s)) }, 0, 1, 20000)
			want := w.Rho(0) - w.Rho(1)
			near(t, "∫η(ρ(s))ds", got, want, 1e-6)
			if spec != "logsnr" && spec != "logsnr:-10:8" {
				near(t, "∫η(ρ(s))ds vs 1 − σ_end", got, 1-w.SigmaEnd(), 1e-6)
			}
			near(t, "ρ(1) = σ_end", w.Rho(1), w.SigmaEnd(), 1e-12)
			near(t, "T(σ_end)", w.Time(w.SigmaEnd()+1e-300), 1, 1e-9)
			// ρ solves dρ/ds = −η(ρ), and Time inverts ρ.
			for _, s := range []float64{0.1, 0.37, 0.5, 0.8, 0.95} {
				h := 1e-6
				d := (w.Rho(s+h) - w.Rho(s-h)) / (2 * h)
				near(t, "dρ/ds + η(ρ)", d+w.Eta(w.Rho(s)), 0, 1e-5*math.Max(1, w.Eta(w.Rho(s))))
				near(t, "Time(ρ(s))", w.Time(w.Rho(s)), s, 1e-9)
			}
			// Attractors vanish at 0, transports do not.
			if w.Attractor() != (w.Eta(0) == 0) {
				t.Errorf("Attractor() = %v but η(0) = %g", w.Attractor(), w.Eta(0))
			}
			// The graph η agrees with the float64 η.
			sig := []float64{0, 0.001, 0.1, 0.2, 0.5, 0.9, 1}
			got64 := graphEval1(t, w.EtaGraph, sig)
			for i, s := range sig {
				near(t, "EtaGraph", got64[i], w.Eta(s), 1e-12)
			}
		})
	}
}

func TestLogSNRWarp(t *testing.T) {
	w, _ := LinearLogSNRWarp(-15, 15)
	near(t, "ρ(0)", w.Rho(0), 1/(1+math.Exp(-7.5)), 1e-15)
	near(t, "ρ(1)", w.Rho(1), 1/(1+math.Exp(7.5)), 1e-15)
	near(t, "λ(ρ(0.3))", LogSNR(w.Rho(0.3)), -15+0.3*30, 1e-9)
	near(t, "η(0.5)", w.Eta(0.5), 15*0.25, 1e-15)
}

func TestWarpBadInput(t *testing.T) {
	cases := []struct {
		name, param string
		err         error
	}{
		{"sd3 r=0", "r", second(SD3Warp(0))},
		{"sd3 r<0", "r", second(SD3Warp(-1))},
		{"c alpha=0", "alpha", second(CFunctionWarp(0, 0.001))},
		{"c alpha=1", "alpha", second(CFunctionWarp(1, 0.001))},
		{"c sigmaEnd=0", "sigmaEnd", second(CFunctionWarp(0.8, 0))},
		{"c sigmaEnd=1", "sigmaEnd", second(CFunctionWarp(0.8, 1))},
		{"c sigmaEnd<0", "sigmaEnd", second(CFunctionWarp(0.8, -0.1))},
		{"c-tab points", "points", second(TabulatedCFunctionWarp(0.8, 0.001, 1))},
		{"logsnr min=max", "lambdaMin", second(LinearLogSNRWarp(3, 3))},
		{"logsnr min>max", "lambdaMin", second(LinearLogSNRWarp(5, -5))},
		{"levels N=0", "N", second(Levels(IdentityWarp(), 0))},
		{"parse", "warp", second(ParseWarp("cosine"))},
		{"parse args", "warp", second(ParseWarp("sd3:x"))},
	}
	for _, c := range cases {
		assertParamErr(t, c.name, c.err, c.param)
	}
}

func second[T any](_ T, err error) error { return err }

func assertParamErr(t *testing.T, name string, err error, param string) {
	t.Helper()
	var pe *ParamError
	if !errors.As(err, &pe) {
		t.Errorf("%s: got %v, want a *ParamError naming %q", name, err, param)
		return
	}
	if pe.Param != param {
		t.Errorf("%s: error names %q, want %q (%v)", name, pe.Param, param, err)
	}
}
