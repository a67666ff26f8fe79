package paper

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistics over training seeds. Every rollout number is computed per training seed (the mean
// over its evaluation seeds, which share clips, actions and noise across methods) and reported
// as the mean ± standard error over training seeds; a comparison is the per-training-seed
// difference of two methods with a 95 % Student-t interval over training seeds. A comparison
// "agrees" with the paper when its interval excludes zero on the side of the paper's own
// difference, "differs" when it excludes zero on the other side, and is "inconclusive"
// otherwise, always so with a single training seed.

// Verdicts of a comparison with the paper.
const (
	Agrees       = "agrees"
	Differs      = "differs"
	Inconclusive = "inconclusive"
)

// stat is the mean and the standard error of the mean (0 for one value).
func stat(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}

// runStat is a measure's mean over training seeds, each the mean of its values over evaluation
// seeds (v[i]: training seed i's), and its standard error over training seeds; with one training
// seed, the standard error over its evaluation seeds (as methodScores.of).
func runStat(v [][]float64) (m, se float64) {
	if len(v) == 1 {
		return stat(v[0])
	}
	per := make([]float64, len(v))
	for i, x := range v {
		per[i], _ = stat(x)
	}
	return stat(per)
}

// runStatOf is runStat of a quantity f of values kept per training seed and evaluation seed
// (v[i]: training seed i's).
func runStatOf[T any](v [][]T, f func(T) float64) (m, se float64) {
	x := make([][]float64, len(v))
	for i, run := range v {
		for _, t := range run {
			x[i] = append(x[i], f(t))
		}
	}
	return runStat(x)
}

// pairedDiff completes n with a paired difference over training seeds, d holding each training
// seed's difference: the mean with its 95 % t-interval and standard error, the per-seed values,
// and the verdict against the paper's difference (NaN: the paper gives none, no verdict).
func pairedDiff(n Number, d []float64, paper float64) Number {
	n.PerSeed = d
	n.Ours, n.Lo, n.Hi = tInterval(d)
	_, n.Err = stat(d)
	if !math.IsNaN(paper) {
		n.Verdict = verdict(n.Lo, n.Hi, paper)
	}
	return n
}

// tInterval is the mean of v with its 95 % Student-t interval (n − 1 degrees of freedom);
// lo and hi are NaN for fewer than two values.
func tInterval(v []float64) (mean, lo, hi float64) {
	mean, se := stat(v)
	if len(v) < 2 {
		return mean, math.NaN(), math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(0.975)
	return mean, mean - t*se, mean + t*se
}

// verdict compares an interval [lo, hi] of our difference with the sign of the paper's
// difference (paper < 0: the paper's first method is lower).
func verdict(lo, hi, paper float64) string {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(paper) || paper == 0:
		return Inconclusive
	case paper < 0 && hi < 0, paper > 0 && lo > 0:
		return Agrees
	case paper < 0 && lo > 0, paper > 0 && hi < 0:
		return Differs
	}
	return Inconclusive
}

// verdictAt compares an interval [lo, hi] with a value the paper states (a size, not a sign):
// Differs when the interval excludes it; otherwise Inconclusive, since an interval never shows
// that two values are equal.
func verdictAt(lo, hi, paper float64) string {
	if !math.IsNaN(lo) && !math.IsNaN(hi) && !math.IsNaN(paper) && (hi < paper || lo > paper) {
		return Differs
	}
	return Inconclusive
}

// paperValue reads the leading number of a value as the paper prints it ("64.34 ± 1.78");
// NaN when there is none.
func paperValue(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}
