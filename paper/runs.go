package paper

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Two runs of the same experiments, side by side: the committed results against a rerun on
// another backend (`make gpu-repro`'s GPU run against the two CPU cores'), another build, or
// another machine. For every number both runs have (matched by
// experiment, name and stride; a paired number of a one-training-seed run matches the same
// number paired by training seed), CompareRuns gives B − A with two 95 % intervals over training
// seeds:
//
//   - paired by training seed, over the training seeds both runs give the number for (a run
//     of one training seed gives it for that seed): training seed k shares its data order and
//     initial seed across the runs, so the per-seed differences carry what the runs change and
//     not what the seeds do. Runs of different training seeds (a run still training its
//     seeds, a GPU run of fewer seeds) are paired over the seeds they share; with one seed in
//     common that seed's difference stands alone, without an interval;
//   - Welch's, treating the runs as independent samples of training seeds (from the per-seed
//     values, or else from each run's mean and standard error over its training seeds).
//
// The verdict is Differs when the paired interval excludes zero (Welch's where there is no
// paired one), else Inconclusive: an interval never shows two runs equal. Beside it, the
// difference in units of a training seed's standard deviation (pooled over the two runs) says
// whether it is within the noise of a training seed. Exact numbers (no spread in either run:
// analytic values, counts) carry the difference alone. With many numbers at 5 % each, about one
// in twenty differs by chance alone; the summary says how many that is.
//
// FVD and action agreement are scored by the action net of the zoo a run loaded (FVD in its
// features, agreement by its classifier). Two runs that trained their own action nets score them
// with the same weights only where training reproduced the weights bit for bit (retraining on
// the Go backend does; XLA on a GPU does not), so where the runs' results name different action
// nets (other weights where both give the digest of the weights, else another training run)
// those rows say so (RunDifference.OtherActionNet) and the summary names the experiments: their
// B − A may hold the difference between the action nets as well as between the models.

// RunDifference is one number measured by two runs: B − A.
type RunDifference struct {
	Experiment string // the result's folder name (Result.Dir)
	Number     string // the number's name
	Stride     int    // the rollout stride it was measured with (0: none)
	A, B       float64
	Diff       float64 // B − A
	// PairedOver are the training seeds both runs give the number for (none when either run
	// lacks per-seed values), PairedDiff the mean of B − A over them (NaN without them): B − A
	// itself where the runs have the same training seeds.
	PairedOver []int
	PairedDiff float64
	// partial: PairedOver leaves out a training seed of either run.
	partial bool
	// PairedLo and PairedHi bound the 95 % t-interval of the per-training-seed differences
	// (NaN with fewer than two seeds in PairedOver).
	PairedLo, PairedHi float64
	// PairedSD is the standard deviation of those per-training-seed differences and PairedSeeds
	// their count (NaN and 0 without a paired interval): with them, Detectable says how large a
	// difference the pairing could have shown.
	PairedSD    float64
	PairedSeeds int
	// WelchLo and WelchHi bound Welch's 95 % interval (NaN without a spread in both runs).
	WelchLo, WelchHi float64
	// SeedSD is a training seed's standard deviation, pooled over the two runs (NaN without a
	// spread in both runs).
	SeedSD  float64
	Verdict string // Differs or Inconclusive; "" for an exact number
	// OtherActionNet: the number is scored by the action net (FVD, action agreement) and the two
	// runs' results name different action nets (the summary names them).
	OtherActionNet bool
}

// RunComparison is CompareRuns' outcome.
type RunComparison struct {
	A, B  string // what the two runs are (labels for the table)
	Rows  []RunDifference
	OnlyA []string // experiments that only run A has
	OnlyB []string // experiments that only run B has
	// OtherSeeds names the common experiments whose runs have different training seeds, each
	// with both runs' seeds ("minecraft_main (A: 1, 2, 3; B: 1)").
	OtherSeeds []string
	// otherNets are the common experiments whose results name different action nets, grouped
	// by the pair of action nets, in a's order.
	otherNets []netPair
	// Unmatched counts the numbers of common experiments that only one run has.
	Unmatched int
}

