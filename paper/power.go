package paper

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// Power over training seeds: how many training seeds a paired comparison needs. A comparison
// over n training seeds (stats.go) agrees with a paper's difference δ when its 95 % t-interval
// excludes zero on δ's side, that is when the paired t statistic T = mean/(s/√n) passes
// c = t_{0.975, n−1}. If the true difference is δ and the seeds' differences have standard
// deviation σ, T follows the noncentral t distribution with ν = n − 1 degrees of freedom and
// noncentrality λ = |δ|·√n/σ, so the probability of that verdict (the power) is
//
//	P(T > c) = E_V[Φ(λ − c·√(V/ν))],   V ~ χ²_ν,
//
// which tPower integrates over V's quantiles. The smallest difference that n seeds detect with
// probability 0.8 (detectable) and the fewest seeds that detect δ so (seedsFor) follow from it;
// σ is estimated by the comparison's own seed-to-seed standard deviation, whose 95 % interval
// (sdInterval) says how far that estimate itself can be trusted.

// planningPower is the probability of detection the seeds-needed section asks for (80 %, as
// usual when planning an experiment).
const planningPower = 0.8

// maxSeeds caps seedsFor's search.
const maxSeeds = 1000

// tPower is the probability that n training seeds' 95 % t-interval of a paired difference
// excludes zero on the side of the true difference delta, when the seeds' differences scatter
// with standard deviation sd (0 for n < 2, or sd ≤ 0 or not finite).
func tPower(n int, delta, sd float64) float64 {
	if n < 2 || !(sd > 0) || math.IsInf(sd, 0) || math.IsNaN(delta) {
		return 0
	}
	c := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	lambda := math.Abs(delta) * math.Sqrt(float64(n)) / sd
	var p float64
	for _, q := range chiNodes(n - 1) {
		p += q.w * distuv.UnitNormal.CDF(lambda-c*q.r)
	}
	return p
}

// chiNode is a quadrature node of tPower's integral over the quantiles u ∈ (0, 1) of
// V ~ χ²_ν: its weight and √(V(u)/ν).
type chiNode struct{ w, r float64 }

var (
	chiMu    sync.Mutex
	chiCache = map[int][]chiNode{}
)

// chiNodes are the 512 Gauss–Legendre nodes of tPower's integral for ν degrees of freedom,
// computed once per ν (the χ² quantiles are the costly part).
func chiNodes(nu int) []chiNode {
	chiMu.Lock()
	defer chiMu.Unlock()
	if q, ok := chiCache[nu]; ok {
		return q
	}
	const points = 512
	x, w := make([]float64, points), make([]float64, points)
	quad.Legendre{}.FixedLocations(x, w, 0, 1)
	chi := distuv.ChiSquared{K: float64(nu)}
	q := make([]chiNode, points)
	for i := range q {
		q[i] = chiNode{w[i], math.Sqrt(chi.Quantile(x[i]) / float64(nu))}
	}
	chiCache[nu] = q
	return q
}

