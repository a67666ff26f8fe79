package eqflib

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func TestObjectiveBuildGraphAgrees(t *testing.T) {
	rng := NewRNG(5)
	x, _ := Randn(rng, 2, 4, 3, 2, 2)
	eps, _ := Randn(rng, 2, 4, 3, 2, 2)
	mask := []float64{1, 1, 0, 1, 0, 1, 1, 1}
	for _, name := range []string{"eqf", "fm", "eqm", "nufm", "diffusion"} {
		o, err := ParseObjective(name)
		if err != nil {
			t.Fatal(err)
		}
		level, _ := o.SampleLevels(rng, 2, 4)
		ex, err := o.Build(x, eps, level)
		if err != nil {
			t.Fatal(err)
		}
		pred, _ := Randn(rng, 2, 4, 3, 2, 2)
		loss, err := MaskedMSE(pred, ex, mask)
		if err != nil {
			t.Fatal(err)
		}
		tl := tensors.FromFlatDataAndDimensions(append([]float64(nil), level...), 2, 4)
		tm := tensors.FromFlatDataAndDimensions(append([]float64(nil), mask...), 2, 4)
		outs := graphEval(t, func(in []*graph.Node) []*graph.Node {
			input, cond, target, weight := o.BuildGraph(in[0], in[1], in[2])
			return []*graph.Node{input, cond, target, weight, MaskedMSEGraph(in[3], target, weight, in[4])}
		}, toTensor(x), toTensor(eps), tl, toTensor(pred), tm)
		for i := range x.Data {
			near(t, name+" input", outs[0][i], ex.Input.Data[i], 1e-12)
			near(t, name+" target", outs[2][i], ex.Target.Data[i], 1e-12)
		}
		for f := range level {
			near(t, name+" cond", outs[1][f], ex.Cond[f], 0)
			near(t, name+" weight", outs[3][f], ex.Weight[f], 1e-12)
		}
		near(t, name+" loss", outs[4][0], loss, 1e-12)
		// What the network sees: σ for FM, t for Diffusion, zero for the others.
		for f, l := range level {
			want := 0.0
			if o.NoiseConditional() {
				want = l
			}
			near(t, name+" level input", ex.Cond[f], want, 0)
		}
	}
}

func TestObjectiveTargets(t *testing.T) {
	x := MustNewWindow(1, 1, 1, 1, 1)
	eps := MustNewWindow(1, 1, 1, 1, 1)
	x.Data[0], eps.Data[0] = 2, -1
	eqm, _ := NewObjective(EqM)
	ex, _ := eqm.Build(x, eps, []float64{0.1})
	near(t, "EqM target c(0.1)·(ε−x)", ex.Target.Data[0], 2*(-3), 1e-14)
	near(t, "EqM input", ex.Input.Data[0], 0.9*2+0.1*-1, 1e-15)

	dif, _ := NewObjective(Diffusion)
	d := dif.Schedule
	near(t, "λ(0)", d.LogSNR(0), 15, 1e-9)
	near(t, "λ(1)", d.LogSNR(1), -15, 1e-9)
	ts := 0.37
	ex, _ = dif.Build(x, eps, []float64{ts})
	a, s := d.AlphaSigma(ts)
	near(t, "α²+σ²", a*a+s*s, 1, 1e-15)
	near(t, "Diffusion input", ex.Input.Data[0], a*2+s*-1, 1e-15)
	near(t, "Diffusion v target", ex.Target.Data[0], a*-1-s*2, 1e-15)
	l := d.LogSNR(ts)
	near(t, "sigmoid weight", ex.Weight[0], 1/(1+math.Exp(-(-1-l)))*math.Exp(l)/(1+math.Exp(l)), 1e-15)

	ks, _ := d.DDIMTimesteps(50)
	if ks[0] != 999 || ks[1] != 979 || ks[49] != 19 || ks[50] != -1 {
		t.Errorf("DDIM timesteps %v…%v", ks[:3], ks[47:])
	}
}

