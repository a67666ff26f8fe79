package eqflib

import (
	"math"
	"testing"
)

// testMixture is a fixed K-component mixture in d dimensions with distinct means and stds.
func testMixture(t *testing.T, d, k int) *Mixture {
	t.Helper()
	rng := NewRNG(uint64(100*d + k))
	w := make([]float64, k)
	means := make([][]float64, k)
	stds := make([]float64, k)
	for i := range w {
		w[i] = 1 + float64(i)
		means[i] = make([]float64, d)
		for j := range means[i] {
			means[i][j] = 1.5 * rng.NormFloat64()
		}
		stds[i] = 0.3 + 0.2*float64(i)
	}
	m, err := NewMixture(w, means, stds)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// logDensity is log p_σ(z) for z = a·x + b·ε with x from the mixture, computed directly.
func logDensity(m *Mixture, z []float64, a, b float64) float64 {
	var terms []float64
	for k := range m.Weights {
		kappa := a*a*m.Stds[k]*m.Stds[k] + b*b
		var rr float64
		for i := range z {
			r := z[i] - a*m.Means[k][i]
			rr += r * r
		}
		terms = append(terms, math.Log(m.Weights[k])-0.5*float64(len(z))*math.Log(2*math.Pi*kappa)-0.5*rr/kappa)
	}
	mx := math.Inf(-1)
	for _, v := range terms {
		mx = math.Max(mx, v)
	}
	var s float64
	for _, v := range terms {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}

// tweedieTarget returns E[te·ε + ta·x | z] by Tweedie's formula, E[ε | z] = −b·∇log p(z), with
// the gradient taken by central finite differences of logDensity: an independent route to
// the oracle's closed form.
func tweedieTarget(m *Mixture, z []float64, a, b, te, ta float64) []float64 {
	h := 1e-5
	out := make([]float64, len(z))
	for i := range z {
		zp := append([]float64(nil), z...)
		zm := append([]float64(nil), z...)
		zp[i] += h
		zm[i] -= h
		grad := (logDensity(m, zp, a, b) - logDensity(m, zm, a, b)) / (2 * h)
		eEps := -b * grad
		eX := (z[i] - b*eEps) / a
		out[i] = te*eEps + ta*eX
	}
	return out
}

func TestOracleFMAndDiffusionMatchTweedie(t *testing.T) {
	m := testMixture(t, 3, 2)
	fm, _ := NewOracle(m, OracleFM)
	dif, _ := NewOracle(m, OracleDiffusion)
	rng := NewRNG(8)
	for _, sigma := range []float64{0.05, 0.3, 0.6, 0.9} {
		z, _ := Randn(rng, 1, 1, 3, 1, 1)
		out, err := fm.Eval(z, []float64{sigma}, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := tweedieTarget(m, z.Data, 1-sigma, sigma, 1, -1)
		for i := range want {
			near(t, "f*_FM", out.V.Data[i], want[i], 1e-6*(1+math.Abs(want[i])))
		}
		tt := sigma // a diffusion time
		out, _ = dif.Eval(z, []float64{tt}, EvalOptions{})
		a, b := dif.Schedule.AlphaSigma(tt)
		want = tweedieTarget(m, z.Data, a, b, a, -b)
		for i := range want {
			near(t, "v*_DDPM", out.V.Data[i], want[i], 1e-6*(1+math.Abs(want[i])))
		}
	}
}

// The EqF oracle equals the FM oracle averaged over p(σ | x) computed by brute force on a dense
// uniform grid (independent of the adaptive Gauss–Legendre quadrature).
func TestOracleEqFMatchesBruteForce(t *testing.T) {
	for _, d := range []int{3, 40, 1024} {
		m := testMixture(t, d, 2)
		fm, _ := NewOracle(m, OracleFM)
		eqf, _ := NewOracle(m, OracleEqF)
		eqm, _ := NewOracle(m, OracleEqM)
		rng := NewRNG(12)
		x, _ := m.Sample(rng, 1, 1, d, 1, 1)
		eps, _ := Randn(rng, 1, 1, d, 1, 1)
		for _, sigma := range []float64{0.0005, 0.001, 0.002, 0.02, 0.4, 0.85} {
			z, _ := Noise(x, eps, []float64{sigma})
			got, err := eqf.Eval(z, nil, EvalOptions{Readout: true})
			if err != nil {
				t.Fatal(err)
			}
			gotM, _ := eqm.Eval(z, nil, EvalOptions{})
			const n = 20000
			want := make([]float64, d)
			wantM := make([]float64, d)
			logw := make([]float64, n)
			mx := math.Inf(-1)
			for j := range logw {
				s := (float64(j) + 0.5) / n
				logw[j] = logDensity(m, z.Data, 1-s, s)
				mx = math.Max(mx, logw[j])
			}
			var zsum, mean float64
			for j := range logw {
				s := (float64(j) + 0.5) / n
				w := math.Exp(logw[j] - mx)
				if w < 1e-300 {
					continue
				}
				zsum += w
				mean += w * s
				f, _ := fm.Eval(z, []float64{s}, EvalOptions{})
				c := EqMScale(s, 4, 0.8)
				for i := range want {
					want[i] += w * f.V.Data[i]
					wantM[i] += w * c * f.V.Data[i]
				}
			}
			for i := range want {
				near(t, "f*_EqF", got.V.Data[i], want[i]/zsum, 2e-6*(1+math.Abs(want[i]/zsum)))
				near(t, "f*_EqM", gotM.V.Data[i], wantM[i]/zsum, 2e-6*(1+math.Abs(wantM[i]/zsum)))
			}
			post, _ := eqf.SigmaPosterior(z.Data)
			near(t, "posterior mean", post.Mean(), mean/zsum, 2e-6)
		}
	}
}

// Paper §4.2: as d grows p(σ | x^σ) concentrates (std ∝ 1/√d), the readout finds the true σ,
// and f*_EqF → f*_FM.
func TestPosteriorConcentration(t *testing.T) {
	dims := []int{64, 256, 1024, 4096}
	stds := make([]float64, len(dims))
	gaps := make([]float64, len(dims))
	for di, d := range dims {
		rng := NewRNG(uint64(d))
		mean := make([]float64, d)
		for i := range mean {
			mean[i] = rng.NormFloat64()
		}
		data, _ := NewGaussian(mean, 0.5)
		fm, _ := NewOracle(data, OracleFM)
		eqf, _ := NewOracle(data, OracleEqF)
		const frames = 40
		x, _ := data.Sample(rng, frames, 1, d, 1, 1)
		eps, _ := Randn(rng, frames, 1, d, 1, 1)
		sigma := make([]float64, frames)
		for i := range sigma {
			sigma[i] = 0.1 + 0.8*float64(i)/float64(frames-1)
		}
		z, _ := Noise(x, eps, sigma)
		a, _ := fm.Eval(z, sigma, EvalOptions{})
		b, _ := eqf.Eval(z, nil, EvalOptions{Readout: true})
		var num, den float64
		for f := 0; f < frames; f++ {
			post, _ := eqf.SigmaPosterior(z.Frame(f))
			stds[di] += post.Std() / frames
			// the readout (posterior mode) is within 5 posterior stds of the truth
			if math.Abs(b.SigmaHat[f]-sigma[f]) > 5*post.Std() {
				t.Errorf("d=%d σ=%.3f: readout %.4f, posterior std %.4f", d, sigma[f], b.SigmaHat[f], post.Std())
			}
			for i, av := range a.V.Frame(f) {
				dv := av - b.V.Frame(f)[i]
				num += dv * dv
				den += av * av
			}
		}
		gaps[di] = math.Sqrt(num / den)
		t.Logf("d=%5d  mean posterior std %.5f  (·√d = %.3f)  relative gap ‖f_EqF−f_FM‖/‖f_FM‖ = %.5f", d, stds[di], stds[di]*math.Sqrt(float64(d)), gaps[di])
	}
	for i := 1; i < len(dims); i++ {
		// d grows 4×: the std should halve (√4); allow 0.4–0.6.
		r := stds[i] / stds[i-1]
		if r < 0.4 || r > 0.6 {
			t.Errorf("posterior std ratio d=%d→%d is %.3f, want ≈ 0.5", dims[i-1], dims[i], r)
		}
		if gaps[i] >= gaps[i-1] {
			t.Errorf("relative gap did not shrink from d=%d (%.4g) to d=%d (%.4g)", dims[i-1], gaps[i-1], dims[i], gaps[i])
		}
	}
	if gaps[len(gaps)-1] > gaps[0]/4 {
		t.Errorf("relative gap at d=4096 (%.4g) not below a quarter of d=64's (%.4g)", gaps[len(gaps)-1], gaps[0])
	}
}

func TestMixtureSampleMoments(t *testing.T) {
	m := testMixture(t, 4, 3)
	x, _ := m.Sample(NewRNG(1), 50000, 1, 4, 1, 1)
	mean, variance := m.MeanVariance()
	// per-coordinate moments averaged over coordinates
	var gotMean, gotVar float64
	n := x.NumFrames()
	for i := 0; i < 4; i++ {
		var s, s2 float64
		for f := 0; f < n; f++ {
			v := x.Frame(f)[i]
			s += v
			s2 += v * v
		}
		mu := s / float64(n)
		gotMean += mu / 4
		gotVar += (s2/float64(n) - mu*mu) / 4
	}
	near(t, "mixture mean", gotMean, mean, 0.02)
	near(t, "mixture variance", gotVar, variance, 0.03*variance)
}

func TestOracleBadInput(t *testing.T) {
	assertParamErr(t, "no components", second(NewMixture(nil, nil, nil)), "weights")
	assertParamErr(t, "std 0", second(NewGaussian([]float64{0}, 0)), "stds[0]")
	assertParamErr(t, "weight < 0", second(NewMixture([]float64{1, -1}, [][]float64{{0}, {1}}, []float64{1, 1})), "weights[1]")
	assertParamErr(t, "mean dims", second(NewMixture([]float64{1, 1}, [][]float64{{0}, {1, 2}}, []float64{1, 1})), "means[1]")
	g, _ := NewGaussian([]float64{0, 0}, 1)
	assertParamErr(t, "kind", second(NewOracle(g, 7)), "kind")
	fm, _ := NewOracle(g, OracleFM)
	x := MustNewWindow(1, 1, 2, 1, 1)
	assertParamErr(t, "missing level", second(fm.Eval(x, nil, EvalOptions{})), "level")
	assertParamErr(t, "level > 1", second(fm.Eval(x, []float64{2}, EvalOptions{})), "level")
	assertParamErr(t, "dimension", second(fm.Eval(MustNewWindow(1, 1, 3, 1, 1), []float64{0.5}, EvalOptions{})), "x: C·H·W")
	assertParamErr(t, "sample dims", second(g.Sample(NewRNG(1), 1, 1, 3, 1, 1)), "C·H·W")
}