// detectable is the smallest true difference (in the comparison's units) that n training seeds
// detect with probability power when the seeds' differences have standard deviation sd: the
// root of tPower(n, δ, sd) = power by bisection (NaN for n < 2 or no usable sd).
func detectable(n int, sd, power float64) float64 {
	if n < 2 || !(sd > 0) || math.IsInf(sd, 0) {
		return math.NaN()
	}
	lo, hi := 0.0, sd
	for tPower(n, hi, sd) < power {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if tPower(n, mid, sd) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// seedsFor is the fewest training seeds (at least 2) whose interval detects the true difference
// delta with probability power at standard deviation sd; maxSeeds+1 when even maxSeeds do not,
// 0 when delta is 0 or not finite or sd is unusable.
func seedsFor(delta, sd, power float64) int {
	if delta == 0 || math.IsNaN(delta) || math.IsInf(delta, 0) || !(sd > 0) || math.IsInf(sd, 0) {
		return 0
	}
	if tPower(maxSeeds, delta, sd) < power {
		return maxSeeds + 1
	}
	lo, hi := 1, maxSeeds // tPower(lo) < power ≤ tPower(hi); the power grows with n
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if tPower(mid, delta, sd) < power {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// sdInterval is the 95 % interval of a normal population's standard deviation from a sample
// standard deviation sd of n values: sd·√(ν/χ²_{0.975,ν}) to sd·√(ν/χ²_{0.025,ν}), ν = n − 1.
func sdInterval(sd float64, n int) (lo, hi float64) {
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	nu := float64(n - 1)
	chi := distuv.ChiSquared{K: nu}
	return sd * math.Sqrt(nu/chi.Quantile(0.975)), sd * math.Sqrt(nu/chi.Quantile(0.025))
}

// sampleSD is the standard deviation of v (n − 1 in the denominator; NaN for fewer than two).
func sampleSD(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	_, se := stat(v)
	return se * math.Sqrt(float64(len(v)))
}

// paperSize matches a difference the paper states as a number, alone or with a note in
// parentheses ("-39.79", "-1.7 (26.0 − 27.7)"), not a side ("< 0 (…)") or a range ("+13 to +29").
var paperSize = regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]+)?( \(.*\))?$`)

// SeedsMarkdown is docs/results.md's section on how many training seeds the comparisons with a
// difference the paper states need: for each (with per-seed values), the seed-to-seed standard
// deviation of our paired difference, the smallest difference its seeds and ten seeds detect
// with probability planningPower, and the seeds that would detect a difference of the paper's size —
// at our standard deviation and at the ends of its 95 % interval — after a count of the
// comparisons whose seeds already suffice for that ("" when no comparison has what it needs).
func SeedsMarkdown(rs []*Result) string {
	var rows strings.Builder
	total, enough, agree := 0, 0, 0
	for _, r := range rs {
		for _, n := range r.Numbers {
			paper := strings.TrimSpace(n.Paper)
			if n.Verdict == "" || len(n.PerSeed) < 2 || !paperSize.MatchString(paper) {
				continue
			}
			delta, sd := paperValue(paper), sampleSD(n.PerSeed)
			if delta == 0 || !(sd > 0) {
				continue
			}
			k := len(n.PerSeed)
			lo, hi := sdInterval(sd, k)
			need := seedsFor(delta, sd, planningPower)
			total++
			if need <= k {
				enough++
				if n.Verdict == Agrees {
					agree++
				}
			}
			s := "—"
			if n.Stride > 0 {
				s = fmt.Sprint(n.Stride)
			}
			fmt.Fprintf(&rows, "| %s | %s | %s | %d | %.3g | %.3g | %.3g | %s | %s [%s, %s] |\n", r.label(), cell(n.Name), s, k, sd,
				detectable(k, sd, planningPower), detectable(10, sd, planningPower), cell(paper),
				seedsWord(need), seedsWord(seedsFor(delta, lo, planningPower)), seedsWord(seedsFor(delta, hi, planningPower)))
		}
	}
	if total == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## How many training seeds the comparisons need\n\n"+
		"For each comparison above whose paper value is a difference it states: the standard deviation (SD) over training seeds "+
		"of our paired difference, the smallest true difference that our seeds and that ten seeds would detect (a 95 %% interval "+
		"excluding zero on its side) with probability %.0f %% at that SD, and how many training seeds would detect a difference "+
		"as large as the paper's (an assumption: the paper's numbers are Minecraft's, in its features and at its scale, ours the maze's) — at our SD, and in brackets "+
		"at the ends of the SD's own 95 %% interval, which with three seeds spans a factor of twelve. "+
		"Power of the paired t-test from the noncentral t distribution (paper/power.go).\n\n", 100*planningPower)
	fmt.Fprintf(&b, "- %d of %d comparisons have seeds enough to detect a difference of the paper's size (at our SD); %d of those agree with the paper, "+
		"and where the other %d do not, the difference we measure is smaller than the paper's or on the other side.\n"+
		"- The other %d need more training seeds before their verdict can say anything about a difference of the paper's size.\n\n",
		enough, total, agree, enough-agree, total-enough)
	b.WriteString("| experiment | comparison | S | seeds | SD over seeds | detectable with these seeds | with 10 seeds | paper | seeds for the paper's size |\n|---|---|---|---|---|---|---|---|---|\n")
	b.WriteString(rows.String())
	return b.String()
}

// seedsWord writes seedsFor's answer: the count, or "> 1,000" past maxSeeds.
func seedsWord(n int) string {
	if n > maxSeeds {
		return "> " + thousands(maxSeeds)
	}
	return thousands(n)
}
