package paper

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/plots"
)

// Pooling training seeds. The protocol's intervals are over training seeds (stats.go), and each
// training seed's rollouts depend on its own models and the evaluation seeds only, not on which
// other seeds the run holds: training seed 3 run alone (`eqf paper -train-seed 3`,
// Config.TrainSeed) gives the numbers it gives in a run of seeds 1–3. So the seeds of one
// experiment can be run apart (as the models come: a session, a GPU lease, another machine) and
// pooled afterwards into the result one run of them all gives: PoolTrainingSeeds sets each
// number's per-seed values side by side (a run of one training seed gives its value, a run of
// several Number.PerSeed) and computes again over the pooled seeds the mean ± standard error of
// a measure, and the 95 % t-interval and verdict of a paired difference.
//
// The parts must be results of the same experiment, recipe and protocol (the same notes, which
// state the protocol and methods, but for the training seeds they name), on disjoint training
// seeds, scored by action nets not known to differ; a pooled result is a part like any other. A
// number that not every part has, or that some part keeps only as a mean ± standard error over
// its seeds (results saved before 2026-12-02 kept the per-seed values of FVD and the paired
// differences only), cannot be pooled: it is left out and the notes name it. The summary figure
// of FVD per method is drawn again from the pooled FVDs; FVD over time and the rollout strips are
// not (they need the rollouts): the parts keep theirs.

// poolable are the experiments PoolTrainingSeeds pools: those whose every paired difference is
// judged by the sign of the paper's difference (verdict), which the number's paper column gives
// as a leading signed value or as "< 0" / "> 0" (paperSign; paired, strideEffects and
// inferencePairs write them so). Other experiments judge some differences by a size or a bound
// (unfinished_denoising, planning_threshold) that a result does not record.
var poolable = []string{"minecraft_main", "minecraft_inference_expts"}

// borrowedSentence matches borrowedNote's sentence in a protocol note: its counts are each
// part's own, so parts are compared without it and the pooled notes give each part's.
var borrowedSentence = regexp.MustCompile(` \d+ of the \d+ rollouts' scores were read from the disk cache of other eqf builds \([^)]*\), taken as this build's because the changes since decide no rollout\.`)

