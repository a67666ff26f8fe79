package eqflib

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func TestLogitGolden(t *testing.T) {
	sig := []float64{0, .1, .5, .9, 1}
	want := []float64{-11.5129, -2.19722, 0, 2.19722, 11.5129}
	for i, s := range sig {
		near(t, "LogitSigma", LogitSigma(s), want[i], 5e-5)
		if s > 0 && s < 1 {
			near(t, "SigmaFromLogit∘LogitSigma", SigmaFromLogit(LogitSigma(s)), s, 1e-15)
		}
	}
	got := graphEval1(t, LogitGraph, sig)
	for i := range sig {
		near(t, "LogitGraph", got[i], want[i], 5e-5)
	}
	back := graphEval1(t, SigmoidGraph, got)
	for i, s := range sig {
		near(t, "SigmoidGraph(LogitGraph)", back[i], ClampSigma(s), 1e-12)
	}
}

func toTensor(x *Window) *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(append([]float64(nil), x.Data...), x.Shape[:]...)
}

func TestNoiseFloatAndGraphAgree(t *testing.T) {
	rng := NewRNG(7)
	x, _ := Randn(rng, 2, 3, 2, 2, 2)
	eps, _ := Randn(rng, 2, 3, 2, 2, 2)
	sigma, _ := SampleSigmaIndependent(rng, 2, 3)
	sigma[0], sigma[5] = 0, 1
	xs, err := Noise(x, eps, sigma)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := VelocityTarget(x, eps)
	back, _ := CleanEstimate(xs, v, sigma)
	for i := range x.Data {
		near(t, "CleanEstimate(Noise)", back.Data[i], x.Data[i], 1e-14)
	}
	// frame 0 (σ = 0) is x, frame 5 (σ = 1) is ε
	for i, xi := range x.Frame(0) {
		near(t, "σ=0 frame", xs.Frame(0)[i], xi, 0)
		near(t, "σ=1 frame", xs.Frame(5)[i], eps.Frame(5)[i], 0)
	}
	st := tensors.FromFlatDataAndDimensions(append([]float64(nil), sigma...), 2, 3)
	outs := graphEval(t, func(in []*graph.Node) []*graph.Node {
		xsG := NoiseGraph(in[0], in[1], in[2])
		vG := VelocityTargetGraph(in[0], in[1])
		return []*graph.Node{xsG, vG, CleanEstimateGraph(xsG, vG, in[2])}
	}, toTensor(x), toTensor(eps), st)
	for i := range x.Data {
		near(t, "NoiseGraph", outs[0][i], xs.Data[i], 1e-15)
		near(t, "VelocityTargetGraph", outs[1][i], v.Data[i], 1e-15)
		near(t, "CleanEstimateGraph", outs[2][i], x.Data[i], 1e-14)
	}
}

func TestSigmaSamplers(t *testing.T) {
	rng := NewRNG(3)
	s, _ := SampleSigmaIndependent(rng, 500, 8)
	var mean float64
	for _, v := range s {
		if v < 0 || v >= 1 {
			t.Fatalf("σ = %g outside [0, 1)", v)
		}
		mean += v / float64(len(s))
	}
	near(t, "mean of U[0,1] levels", mean, 0.5, 0.02)

	const B, T, L = 4000, 10, 6
	sigma, mask, err := SampleSigmaContext(rng, B, T, L)
	if err != nil {
		t.Fatal(err)
	}
	checkContextDraw(t, sigma, mask, B, T, L)

	// The graph version has the same law.
	state, _ := graph.RNGStateFromSeed(11)
	outs := graphEval(t, func(in []*graph.Node) []*graph.Node {
		_, sg, mg := SampleSigmaContextGraph(in[0], B, T, L, dtypes.Float64)
		return []*graph.Node{sg, mg}
	}, state)
	checkContextDraw(t, outs[0], outs[1], B, T, L)
}

// checkContextDraw verifies the random-length-context law on a large draw: per element a
// prefix of length L ~ U{0..Lmax} at one level, the rest at another; a clean prefix (σ = 0,
// no loss) half the time.
func checkContextDraw(t *testing.T, sigma, mask []float64, B, T, lmax int) {
	t.Helper()
	cleanCount, prefixTotal := 0, 0
	lengths := make([]int, T+1)
	for b := 0; b < B; b++ {
		row, mrow := sigma[b*T:(b+1)*T], mask[b*T:(b+1)*T]
		rest := row[T-1]
		if mrow[T-1] != 1 {
			t.Fatalf("element %d: last frame carries no loss", b)
		}
		l := 0
		for l < T && row[l] != rest {
			l++
		}
		for i := l; i < T; i++ {
			if row[i] != rest || mrow[i] != 1 {
				t.Fatalf("element %d: frame %d breaks the two-level pattern: %v / %v", b, i, row, mrow)
			}
		}
		if l > lmax {
			t.Fatalf("element %d: context length %d > %d", b, l, lmax)
		}
		if l > 0 {
			prefixTotal++
			if row[0] == 0 {
				if mrow[0] != 0 {
					t.Fatalf("element %d: clean context carries loss", b)
				}
				cleanCount++
			} else if mrow[0] != 1 {
				t.Fatalf("element %d: noisy context carries no loss", b)
			}
		}
		lengths[l]++
	}
	frac := float64(cleanCount) / float64(prefixTotal)
	if math.Abs(frac-0.5) > 0.04 {
		t.Errorf("clean-context fraction %.3f, want 0.5", frac)
	}
	// L = 0 and equal-level prefixes are indistinguishable from shorter ones only with
	// probability 0, so lengths 1..Lmax should each hold about B/(Lmax+1).
	for l := 1; l <= lmax; l++ {
		f := float64(lengths[l]) / float64(B)
		if math.Abs(f-1/float64(lmax+1)) > 0.03 {
			t.Errorf("P(L=%d) = %.3f, want %.3f", l, f, 1/float64(lmax+1))
		}
	}
}

func TestNoiseBadInput(t *testing.T) {
	x := MustNewWindow(1, 2, 1, 2, 2)
	y := MustNewWindow(1, 3, 1, 2, 2)
	assertParamErr(t, "mismatched eps", second(Noise(x, y, []float64{0, 0})), "eps.Shape")
	assertParamErr(t, "sigma length", second(Noise(x, x, []float64{0})), "sigma")
	assertParamErr(t, "sigma > 1", second(Noise(x, x, []float64{0, 1.5})), "sigma")
	assertParamErr(t, "sigma NaN", second(Noise(x, x, []float64{0, math.NaN()})), "sigma")
	assertParamErr(t, "zero batch", second(NewWindow(0, 1, 1, 1, 1)), "shape[B]")
	assertParamErr(t, "maxContext", third(SampleSigmaContext(NewRNG(1), 2, 4, 4)), "maxContext")
	assertParamErr(t, "frames", second(SampleSigmaIndependent(NewRNG(1), 2, 0)), "frames")
	bad := &Window{Shape: [5]int{1, 1, 1, 1, 2}, Data: make([]float64, 3)}
	assertParamErr(t, "data length", bad.Validate("x"), "x.Data")
}

func third[A, B any](_ A, _ B, err error) error { return err }