// CompareRuns sets run b's results against run a's (as LoadResults reads them), experiment by
// experiment in a's order, and within an experiment in a's order of numbers.
func CompareRuns(a, b []*Result, labelA, labelB string) *RunComparison {
	c := &RunComparison{A: labelA, B: labelB}
	byDir := map[string]*Result{}
	for _, r := range b {
		byDir[r.Dir()] = r
	}
	seen := map[string]bool{}
	for _, ra := range a {
		dir := ra.Dir()
		seen[dir] = true
		rb, ok := byDir[dir]
		if !ok {
			c.OnlyA = append(c.OnlyA, dir)
			continue
		}
		c.add(dir, ra, rb)
	}
	for _, r := range b {
		if !seen[r.Dir()] {
			c.OnlyB = append(c.OnlyB, r.Dir())
		}
	}
	sort.Strings(c.OnlyB)
	return c
}

// CompareResults sets one result against another of the same experiment whatever their
// folders: the same experiment on two recipes, such as minecraft_main on the paper recipe
// trained for 3,500 and for 7,000 steps (`eqf paper compare results/minecraft_main-paper-3.5k
// results/minecraft_main`). Its rows name a's folder. It is an error when the two are
// different experiments.
func CompareResults(a, b *Result, labelA, labelB string) (*RunComparison, error) {
	if a == nil || b == nil {
		return nil, fmt.Errorf("paper: CompareResults: a result is nil: must be two results of the same experiment")
	}
	if a.Name != b.Name {
		return nil, fmt.Errorf("paper: CompareResults: %q against %q: must be results of the same experiment", a.Name, b.Name)
	}
	c := &RunComparison{A: labelA, B: labelB}
	c.add(a.Dir(), a, b)
	return c, nil
}

// add appends the rows of the numbers that both results have.
func (c *RunComparison) add(dir string, ra, rb *Result) {
	type key struct {
		name   string
		stride int
	}
	nb := map[key]Number{}
	for _, n := range rb.Numbers {
		nb[key{pairingKey(n.Name), n.Stride}] = n
	}
	if !slices.Equal(ra.TrainSeeds, rb.TrainSeeds) {
		c.OtherSeeds = append(c.OtherSeeds, fmt.Sprintf("%s (%s: %s; %s: %s)", dir, c.A, seedList(ra.TrainSeeds), c.B, seedList(rb.TrainSeeds)))
	}
	netA, netB := ra.Models["action-net"], rb.Models["action-net"] // "" in an analytic experiment
	otherNet := netA != "" && netB != "" && !sameActionNet(netA, netB)
	matched, scored := 0, 0
	for _, na := range ra.Numbers {
		n2, ok := nb[key{pairingKey(na.Name), na.Stride}]
		if !ok {
			c.Unmatched++
			continue
		}
		matched++
		d := compareNumber(dir, na, n2, ra.TrainSeeds, rb.TrainSeeds)
		d.OtherActionNet = otherNet && scoredByActionNet(na.Name)
		if d.OtherActionNet {
			scored++
		}
		c.Rows = append(c.Rows, d)
	}
	c.Unmatched += len(rb.Numbers) - matched
	if scored > 0 {
		i := slices.IndexFunc(c.otherNets, func(p netPair) bool { return p.a == netA && p.b == netB })
		if i < 0 {
			i = len(c.otherNets)
			c.otherNets = append(c.otherNets, netPair{a: netA, b: netB})
		}
		c.otherNets[i].dirs = append(c.otherNets[i].dirs, dir)
	}
}

// netPair is the action nets that two runs' results of some experiments (dirs) name.
type netPair struct {
	a, b string
	dirs []string
}

// sameActionNet says whether two results' action-net lines name the same action net: the same
// weights where the digests of both are known (digestOf; a retraining that reproduced the weights
// has another date), else the same line.
func sameActionNet(a, b string) bool {
	da, okA := digestOf(a)
	db, okB := digestOf(b)
	if okA && okB {
		return da == db
	}
	return a == b
}

// weightsTag ends a result's action-net line before the digest of its weights (provenance).
const weightsTag = ", weights "

