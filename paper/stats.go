package paper

import (
	"fmt"
	"math"
	"slices"
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
	n.Ours, n.Lo, n.Hi = MeanInterval(d)
	_, n.Err = stat(d)
	if !math.IsNaN(paper) {
		n.Verdict = verdict(n.Lo, n.Hi, paper)
	}
	return n
}

// MeanInterval is the mean of v with its 95 % Student-t interval (n − 1 degrees of freedom), as
// every number here is reported over training seeds (and `eqf sample -clips` over clips); lo and
// hi are NaN for fewer than two values.
func MeanInterval(v []float64) (mean, lo, hi float64) {
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

// The rollout protocol's scores (protocol.go's methodScores: one set per training seed and
// evaluation seed) summarised as above: means over training seeds, paired differences between
// methods and between strides, and curves with their bands.

// perRun is a measure's mean over the evaluation seeds of each training seed, in training-seed
// order.
func (s methodScores) perRun(get func(*scores) float64) []float64 {
	v := make([]float64, len(s.per))
	for i, p := range s.per {
		v[i] = get(p)
	}
	return s.runMeans(v)
}

// runMeans averages values given per rollout set (in s.per's order) over the evaluation seeds
// of each training seed, in training-seed order.
func (s methodScores) runMeans(v []float64) []float64 {
	run := func(i int) int { // scores built without training seeds are all the first's
		if len(s.run) != len(v) {
			return 1
		}
		return s.run[i]
	}
	var out []float64
	var sum float64
	n := 0
	for i, x := range v {
		sum, n = sum+x, n+1
		if i == len(v)-1 || run(i+1) != run(i) {
			out, sum, n = append(out, sum/float64(n)), 0, 0
		}
	}
	return out
}

// of is a measure's mean over training seeds (each the mean over its evaluation seeds) and
// the standard error over training seeds; with one training seed, the standard error over
// evaluation seeds (protocolNote says which).
func (s methodScores) of(get func(*scores) float64) (mean, se float64) {
	if runs := s.perRun(get); len(runs) > 1 {
		return stat(runs)
	}
	v := make([]float64, len(s.per))
	for i, p := range s.per {
		v[i] = get(p)
	}
	return stat(v)
}

// perSeed is a measure's value per training seed (perRun) for Number.PerSeed: nil with one
// training seed.
func (s methodScores) perSeed(get func(*scores) float64) []float64 {
	if v := s.perRun(get); len(v) > 1 {
		return v
	}
	return nil
}

func fvdOf(s *scores) float64       { return s.FVD }
func flickerOf(s *scores) float64   { return s.Flicker }
func agreementOf(s *scores) float64 { return s.Agreement }
func nfeOf(s *scores) float64       { return s.NFEPerFrame }

// numbers reports FVD (with the paper's value), agreement, flicker and NFE per frame of each
// method, each with its per-training-seed values (NFE per frame only where they vary), which
// PoolTrainingSeeds pools.
func numbers(rows []methodScores) []Number {
	var out []Number
	for _, r := range rows {
		m, se := r.of(fvdOf)
		out = append(out, Number{Name: r.m.Name + ": FVD (maze-I3D)", Ours: m, Err: se, Paper: r.m.Paper, PerSeed: r.perSeed(fvdOf), Stride: r.m.Stride})
		m, se = r.of(agreementOf)
		out = append(out, Number{Name: r.m.Name + ": action agreement", Ours: m, Err: se, PerSeed: r.perSeed(agreementOf), Stride: r.m.Stride})
		m, se = r.of(flickerOf)
		out = append(out, Number{Name: r.m.Name + ": flicker", Ours: m, Err: se, PerSeed: r.perSeed(flickerOf), Stride: r.m.Stride})
		m, _ = r.of(nfeOf)
		nfe := Number{Name: r.m.Name + ": NFE per frame", Ours: m, Stride: r.m.Stride}
		if v := r.perSeed(nfeOf); slices.ContainsFunc(v, func(x float64) bool { return x != v[0] }) {
			nfe.PerSeed = v // an adaptive sampler's; a fixed count is exact, with no spread to keep
		}
		out = append(out, nfe)
	}
	return out
}

// paired reports each method's FVD minus the reference method's, paired by training seed (each
// training seed's difference is averaged over its evaluation seeds, which share clips, actions
// and noise across methods, so the difference cancels how hard the clips are): the mean, its
// 95 % t-interval over training seeds, and the verdict against the paper's difference where
// the paper prints both values (none where it does not). With one training seed there is no
// interval over training seeds: the standard error over evaluation seeds is reported and the
// verdict is inconclusive.
func paired(rows []methodScores, ref int) []Number {
	var out []Number
	for i, r := range rows {
		if i == ref || r.m.Stride != rows[ref].m.Stride {
			continue
		}
		var text string
		paper := paperValue(r.m.Paper) - paperValue(rows[ref].m.Paper)
		if !math.IsNaN(paper) {
			text = fmt.Sprintf("%+.2f", paper)
		}
		if n, ok := pairOf(fvdOf, r, rows[ref], fmt.Sprintf("%s: FVD − %s's", r.m.Name, shortName(rows[ref].m.Name)), paper, text); ok {
			out = append(out, n)
		}
	}
	return out
}

// strideEffectNote says what strideEffects' numbers are, in a result that has them.
const strideEffectNote = "\"FVD at S=1 − at S=H\" (H the zoo's horizon) is each method's FVD under the paper's staircase (S = 1, with bake-in, App. D) minus its FVD chunk by chunk, " +
	"paired by training seed over the same clips, actions and noise; the paper runs S = 1 only, so these have no paper value and no verdict."

// strideEffects is, for every method run at several strides (runAll with several
// Config.Strides), its FVD at each later stride minus its FVD at the first, paired by training
// seed with the 95 % t-interval: what the paper's staircase (S = 1, bake-in) changes against
// chunk by chunk (S = H) for the same model, clips, actions and noise. The paper runs one
// protocol only, so these carry no paper value and no verdict.
// at names a setting the rows share (" at D=10"; "": none).
func strideEffects(rows []methodScores, at string) []Number {
	first := map[string]int{} // a method's row at the first stride it runs at
	var out []Number
	for i, r := range rows {
		j, ok := first[baseName(r)]
		if !ok {
			first[baseName(r)] = i
			continue
		}
		if r.m.Stride == rows[j].m.Stride {
			continue
		}
		stem := fmt.Sprintf("%s%s: FVD at S=%d − at S=%d", baseName(r), at, r.m.Stride, rows[j].m.Stride)
		if n, ok := pairOf(fvdOf, r, rows[j], stem, math.NaN(), ""); ok {
			out = append(out, n)
		}
	}
	return out
}

// pairOf is a's measure (get: FVD, NFE per frame) minus b's, named stem: paired by training
// seed (each training seed's difference averaged over its evaluation seeds, which share clips,
// actions and noise across methods), with its 95 % t-interval and the verdict against paper (the
// paper's difference, or only its sign; NaN: none), shown as paperText. With one training seed
// it is paired by evaluation seed, its standard error over them, and inconclusive where the
// paper has a value; with one rollout set, that set's difference alone. ok is false when a and
// b do not pair (a different number of rollout sets).
func pairOf(get func(*scores) float64, a, b methodScores, stem string, paper float64, paperText string) (n Number, ok bool) {
	if len(a.per) != len(b.per) {
		return Number{}, false
	}
	d := make([]float64, len(a.per))
	for j := range a.per {
		d[j] = get(a.per[j]) - get(b.per[j])
	}
	return pairedNumber(a, d, stem, paper, paperText)
}

// The pairing a paired number was made with ends its name. A run of one training seed gives a
// number that a run of several gives paired by training seed under one of the other two names;
// its value is that seed's difference all the same, so `eqf paper compare` matches the three
// (pairingKey) and pairs it with the other run's value for that seed.
const (
	pairedByTrainingSeed   = ", paired by training seed"
	pairedByEvaluationSeed = ", paired by evaluation seed (one training seed)"
	pairedOnOneSet         = ", paired on one rollout set (one training seed, one evaluation seed)"
)

// pairedNumber is the Number of differences d, one per rollout set of row, named stem: their
// training seeds' means with the 95 % t-interval and the verdict against paper (NaN: none), or,
// with one training seed, their mean and standard error over evaluation seeds (with one set,
// its difference alone), inconclusive where the paper has a value. ok is false without sets.
func pairedNumber(row methodScores, d []float64, stem string, paper float64, paperText string) (Number, bool) {
	if len(d) == 0 {
		return Number{}, false
	}
	n := Number{Name: stem + pairedByTrainingSeed, Paper: paperText, Stride: row.m.Stride}
	if runs := row.runMeans(d); len(runs) > 1 {
		return pairedDiff(n, runs, paper), true
	}
	n.Name = stem + pairedByEvaluationSeed
	if len(d) == 1 {
		n.Name = stem + pairedOnOneSet
	}
	n.Ours, n.Err = stat(d)
	if !math.IsNaN(paper) {
		n.Verdict = Inconclusive
	}
	return n, true
}

// meanCurve averages a per-seed curve (FVD over time, divergence) elementwise, with the
// standard error as a band.
func meanCurve(r methodScores, get func(*scores) []float64) (mean, lo, hi []float64) {
	n := len(get(r.per[0]))
	for i := 0; i < n; i++ {
		v := make([]float64, len(r.per))
		for j, p := range r.per {
			v[j] = get(p)[i]
		}
		m, se := stat(v)
		mean, lo, hi = append(mean, m), append(lo, m-se), append(hi, m+se)
	}
	return
}

// shortName keeps a method's name up to its first parenthesis.
func shortName(s string) string { return strings.TrimSpace(strings.SplitN(s, " (", 2)[0]) }
