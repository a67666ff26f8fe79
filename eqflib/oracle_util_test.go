package eqflib

// sampleStats compares samples (frames of x) with N(mean, s²I) through Mixture.CompareMoments.
func sampleStats(x *Window, mean []float64, s float64) (meanErr, slope, varRatio float64) {
	g, err := NewGaussian(mean, s)
	if err != nil {
		panic(err)
	}
	r, err := g.CompareMoments(x)
	if err != nil {
		panic(err)
	}
	return r.MeanErr, r.Slope, r.VarRatio
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