// digestOf is the digest of the weights an action-net line gives, or, for a committed result
// saved before results gave it, the digest its action net is known to have had
// (committedActionNets); ok false for any other line without one.
func digestOf(line string) (digest string, ok bool) {
	if _, digest, ok = strings.Cut(line, weightsTag); ok {
		return digest, true
	}
	if slices.Contains(committedActionNets, line) {
		return committedActionNetDigest, true
	}
	return "", false
}

// committedActionNets are the action-net lines of the committed results (results/, and the runs
// kept in docs/runs) saved before results named their action net's weights, whose weights are
// zoo/action-net's: every one is a training of the paper recipes' action-net configuration on
// two CPU cores with the Go backend (each result's run.txt says so), which trains it to the same
// bytes every time — the committed action net, zoo/action-net (its README: three retrainings
// gave the same file, and the cards of these trainings kept in docs/runs give its validation
// accuracies to the last digit; the paper-70k zoo's, retrained on 2026-12-02, is the same file
// again). A GPU run scored with zoo/action-net thus compares with them in the same features.
// TestCommittedActionNetLines checks the list against results/, docs/runs and zoo/action-net.
var committedActionNets = []string{
	"paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-26 05:42",
	"paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-27 02:38",
	"paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-28 03:20",
	"paper-8 recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-27 16:38",
	"paper-70k recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-28 17:45", // docs/runs/2026-11-28-cpu-paper-70k
}

// committedActionNetDigest is zoo.ActionNetDigest of zoo/action-net.
const committedActionNetDigest = "e79c74a8fcb17ab3"

// scoredByActionNet: a number the action net scores (an FVD, in its features, or an action
// agreement, by its classifier), by the names the experiments give them.
func scoredByActionNet(name string) bool {
	return strings.Contains(name, "FVD") || strings.Contains(name, "action agreement")
}

// pairingKey is a number's name with a one-training-seed pairing's ending read as the pairing by
// training seed (pairedByTrainingSeed): the same difference, measured on one seed.
func pairingKey(name string) string {
	for _, end := range []string{pairedByEvaluationSeed, pairedOnOneSet} {
		if stem, ok := strings.CutSuffix(name, end); ok {
			return stem + pairedByTrainingSeed
		}
	}
	return name
}

// compareNumber is one row: the intervals that the two numbers' spreads allow.
func compareNumber(dir string, a, b Number, seedsA, seedsB []int) RunDifference {
	d := RunDifference{Experiment: dir, Number: a.Name, Stride: a.Stride, A: a.Ours, B: b.Ours, Diff: b.Ours - a.Ours,
		PairedDiff: math.NaN(), PairedLo: math.NaN(), PairedHi: math.NaN(), PairedSD: math.NaN(), WelchLo: math.NaN(), WelchHi: math.NaN(), SeedSD: math.NaN()}
	meanA, seA, nA := spread(a, seedsA)
	meanB, seB, nB := spread(b, seedsB)
	if va, vb := bySeed(a, seedsA), bySeed(b, seedsB); va != nil && vb != nil {
		var diffs []float64
		for _, k := range seedsA {
			if y, ok := vb[k]; ok {
				diffs = append(diffs, y-va[k])
				d.PairedOver = append(d.PairedOver, k)
			}
		}
		if len(diffs) > 0 {
			d.PairedDiff = mean(diffs)
			d.partial = len(diffs) < len(seedsA) || len(diffs) < len(seedsB)
		}
		if len(diffs) >= 2 {
			_, d.PairedLo, d.PairedHi = MeanInterval(diffs)
			d.PairedSD, d.PairedSeeds = sampleSD(diffs), len(diffs)
		}
	}
	if nA >= 2 && nB >= 2 && (seA > 0 || seB > 0) {
		d.WelchLo, d.WelchHi = welch(meanA, seA, nA, meanB, seB, nB)
		d.SeedSD = math.Sqrt((seA*seA*float64(nA) + seB*seB*float64(nB)) / 2)
	}
	switch {
	case !math.IsNaN(d.PairedLo):
		d.Verdict = verdictAt(d.PairedLo, d.PairedHi, 0)
	case !math.IsNaN(d.WelchLo):
		d.Verdict = verdictAt(d.WelchLo, d.WelchHi, 0)
	}
	return d
}