// Prop. A.1: the EqF and EqM velocity losses are x-prediction losses weighted by 1/σ² and c²/σ².
func TestInducedXPredWeights(t *testing.T) {
	rng := NewRNG(9)
	for _, sigma := range []float64{0.05, 0.1, 0.3, 0.7, 0.95} {
		x, _ := Randn(rng, 1, 1, 16, 1, 1)
		eps, _ := Randn(rng, 1, 1, 16, 1, 1)
		f, _ := Randn(rng, 1, 1, 16, 1, 1) // an arbitrary network output
		xs, _ := Noise(x, eps, []float64{sigma})
		c := EqMScale(sigma, 4, 0.8)
		var vEqF, vEqM, xEqF, xEqM float64
		for i := range x.Data {
			v := eps.Data[i] - x.Data[i]
			vEqF += (f.Data[i] - v) * (f.Data[i] - v)
			vEqM += (f.Data[i] - c*v) * (f.Data[i] - c*v)
			xhat := xs.Data[i] - sigma*f.Data[i]    // clean estimate of an EqF output
			xhatM := xs.Data[i] - sigma*f.Data[i]/c // of an EqM output
			xEqF += (xhat - x.Data[i]) * (xhat - x.Data[i])
			xEqM += (xhatM - x.Data[i]) * (xhatM - x.Data[i])
		}
		near(t, "EqF", XPredWeightEqF(sigma)*xEqF, vEqF, 1e-10*vEqF)
		near(t, "EqM", XPredWeightEqM(sigma, 4, 0.8)*xEqM, vEqM, 1e-10*vEqM)
	}
}

// Prop. 4.1 on the exact oracle: L*_EqF = L*_FM + E‖f*_FM − f*_EqF‖², by Monte Carlo on shared
// draws (the cross term has mean zero).
func TestRiskDecomposition(t *testing.T) {
	data := testMixture(t, 8, 2)
	fmF, _ := NewOracle(data, OracleFM)
	eqfF, _ := NewOracle(data, OracleEqF)
	fm, _ := NewObjective(FM)
	eqf, _ := NewObjective(EqF)
	rng := NewRNG(4)
	x, _ := data.Sample(rng, 4000, 1, 8, 1, 1)
	eps, _ := Randn(rng, 4000, 1, 8, 1, 1)
	sigma, _ := SampleSigmaIndependent(rng, 4000, 1)
	lFM, err := fm.Loss(fmF, x, eps, sigma, nil)
	if err != nil {
		t.Fatal(err)
	}
	lEqF, _ := eqf.Loss(eqfF, x, eps, sigma, nil)
	xs, _ := Noise(x, eps, sigma)
	a, _ := fmF.Eval(xs, sigma, EvalOptions{})
	b, _ := eqfF.Eval(xs, nil, EvalOptions{})
	n := float64(len(x.Data))
	var gap, cross, crossSq float64
	for i := range a.V.Data {
		d := a.V.Data[i] - b.V.Data[i]
		gap += d * d / n
		v := eps.Data[i] - x.Data[i]
		c := 2 * (a.V.Data[i] - v) * d
		cross += c / n
		crossSq += c * c / n
	}
	se := math.Sqrt((crossSq - cross*cross) / n * 8) // per-frame correlation: inflate by d
	if lEqF < lFM {
		t.Errorf("L_EqF = %g < L_FM = %g", lEqF, lFM)
	}
	near(t, "L_EqF − L_FM − gap", lEqF-lFM-gap, 0, 4*se)
	t.Logf("L_FM=%.4f L_EqF=%.4f gap=%.4f (cross term %.2g ± %.2g)", lFM, lEqF, gap, cross, se)
}

func TestObjectiveBadInput(t *testing.T) {
	assertParamErr(t, "unknown", second(ParseObjective("ddpm")), "objective")
	o, _ := NewObjective(EqM)
	o.EqMAlpha = 1
	assertParamErr(t, "EqM alpha", o.Validate(), "Objective.EqMAlpha")
	o.EqMAlpha, o.EqMLambda = 0.8, 0
	assertParamErr(t, "EqM lambda", o.Validate(), "Objective.EqMLambda")
	d := Objective{Kind: Diffusion}
	assertParamErr(t, "diffusion schedule", d.Validate(), "Objective.Schedule")
	assertParamErr(t, "kind", Objective{Kind: 9}.Validate(), "Objective.Kind")
	assertParamErr(t, "cosine steps", second(NewCosineSchedule(1, -15, 15)), "steps")
	assertParamErr(t, "cosine lambdas", second(NewCosineSchedule(1000, 15, -15)), "logSNRMin")
	assertParamErr(t, "ddim N", second(DefaultDiffusion().DDIMTimesteps(0)), "N")
	x := MustNewWindow(1, 2, 1, 1, 1)
	ex, _ := NewObjective(FM)
	built, _ := ex.Build(x, x, []float64{0.5, 0.5})
	assertParamErr(t, "all-zero mask", second(MaskedMSE(x, built, []float64{0, 0})), "mask")
	assertParamErr(t, "mask length", second(MaskedMSE(x, built, []float64{1})), "mask")
	assertParamErr(t, "pred shape", second(MaskedMSE(MustNewWindow(1, 1, 1, 1, 1), built, nil)), "pred.Shape")
}