// PoolTrainingSeeds pools results of one experiment run on disjoint training seeds into the
// result of all their training seeds (see above), in training-seed order.
func PoolTrainingSeeds(parts ...*Result) (*Result, error) {
	if len(parts) < 2 {
		return nil, fmt.Errorf("paper: PoolTrainingSeeds: got %d results: must be at least 2 results of one experiment on disjoint training seeds", len(parts))
	}
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d is nil", i+1)
		}
	}
	first := parts[0]
	if !slices.Contains(poolable, first.Name) {
		return nil, fmt.Errorf("paper: PoolTrainingSeeds: experiment %q is out of range: must be one of %s (whose paired differences are judged by the sign of the paper's)",
			first.Name, strings.Join(poolable, ", "))
	}
	var seeds []int
	owner := map[int]int{} // training seed → part
	for i, p := range parts {
		if p.Name != first.Name || p.Recipe != first.Recipe {
			return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d is %s on the %q recipe, result 1 %s on %q: must be one experiment on one recipe", i+1, p.Name, p.Recipe, first.Name, first.Recipe)
		}
		if len(p.TrainSeeds) == 0 {
			return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d names no training seeds", i+1)
		}
		for _, k := range p.TrainSeeds {
			if j, ok := owner[k]; ok {
				return nil, fmt.Errorf("paper: PoolTrainingSeeds: training seed %d is in results %d and %d: their training seeds must be disjoint", k, j+1, i+1)
			}
			owner[k] = i
			seeds = append(seeds, k)
		}
		if a, b := first.Models["action-net"], p.Models["action-net"]; a != b {
			da, okA := digestOf(a)
			db, okB := digestOf(b)
			if okA && okB && da != db {
				return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d is scored by another action net than result 1 (weights %s against %s): its FVD and agreement are in other features", i+1, db, da)
			}
		}
	}
	slices.Sort(seeds)
	out := &Result{Name: first.Name, Title: first.Title, Where: first.Where, Recipe: first.Recipe, TrainSeeds: seeds, Models: map[string]string{}}
	notes, err := pooledNotes(parts, seeds)
	if err != nil {
		return nil, err
	}
	var left, notInAll []string
	if out.Numbers, left, notInAll, err = pooledNumbers(parts, seeds); err != nil {
		return nil, err
	}
	out.Models, notes = pooledModels(parts, notes)
	var from []string
	for _, p := range parts {
		from = append(from, seedList(p.TrainSeeds))
	}
	notes = append(notes, fmt.Sprintf(pooledFrom+"%d runs of training seeds %s (PoolTrainingSeeds, `eqf paper pool`): each number's per-seed values are the runs' own; "+
		"means, standard errors, t-intervals and verdicts are computed over the %d pooled training seeds, and the figure of FVD per method from them; FVD over time and the rollout strips are the runs' own, not redrawn (they need the rollouts).",
		len(parts), strings.Join(from, "; "), len(seeds)))
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf(leftOut+"%d numbers that a run keeps only as a mean ± standard error over its training seeds, without each seed's value (results saved before 2026-12-02 kept them for FVD and the paired differences only): %s.",
			len(left), strings.Join(left, "; ")))
	}
	if len(notInAll) > 0 {
		notes = append(notes, fmt.Sprintf(leftOut+"%d numbers that not every run has: %s.", len(notInAll), strings.Join(notInAll, "; ")))
	}
	out.Notes = notes
	fig, err := pooledFVDFigure(out)
	if err != nil {
		return nil, err
	}
	if fig != nil {
		out.Figures = map[string]*plots.Figure{"fvd": fig}
	}
	return out, nil
}

// pooledFVDFigure draws the pooled result's FVD per method as its runs draw theirs (fvdBars: the
// mean ± standard error over training seeds), from each row's per-seed FVDs; nil when no FVD
// kept them.
func pooledFVDFigure(r *Result) (*plots.Figure, error) {
	var rows []methodScores
	for _, n := range r.Numbers {
		name, ok := strings.CutSuffix(n.Name, ": FVD (maze-I3D)")
		if !ok || len(n.PerSeed) != len(r.TrainSeeds) {
			continue
		}
		row := methodScores{m: method{Name: name, Stride: n.Stride}}
		for i, v := range n.PerSeed { // one rollout set per training seed: its value
			row.per, row.run = append(row.per, &scores{FVD: v}), append(row.run, r.TrainSeeds[i])
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return fvdBars(r.Title, rows)
}

// pooledNumbers are the parts' numbers pooled over seeds, in the first part's order, with the
// numbers left out: those a part keeps without per-seed values (left) and those not every part
// has (notInAll).
func pooledNumbers(parts []*Result, seeds []int) (out []Number, left, notInAll []string, err error) {
	byPart := make([]map[numberKey]Number, len(parts))
	for i, p := range parts {
		byPart[i] = map[numberKey]Number{}
		for _, n := range p.Numbers {
			if _, ok := byPart[i][keyOf(n)]; ok {
				return nil, nil, nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d has %s twice", i+1, numberLabel(n))
			}
			byPart[i][keyOf(n)] = n
		}
	}
	for _, n := range parts[0].Numbers {
		var ns []Number
		for i := range parts {
			if m, ok := byPart[i][keyOf(n)]; ok {
				ns = append(ns, m)
			}
		}
		if len(ns) < len(parts) {
			notInAll = append(notInAll, numberLabel(n))
			continue
		}
		pooled, ok, err := poolNumber(parts, ns, seeds)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			left = append(left, numberLabel(n))
			continue
		}
		out = append(out, pooled)
	}
	for _, p := range parts[1:] {
		for _, n := range p.Numbers {
			if _, ok := byPart[0][keyOf(n)]; !ok && !slices.Contains(notInAll, numberLabel(n)) {
				notInAll = append(notInAll, numberLabel(n))
			}
		}
	}
	return out, left, notInAll, nil
}

// seedsLabel is "training seed 3" or "training seeds 1, 2".
func seedsLabel(seeds []int) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("training seed %d", seeds[0])
	}
	return "training seeds " + seedList(seeds)
}

