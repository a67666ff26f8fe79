package eqflib

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomSPD(rng interface{ NormFloat64() float64 }, d int) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1, a)
	for i := 0; i < d; i++ {
		s.SetSym(i, i, s.At(i, i)+0.1)
	}
	return s
}

// denmanBeavers is an independent float64 reference for the principal square root of a matrix
// with positive eigenvalues (Y → A^{1/2}, Z → A^{-1/2}).
func denmanBeavers(a *mat.Dense) *mat.Dense {
	d, _ := a.Dims()
	y := mat.DenseCopyOf(a)
	z := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		z.Set(i, i, 1)
	}
	for it := 0; it < 100; it++ {
		var yi, zi mat.Dense
		if err := yi.Inverse(y); err != nil {
			panic(err)
		}
		if err := zi.Inverse(z); err != nil {
			panic(err)
		}
		var ny, nz mat.Dense
		ny.Add(y, &zi)
		ny.Scale(0.5, &ny)
		nz.Add(z, &yi)
		nz.Scale(0.5, &nz)
		y, z = &ny, &nz
	}
	return y
}

func TestFrechetDistanceReferences(t *testing.T) {
	rng := NewRNG(8)
	// Identical sets: 0.
	feats := make([][]float64, 200)
	for i := range feats {
		feats[i] = []float64{rng.NormFloat64(), 2 * rng.NormFloat64(), rng.NormFloat64() + 1}
	}
	d0, err := FrechetFeatures(feats, feats)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(d0) > 1e-10 {
		t.Errorf("identical sets: %g, want 0", d0)
	}
	// Diagonal (commuting) covariances: ‖μ₁ − μ₂‖² + Σ (√a − √b)².
	p := &GaussianFit{Mean: []float64{0, 1, 2}, Cov: mat.NewSymDense(3, []float64{4, 0, 0, 0, 1, 0, 0, 0, 9})}
	q := &GaussianFit{Mean: []float64{1, 1, 0}, Cov: mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 16})}
	got, _ := FrechetDistance(p, q)
	want := 1.0 + 4 + (2-1)*(2-1) + 0 + (3-4)*(3-4)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("diagonal: %v, want %v", got, want)
	}
	// Non-commuting SPD covariances against Denman–Beavers on Σ₁Σ₂.
	for trial := 0; trial < 3; trial++ {
		a, b := randomSPD(rng, 5), randomSPD(rng, 5)
		var prod mat.Dense
		prod.Mul(a, b)
		ref := mat.Trace(a) + mat.Trace(b) - 2*mat.Trace(denmanBeavers(&prod))
		g1 := &GaussianFit{Mean: make([]float64, 5), Cov: a}
		g2 := &GaussianFit{Mean: make([]float64, 5), Cov: b}
		got, err := FrechetDistance(g1, g2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-ref) > 1e-9*math.Max(1, math.Abs(ref)) {
			t.Errorf("trial %d: %v, Denman–Beavers reference %v", trial, got, ref)
		}
	}
	if _, err := FrechetFeatures(feats[:1], feats); err == nil {
		t.Error("one feature vector accepted")
	}
}