// bySeed is a number's value per training seed: its per-seed values, or a run of one training
// seed's value; nil when the number keeps none (an exact number, a mean and standard error
// only).
func bySeed(n Number, seeds []int) map[int]float64 {
	switch {
	case len(n.PerSeed) >= 2 && len(n.PerSeed) == len(seeds):
		m := make(map[int]float64, len(seeds))
		for i, k := range seeds {
			m[k] = n.PerSeed[i]
		}
		return m
	case len(n.PerSeed) == 0 && len(seeds) == 1:
		return map[int]float64{seeds[0]: n.Ours}
	}
	return nil
}

// spread is a number's mean, standard error over training seeds and count of training seeds:
// from its per-seed values, or else from its reported mean and standard error over the run's
// training seeds (a count of 1 when it has neither: an exact number or a single seed).
func spread(n Number, seeds []int) (mean, se float64, count int) {
	if len(n.PerSeed) >= 2 {
		mean, se = stat(n.PerSeed)
		return mean, se, len(n.PerSeed)
	}
	if n.Err > 0 && len(seeds) >= 2 {
		return n.Ours, n.Err, len(seeds)
	}
	return n.Ours, 0, 1
}

// welch is Welch's 95 % interval of mB − mA from each sample's mean, standard error and size,
// with the Welch–Satterthwaite degrees of freedom.
func welch(mA, seA float64, nA int, mB, seB float64, nB int) (lo, hi float64) {
	vA, vB := seA*seA, seB*seB
	df := (vA + vB) * (vA + vB) / (vA*vA/float64(nA-1) + vB*vB/float64(nB-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	h := t * math.Sqrt(vA+vB)
	return mB - mA - h, mB - mA + h
}

// Summary says how many numbers were compared, how many with an interval, how many of those
// differ and how many would by chance alone, and how far apart the runs are in training-seed
// standard deviations (the median over the numbers that have one).
func (c *RunComparison) Summary() string {
	var withInterval, differ int
	var sds []float64
	for _, r := range c.Rows {
		if r.Verdict != "" {
			withInterval++
		}
		if r.Verdict == Differs {
			differ++
		}
		if r.SeedSD > 0 {
			sds = append(sds, math.Abs(r.Diff)/r.SeedSD)
		}
	}
	s := fmt.Sprintf("%d numbers in both runs, %d with an interval over training seeds: %d differ (95 %%), where about %.1f would by chance alone",
		len(c.Rows), withInterval, differ, 0.05*float64(withInterval))
	if len(sds) > 0 {
		sort.Float64s(sds)
		within := sort.SearchFloat64s(sds, 1)
		s += fmt.Sprintf("; |B − A| is %.2f training-seed standard deviations at the median, within one for %d of %d", median(sds), within, len(sds))
	}
	s += "."
	if len(c.OnlyA) > 0 {
		s += fmt.Sprintf(" Only in %s: %s.", c.A, strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		s += fmt.Sprintf(" Only in %s: %s.", c.B, strings.Join(c.OnlyB, ", "))
	}
	if c.Unmatched > 0 {
		s += fmt.Sprintf(" %d numbers of common experiments are in one run only.", c.Unmatched)
	}
	if len(c.otherNets) > 0 {
		var groups []string
		digests := true // every pair gives the digests of its weights
		for _, p := range c.otherNets {
			groups = append(groups, fmt.Sprintf("%s (%s: %s; %s: %s)", strings.Join(p.dirs, ", "), c.A, p.a, c.B, p.b))
			_, okA := digestOf(p.a)
			_, okB := digestOf(p.b)
			digests = digests && okA && okB
		}
		n := 0
		for _, r := range c.Rows {
			if r.OtherActionNet {
				n++
			}
		}
		what := fmt.Sprintf("the runs name different action nets in %s: %d of these numbers (marked \"other action net\") compare the same "+
			"features only if both action nets were trained bit for bit alike (retraining on the Go backend does that, XLA on a GPU does not); "+
			"otherwise their B − A holds the difference between the action nets as well", strings.Join(groups, ", "), n)
		if digests {
			what = fmt.Sprintf("the runs' action nets have different weights in %s: %d of these numbers (marked \"other action net\") are "+
				"measured in different features, so their B − A holds the difference between the action nets as well as between the models",
				strings.Join(groups, ", "), n)
		}
		s += " FVD and action agreement are scored by each run's action net, and " + what +
			" (the committed results' action net is zoo/action-net, which `make gpu-repro` scores with unless ACTION_NET says otherwise)."
	}
	if len(c.OtherSeeds) > 0 {
		s += fmt.Sprintf(" Training seeds differ in %s: B − A sets means over different seeds; the paired column pairs the seeds both runs have and names them.",
			strings.Join(c.OtherSeeds, ", "))
	}
	return s
}

// Markdown is the summary and one table row per number: both runs' values, B − A, the two
// intervals, the difference in training-seed standard deviations and the verdict.
func (c *RunComparison) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s against %s\n\n%s\n\n", c.B, c.A, c.Summary())
	if len(c.Rows) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "| experiment | number | %s (A) | %s (B) | B − A | paired by training seed [95 %%] | detectable (80 %%) | Welch [95 %%] | in seed SDs | verdict |\n", cell(c.A), cell(c.B))
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range c.Rows {
		fmt.Fprintf(&b, "| %s | %s | %.4g | %.4g | %+.3g | %s | %s | %s | %s | %s |\n", r.Experiment, cell(r.label()), r.A, r.B, r.Diff,
			r.pairedCell(), r.detectableCell(), interval(r.WelchLo, r.WelchHi), r.inSeedSDs(), r.verdictCell())
	}
	return b.String()
}

// verdictCell is the verdict ("—" for an exact number), marked when the runs' action nets differ.
func (r RunDifference) verdictCell() string {
	if r.OtherActionNet {
		return orDash(r.Verdict) + " (other action net)"
	}
	return orDash(r.Verdict)
}

// label is the number's name with its stride in front when the name does not start with it.
func (r RunDifference) label() string {
	if r.Stride > 0 && !strings.HasPrefix(r.Number, fmt.Sprintf("S=%d", r.Stride)) {
		return fmt.Sprintf("S=%d: %s", r.Stride, r.Number)
	}
	return r.Number
}

// Detectable is the smallest true B − A that the paired interval would show (exclude zero)
// with probability 80 % at the spread of the per-seed differences (NaN without a paired
// interval, or with no spread): what an interval that includes zero can rule out.
func (r RunDifference) Detectable() float64 {
	return detectable(r.PairedSeeds, r.PairedSD, planningPower)
}

// detectableCell writes Detectable for a table ("—" when there is none).
func (r RunDifference) detectableCell() string {
	if d := r.Detectable(); !math.IsNaN(d) {
		return fmt.Sprintf("%.3g", d)
	}
	return "—"
}

// pairedCell writes the paired interval for a table: where the pairing leaves out training
// seeds of either run (B − A is then not the paired mean), also the paired mean and the seeds
// it is over; with one seed, that seed's difference alone ("—" without per-seed values).
func (r RunDifference) pairedCell() string {
	switch {
	case len(r.PairedOver) == 0:
		return "—"
	case len(r.PairedOver) == 1:
		return fmt.Sprintf("%+.3g (seed %d only: no interval)", r.PairedDiff, r.PairedOver[0])
	case !r.partial:
		return interval(r.PairedLo, r.PairedHi)
	}
	return fmt.Sprintf("%+.3g %s (seeds %s)", r.PairedDiff, interval(r.PairedLo, r.PairedHi), seedList(r.PairedOver))
}

// inSeedSDs is B − A in training-seed standard deviations ("—" without a spread).
func (r RunDifference) inSeedSDs() string {
	if r.SeedSD > 0 {
		return fmt.Sprintf("%+.2f", r.Diff/r.SeedSD)
	}
	return "—"
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "—"
	}
	return fmt.Sprintf("[%.3g, %.3g]", lo, hi)
}