// numberKey matches a number across runs: its name (a run of one training seed's pairing read as
// the pairing by training seed) and stride.
type numberKey struct {
	name   string
	stride int
}

func keyOf(n Number) numberKey { return numberKey{pairingKey(n.Name), n.Stride} }

// The notes PoolTrainingSeeds adds begin so; a pooled result pooled again has them made anew.
const (
	pooledFrom    = "Pooled from "
	leftOut       = "Left out: "
	seedsPrefix   = "Training seed"                             // a run's rollouts read from another build's cache
	otherNetsNote = "Scored by the action nets listed for them" // a run's other action net
)

// pooledNote says whether a note is one PoolTrainingSeeds made.
func pooledNote(s string) bool {
	for _, p := range []string{pooledFrom, leftOut, seedsPrefix, otherNetsNote} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// numberLabel is a number's name with its stride where the name does not give it.
func numberLabel(n Number) string {
	if n.Stride == 0 || strings.HasPrefix(n.Name, fmt.Sprintf("S=%d: ", n.Stride)) {
		return pairingKey(n.Name)
	}
	return fmt.Sprintf("%s (S = %d)", pairingKey(n.Name), n.Stride)
}

// poolNumber pools a number, ns[i] being part i's, over seeds; ok is false when some part keeps
// no per-seed values of a number that is not exact (the same value in every part, none with a
// spread over seeds: a count such as a fixed NFE per frame, kept as it is).
func poolNumber(parts []*Result, ns []Number, seeds []int) (n Number, ok bool, err error) {
	vals := map[int]float64{}
	complete, exact := true, true
	for i, p := range parts {
		m := ns[i]
		if m.Err != 0 || len(m.PerSeed) > 0 || m.Lo != 0 || m.Hi != 0 || m.Ours != ns[0].Ours {
			exact = false
		}
		v := bySeed(m, p.TrainSeeds)
		if v == nil {
			complete = false
			continue
		}
		for k, x := range v {
			vals[k] = x
		}
		if err := checkVerdict(m, p); err != nil {
			return Number{}, false, err
		}
	}
	first := ns[0]
	if !complete {
		if exact {
			return first, true, nil
		}
		return Number{}, false, nil
	}
	per := make([]float64, len(seeds))
	for i, k := range seeds {
		per[i] = vals[k]
	}
	n = Number{Name: pairingKey(first.Name), Paper: first.Paper, Note: first.Note, Stride: first.Stride}
	if strings.HasSuffix(n.Name, pairedByTrainingSeed) {
		return pairedDiff(n, per, paperSign(n.Paper)), true, nil
	}
	if exact && !slices.ContainsFunc(per, func(x float64) bool { return x != per[0] }) {
		return first, true, nil // a count the same for every seed (NFE per frame): no spread to keep
	}
	n.Ours, n.Err = stat(per)
	n.PerSeed = per
	return n, true, nil
}

// checkVerdict checks that a paired difference of a part of several training seeds has the
// verdict PoolTrainingSeeds would give it (paperSign), so that a pooled verdict follows the
// experiment's own rule.
func checkVerdict(m Number, p *Result) error {
	if len(m.PerSeed) < 2 || !strings.HasSuffix(m.Name, pairedByTrainingSeed) {
		return nil
	}
	if again := pairedDiff(Number{}, m.PerSeed, paperSign(m.Paper)); again.Verdict != m.Verdict {
		return fmt.Errorf("paper: PoolTrainingSeeds: %s of training seeds %s is %q, which its per-seed values and paper column give as %q: this experiment judges it otherwise",
			numberLabel(m), seedList(p.TrainSeeds), m.Verdict, again.Verdict)
	}
	return nil
}

// paperSign is the paper's difference as a paired number's paper column gives it, for its
// verdict: its leading value ("-39.79"), or only its side ("< 0 (…)", "> 0 (…)"); NaN for none.
func paperSign(text string) float64 {
	switch v := paperValue(text); {
	case !math.IsNaN(v):
		return v
	case strings.HasPrefix(text, "< 0"):
		return -1
	case strings.HasPrefix(text, "> 0"):
		return 1
	}
	return math.NaN()
}

// pooledNotes are the parts' notes, which must be the same but for the training seeds the
// protocol note names (and the rollouts each part read from another build's cache, said after
// it per part), with the pooled seeds.
func pooledNotes(parts []*Result, seeds []int) ([]string, error) {
	norm := func(p *Result) []string {
		var out []string
		for _, s := range p.Notes {
			if pooledNote(s) {
				continue
			}
			s = borrowedSentence.ReplaceAllString(s, "")
			s = strings.Replace(s, fmt.Sprintf("training seeds %v,", p.TrainSeeds), fmt.Sprintf("training seeds %v,", seeds), 1)
			out = append(out, strings.Replace(s, overSeeds(len(p.TrainSeeds)), overSeeds(len(seeds)), 1))
		}
		return out
	}
	notes := norm(parts[0])
	for i, p := range parts[1:] {
		other := norm(p)
		if len(other) != len(notes) {
			return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d has %d notes, result 1 %d: must be the same protocol", i+2, len(other), len(notes))
		}
		for j := range notes {
			if other[j] != notes[j] {
				return nil, fmt.Errorf("paper: PoolTrainingSeeds: result %d's note %d differs from result 1's beyond the training seeds: must be the same protocol:\n  1: %s\n  %d: %s", i+2, j+1, notes[j], i+2, other[j])
			}
		}
	}
	for _, p := range parts {
		for _, s := range p.Notes {
			if strings.HasPrefix(s, seedsPrefix) { // a pooled part's, already under its seeds
				notes = append(notes, s)
				continue
			}
			if pooledNote(s) {
				continue
			}
			for _, b := range borrowedSentence.FindAllString(s, -1) {
				notes = append(notes, fmt.Sprintf("T%s:%s", seedsLabel(p.TrainSeeds)[1:], b))
			}
		}
	}
	return notes, nil
}

// pooledModels are the parts' models, each backbone under its training seed's name as a run of
// several seeds names it; the action net is the first part's, and a part whose result names
// another (not known to differ: PoolTrainingSeeds refuses those) adds its own under its seeds,
// with a note.
func pooledModels(parts []*Result, notes []string) (map[string]string, []string) {
	out := map[string]string{}
	net := parts[0].Models["action-net"]
	if net != "" {
		out["action-net"] = net
	}
	var others []string
	for _, p := range parts {
		for k, v := range p.Models {
			switch {
			case k == "action-net":
				if v != net && !sameActionNet(v, net) {
					out["action-net, "+seedsLabel(p.TrainSeeds)] = v
					others = append(others, seedsLabel(p.TrainSeeds))
				}
			case strings.HasPrefix(k, "action-net, training seed"): // a pooled part's
				out[k] = v
				others = append(others, strings.TrimPrefix(k, "action-net, "))
			case len(p.TrainSeeds) == 1 && !strings.Contains(k, ", training seed "):
				out[fmt.Sprintf("%s, training seed %d", k, p.TrainSeeds[0])] = v
			default:
				out[k] = v
			}
		}
	}
	if len(others) > 0 {
		slices.Sort(others)
		notes = append(notes, fmt.Sprintf(otherNetsNote+", other training runs than the first run's whose weights these results do not show to be the same (not both name their digest): "+
			"the FVD and action agreement of %s, which may be in other features.", strings.Join(others, "; ")))
	}
	return out, notes
}
