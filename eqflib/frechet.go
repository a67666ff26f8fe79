package eqflib

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Fréchet distance between Gaussian fits of two feature sets (paper App. D.1):
//
//	d² = ‖μ₁ − μ₂‖² + Tr(Σ₁ + Σ₂ − 2 (Σ₁ Σ₂)^{1/2}).
//
// Tr((Σ₁Σ₂)^{1/2}) is computed in the symmetric form Tr((Σ₁^{1/2} Σ₂ Σ₁^{1/2})^{1/2}) (the two
// products are similar), so both square roots are of symmetric positive semi-definite matrices
// and come from gonum's symmetric eigendecomposition; eigenvalues that round below zero are
// clamped to zero.

// GaussianFit is a mean and covariance fitted to features (the data distributions of the oracle
// are Mixture values; NewGaussian builds a one-component one).
type GaussianFit struct {
	Mean []float64
	Cov  *mat.SymDense
}

// FitGaussian fits the sample mean and the unbiased covariance to n ≥ 2 feature vectors.
func FitGaussian(features [][]float64) (*GaussianFit, error) {
	n := len(features)
	if n < 2 {
		return nil, paramErr("features", fmt.Sprintf("%d vectors", n), "at least 2 feature vectors")
	}
	d := len(features[0])
	if d < 1 {
		return nil, paramErr("features[0]", "empty", "a non-empty feature vector")
	}
	mean := make([]float64, d)
	for i, f := range features {
		if len(f) != d {
			return nil, paramErr(fmt.Sprintf("features[%d]", i), fmt.Sprintf("length %d", len(f)), fmt.Sprintf("length %d like features[0]", d))
		}
		for j, v := range f {
			mean[j] += v / float64(n)
		}
	}
	cov := mat.NewSymDense(d, nil)
	c := make([]float64, d)
	for _, f := range features {
		for j := range c {
			c[j] = f[j] - mean[j]
		}
		cov.SymRankOne(cov, 1/float64(n-1), mat.NewVecDense(d, c))
	}
	return &GaussianFit{Mean: mean, Cov: cov}, nil
}

// sqrtSym returns the symmetric square root of a PSD matrix by eigendecomposition.
func sqrtSym(a *mat.SymDense) (*mat.SymDense, error) {
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return nil, fmt.Errorf("eqflib: symmetric eigendecomposition did not converge")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	d := len(vals)
	out := mat.NewSymDense(d, nil)
	for k, l := range vals {
		s := math.Sqrt(math.Max(l, 0))
		if s == 0 {
			continue
		}
		col := mat.Col(nil, k, &vecs)
		out.SymRankOne(out, s, mat.NewVecDense(d, col))
	}
	return out, nil
}

// traceSqrtProduct is Tr((A B)^{1/2}) for PSD A, B.
func traceSqrtProduct(a, b *mat.SymDense) (float64, error) {
	ra, err := sqrtSym(a)
	if err != nil {
		return 0, err
	}
	d, _ := a.Dims()
	var m mat.Dense
	m.Mul(ra, b)
	m.Mul(&m, ra)
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, 0.5*(m.At(i, j)+m.At(j, i)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		return 0, fmt.Errorf("eqflib: symmetric eigendecomposition did not converge")
	}
	var tr float64
	for _, l := range eig.Values(nil) {
		tr += math.Sqrt(math.Max(l, 0))
	}
	return tr, nil
}

// FrechetDistance is d² between two Gaussians of the same dimension.
func FrechetDistance(p, q *GaussianFit) (d2 float64, err error) {
	defer catch(&err)
	if p == nil || q == nil {
		return 0, paramErr("p, q", "nil", "two fitted Gaussians")
	}
	if len(p.Mean) != len(q.Mean) {
		return 0, paramErr("q", fmt.Sprintf("dimension %d", len(q.Mean)), fmt.Sprintf("dimension %d like p", len(p.Mean)))
	}
	for i := range p.Mean {
		d := p.Mean[i] - q.Mean[i]
		d2 += d * d
	}
	tr, err := traceSqrtProduct(p.Cov, q.Cov)
	if err != nil {
		return 0, err
	}
	// d² ≥ 0 exactly; rounding in rank-deficient covariances can leave −1e-7, clamped to 0.
	return math.Max(0, d2+mat.Trace(p.Cov)+mat.Trace(q.Cov)-2*tr), nil
}

// FrechetFeatures fits a Gaussian to each feature set and returns their Fréchet distance.
func FrechetFeatures(a, b [][]float64) (float64, error) {
	p, err := FitGaussian(a)
	if err != nil {
		return 0, err
	}
	q, err := FitGaussian(b)
	if err != nil {
		return 0, err
	}
	return FrechetDistance(p, q)
}
