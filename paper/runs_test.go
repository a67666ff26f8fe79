package paper

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Student-t 97.5 % quantiles from the tables: 2 and 4 degrees of freedom.
const (
	t2 = 4.302652729749464
	t4 = 2.7764451051977987
)

func TestCompareRuns(t *testing.T) {
	seeds := []int{1, 2, 3}
	a := []*Result{
		{Name: "minecraft_main", TrainSeeds: seeds, Numbers: []Number{
			{Name: "FVD", Stride: 2, Ours: 2, Err: 1 / math.Sqrt(3), PerSeed: []float64{1, 2, 3}},
			{Name: "agreement", Stride: 2, Ours: 5, Err: 1},
			{Name: "NFE", Ours: 20},
			{Name: "only in A", Ours: 1},
		}},
		{Name: "bowls", TrainSeeds: seeds},
	}
	b := []*Result{
		{Name: "minecraft_main", TrainSeeds: seeds, Numbers: []Number{
			// the same spread as A's in another order: Welch's df is 4, the paired differences 12, 9, 9
			{Name: "FVD", Stride: 2, Ours: 12, Err: 1 / math.Sqrt(3), PerSeed: []float64{13, 11, 12}},
			{Name: "agreement", Stride: 2, Ours: 9, Err: 1},
			{Name: "NFE", Ours: 20},
			{Name: "FVD", Stride: 1, Ours: 3}, // another stride: not A's
		}},
		{Name: "nle", TrainSeeds: seeds},
	}
	c := CompareRuns(a, b, "cpu", "gpu")
	if len(c.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (FVD, agreement, NFE): %+v", len(c.Rows), c.Rows)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	fvd := c.Rows[0]
	near("FVD B − A", fvd.Diff, 10)
	near("FVD paired lo", fvd.PairedLo, 10-t2)
	near("FVD paired hi", fvd.PairedHi, 10+t2)
	near("FVD Welch lo", fvd.WelchLo, 10-t4*math.Sqrt(2.0/3))
	near("FVD Welch hi", fvd.WelchHi, 10+t4*math.Sqrt(2.0/3))
	near("FVD seed SD", fvd.SeedSD, 1)
	near("FVD paired SD", fvd.PairedSD, math.Sqrt(3))
	if d := fvd.Detectable(); fvd.PairedSeeds != 3 || math.Abs(tPower(3, d, math.Sqrt(3))-planningPower) > 1e-6 || d <= t2 {
		t.Errorf("FVD detectable %.4g over %d seeds: power %.4f there, want %.2f, beyond the interval's half-width %.4g",
			d, fvd.PairedSeeds, tPower(3, d, math.Sqrt(3)), planningPower, t2)
	}
	if fvd.Verdict != Differs {
		t.Errorf("FVD verdict %q, want %q", fvd.Verdict, Differs)
	}
	agr := c.Rows[1] // mean ± standard error only: Welch's from them, df 4
	if !math.IsNaN(agr.PairedLo) || !math.IsNaN(agr.Detectable()) {
		t.Errorf("agreement has a paired interval %g (detectable %g) without per-seed values", agr.PairedLo, agr.Detectable())
	}
	near("agreement Welch lo", agr.WelchLo, 4-t4*math.Sqrt(2))
	near("agreement Welch hi", agr.WelchHi, 4+t4*math.Sqrt(2))
	near("agreement seed SD", agr.SeedSD, math.Sqrt(3))
	if agr.Verdict != Differs {
		t.Errorf("agreement verdict %q, want %q (the interval [%.3g, %.3g] excludes 0)", agr.Verdict, Differs, agr.WelchLo, agr.WelchHi)
	}
	nfe := c.Rows[2]
	if nfe.Verdict != "" || !math.IsNaN(nfe.WelchLo) || nfe.Diff != 0 {
		t.Errorf("an exact number: %+v, want no interval, no verdict, difference 0", nfe)
	}
	if c.Unmatched != 2 || strings.Join(c.OnlyA, ",") != "bowls" || strings.Join(c.OnlyB, ",") != "nle" {
		t.Errorf("unmatched %d, only A %v, only B %v; want 2, [bowls], [nle]", c.Unmatched, c.OnlyA, c.OnlyB)
	}
	sum := c.Summary()
	for _, want := range []string{"3 numbers in both runs, 2 with an interval", "2 differ", "about 0.1 would by chance", "Only in cpu: bowls", "Only in gpu: nle", "2 numbers of common experiments"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	md := c.Markdown()
	if !strings.Contains(md, fmt.Sprintf("| minecraft_main | S=2: FVD | 2 | 12 | +10 | [5.7, 14.3] | %.3g |", fvd.Detectable())) ||
		!strings.Contains(md, "| minecraft_main | S=2: agreement | 5 | 9 | +4 | — | — |") {
		t.Errorf("markdown lacks the FVD row:\n%s", md)
	}

	// Within the noise: the same per-seed values shifted by a tenth of a seed's SD.
	b[0].Numbers[0].PerSeed = []float64{1.1, 2.1, 3.1}
	b[0].Numbers[0].Ours = 2.1
	fvd = CompareRuns(a, b, "cpu", "gpu").Rows[0]
	near("shifted FVD in seed SDs", fvd.Diff/fvd.SeedSD, 0.1)
	if fvd.Verdict != Differs { // a constant shift over paired seeds is a difference, however small
		t.Errorf("a constant shift: verdict %q, want %q", fvd.Verdict, Differs)
	}
	b[0].Numbers[0].PerSeed = []float64{1.5, 1.6, 3.2}
	b[0].Numbers[0].Ours = 6.3 / 3
	if v := CompareRuns(a, b, "cpu", "gpu").Rows[0].Verdict; v != Inconclusive {
		t.Errorf("differences 0.5, −0.4, 0.2: verdict %q, want %q", v, Inconclusive)
	}
}

// Runs of different training seeds (a run still training its seeds, a GPU run of fewer): paired
// over the seeds both have, one seed's difference alone without an interval, and said so.
func TestCompareRunsOtherSeeds(t *testing.T) {
	a := []*Result{{Name: "minecraft_main", TrainSeeds: []int{1, 2, 3}, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 2, Err: 1 / math.Sqrt(3), PerSeed: []float64{1, 2, 3}},
		{Name: "agreement", Stride: 2, Ours: 5, Err: 1},
	}}}
	one := []*Result{{Name: "minecraft_main", TrainSeeds: []int{1}, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 13},
		{Name: "agreement", Stride: 2, Ours: 9},
	}}}
	c := CompareRuns(a, one, "14k", "70k")
	fvd, agr := c.Rows[0], c.Rows[1]
	if fvd.Diff != 11 || fvd.PairedDiff != 12 || !slices.Equal(fvd.PairedOver, []int{1}) || !math.IsNaN(fvd.PairedLo) || fvd.PairedSeeds != 0 || fvd.Verdict != "" {
		t.Errorf("one seed against three: %+v; want B − A 11, seed 1's difference 12 alone, no interval, no verdict", fvd)
	}
	if agr.PairedOver != nil || !math.IsNaN(agr.PairedDiff) || agr.Verdict != "" {
		t.Errorf("agreement keeps no per-seed values in A: %+v; want no pairing, no verdict", agr)
	}
	md := c.Markdown()
	for _, want := range []string{
		"| minecraft_main | S=2: FVD | 2 | 13 | +11 | +12 (seed 1 only: no interval) | — |",
		"Training seeds differ in minecraft_main (14k: 1, 2, 3; 70k: 1)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}

	// A difference between two methods, paired by training seed in A: a run of one training seed
	// names it by its evaluation seeds or by its one rollout set, and it is still seed 1's value.
	gap := "S=2: EqF NAG: FVD − S=2: FM Euler's"
	a[0].Numbers = append(a[0].Numbers, Number{Name: gap + pairedByTrainingSeed, Stride: 2, Ours: -1, PerSeed: []float64{-14, -13, 24}})
	for _, end := range []string{pairedByEvaluationSeed, pairedOnOneSet} {
		one[0].Numbers = []Number{{Name: gap + end, Stride: 2, Ours: -4, Err: 2}}
		c := CompareRuns(a, one, "14k", "70k")
		if len(c.Rows) != 1 || c.Unmatched != 2 || c.Rows[0].Number != gap+pairedByTrainingSeed || c.Rows[0].PairedDiff != 10 || !slices.Equal(c.Rows[0].PairedOver, []int{1}) {
			t.Errorf("%q against the same number paired by training seed: rows %+v, %d unmatched; want one row, seed 1's difference 10", end, c.Rows, c.Unmatched)
		}
	}
	a[0].Numbers = a[0].Numbers[:2]

	// Seeds 1 and 2 of the three: paired over those two (differences 12 and 9), one degree of
	// freedom; the cell names the seeds, since B − A (10, against all three of A's seeds) is not
	// their mean.
	two := []*Result{{Name: "minecraft_main", TrainSeeds: []int{1, 2}, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 12, Err: 1, PerSeed: []float64{13, 11}},
	}}}
	c = CompareRuns(a, two, "14k", "70k")
	fvd = c.Rows[0]
	t1 := 12.706204736174707 // Student-t 97.5 % quantile, 1 degree of freedom
	h := t1 * 1.5            // the differences' SD 3/√2 over √2
	if !slices.Equal(fvd.PairedOver, []int{1, 2}) || fvd.PairedDiff != 10.5 || fvd.PairedSeeds != 2 ||
		math.Abs(fvd.PairedLo-(10.5-h)) > 1e-9 || math.Abs(fvd.PairedHi-(10.5+h)) > 1e-9 || fvd.Verdict != Inconclusive {
		t.Errorf("seeds 1, 2 against 1, 2, 3: %+v; want the mean 10.5 of 12 and 9 in 10.5 ∓ %.6g, inconclusive", fvd, h)
	}
	if md := c.Markdown(); !strings.Contains(md, fmt.Sprintf("| +10.5 %s (seeds 1, 2) |", interval(10.5-h, 10.5+h))) {
		t.Errorf("markdown lacks the paired mean over seeds 1, 2:\n%s", md)
	}
	// Seeds 1 and 3, whose differences (12 and 8) average to B − A itself (10): still named, since
	// the pairing leaves seed 2 out.
	c = CompareRuns(a, []*Result{{Name: "minecraft_main", TrainSeeds: []int{1, 3}, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 12, Err: 1, PerSeed: []float64{13, 11}},
	}}}, "14k", "70k")
	if r := c.Rows[0]; r.Diff != 10 || r.PairedDiff != 10 || !strings.Contains(c.Markdown(), "(seeds 1, 3) |") {
		t.Errorf("seeds 1, 3 against 1, 2, 3: %+v; want B − A and the paired mean 10, the cell naming seeds 1, 3:\n%s", r, c.Markdown())
	}
	// The same seeds in another order pair seed by seed, not position by position.
	b := []*Result{{Name: "minecraft_main", TrainSeeds: []int{3, 2, 1}, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 12, Err: 1 / math.Sqrt(3), PerSeed: []float64{12, 11, 13}},
	}}}
	if r := CompareRuns(a, b, "a", "b").Rows[0]; r.PairedSeeds != 3 || math.Abs(r.PairedLo-(10-t2)) > 1e-9 {
		t.Errorf("seeds 3, 2, 1 against 1, 2, 3: %+v; want differences 12, 9, 9 paired by seed", r)
	}
}

// FVD and action agreement are scored by each run's action net: where the runs' results name
// different ones, those rows and the summary say so; flicker and the rest are untouched.
func TestCompareRunsOtherActionNet(t *testing.T) {
	const cpuNet = "paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-27 02:38"
	const gpuNet = "paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-29 23:58"
	result := func(name string, models map[string]string) *Result {
		return &Result{Name: name, TrainSeeds: []int{1}, Models: models, Numbers: []Number{
			{Name: "S=2: FM Euler (c-function): FVD (maze-I3D)", Stride: 2, Ours: 50},
			{Name: "S=2: FM Euler (c-function): action agreement", Stride: 2, Ours: 0.7},
			{Name: "S=2: FM Euler (c-function): flicker", Stride: 2, Ours: 0.24},
			{Name: "S=2: EqF NAG: FVD − S=2: FM Euler's" + pairedByTrainingSeed, Stride: 2, Ours: -4},
		}}
	}
	// a result of several training seeds names the shared action net once, its backbones per seed
	seeded := map[string]string{"action-net": cpuNet, "fm, training seed 1": "paper recipe, 7000 steps", "fm, training seed 2": "paper recipe, 7000 steps"}
	a := []*Result{result("minecraft_main", seeded), result("bowls", map[string]string{"action-net": cpuNet}), result("nle", nil)}
	b := []*Result{result("minecraft_main", map[string]string{"action-net": gpuNet}), result("bowls", map[string]string{"action-net": gpuNet}), result("nle", map[string]string{"action-net": gpuNet})}
	c := CompareRuns(a, b, "cpu", "gpu")
	var marked []string
	for _, r := range c.Rows {
		if r.OtherActionNet {
			marked = append(marked, r.Experiment+": "+r.Number)
		}
	}
	want := []string{
		"minecraft_main: S=2: FM Euler (c-function): FVD (maze-I3D)", "minecraft_main: S=2: FM Euler (c-function): action agreement",
		"minecraft_main: S=2: EqF NAG: FVD − S=2: FM Euler's" + pairedByTrainingSeed,
		"bowls: S=2: FM Euler (c-function): FVD (maze-I3D)", "bowls: S=2: FM Euler (c-function): action agreement",
		"bowls: S=2: EqF NAG: FVD − S=2: FM Euler's" + pairedByTrainingSeed,
	} // not flicker; not nle, whose A names no action net
	if !slices.Equal(marked, want) {
		t.Errorf("rows marked as scored by another action net:\n%s\nwant\n%s", strings.Join(marked, "\n"), strings.Join(want, "\n"))
	}
	md := c.Markdown()
	for _, s := range []string{
		"the runs name different action nets in minecraft_main, bowls (cpu: " + cpuNet + "; gpu: " + gpuNet + "): 6 of these numbers",
		"| bowls | S=2: FM Euler (c-function): action agreement | 0.7 | 0.7 | +0 | +0 (seed 1 only: no interval) | — | — | — | — (other action net) |",
		"| bowls | S=2: FM Euler (c-function): flicker | 0.24 | 0.24 | +0 | +0 (seed 1 only: no interval) | — | — | — | — |",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
	// The same action net in both: nothing marked, nothing said.
	b[0].Models, b[1].Models = seeded, map[string]string{"action-net": cpuNet}
	c = CompareRuns(a, b, "cpu", "gpu")
	for _, r := range c.Rows {
		if r.OtherActionNet {
			t.Errorf("the same action net in both runs, yet %s: %s is marked", r.Experiment, r.Number)
		}
	}
	if s := c.Summary(); strings.Contains(s, "action net") {
		t.Errorf("the same action net in both runs, yet the summary says: %s", s)
	}
	// With the digests of their weights: a retraining that reproduced them (another date, the
	// same digest) is the same action net; other weights are other features, said outright.
	b[1].Models = map[string]string{"action-net": gpuNet + ", weights 0123456789abcdef"}
	a[1].Models = map[string]string{"action-net": cpuNet + ", weights 0123456789abcdef"}
	if c := CompareRuns(a, b, "cpu", "gpu"); c.Rows[4].Experiment != "bowls" || c.Rows[4].OtherActionNet {
		t.Errorf("the same weights trained on two dates: %+v, want bowls' FVD unmarked", c.Rows[4])
	}
	b[1].Models = map[string]string{"action-net": cpuNet + ", weights fedcba9876543210"}
	c = CompareRuns(a, b, "cpu", "gpu")
	if !c.Rows[4].OtherActionNet || !strings.Contains(c.Summary(), "the runs' action nets have different weights in bowls (cpu: "+cpuNet+", weights 0123456789abcdef; gpu: ") {
		t.Errorf("other weights on the same date: %+v, want bowls' FVD marked; summary: %s", c.Rows[4], c.Summary())
	}
}

// One experiment on two recipes: matched although their folders differ, and an error for two
// different experiments.
func TestCompareResults(t *testing.T) {
	seeds := []int{1, 2, 3}
	half := &Result{Name: "minecraft_main", Recipe: "paper-3.5k", TrainSeeds: seeds, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 2, PerSeed: []float64{1, 2, 3}},
		{Name: "only at 3.5k", Ours: 1},
	}}
	full := &Result{Name: "minecraft_main", TrainSeeds: seeds, Numbers: []Number{
		{Name: "FVD", Stride: 2, Ours: 12, PerSeed: []float64{13, 11, 12}},
	}}
	if d := CompareRuns([]*Result{half}, []*Result{full}, "a", "b"); len(d.Rows) != 0 || len(d.OnlyA) != 1 {
		t.Fatalf("CompareRuns matched two recipes' folders: %+v", d)
	}
	c, err := CompareResults(half, full, "3,500 steps", "7,000 steps")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Unmatched != 1 || c.Rows[0].Experiment != "minecraft_main-paper-3.5k" {
		t.Fatalf("rows %+v, unmatched %d; want the FVD row of minecraft_main-paper-3.5k and one unmatched", c.Rows, c.Unmatched)
	}
	r := c.Rows[0] // paired differences 12, 9, 9: mean 10, SD √3
	if r.Diff != 10 || math.Abs(r.PairedLo-(10-t2)) > 1e-9 || math.Abs(r.PairedHi-(10+t2)) > 1e-9 || r.Verdict != Differs {
		t.Errorf("FVD row %+v, want B − A 10 in [10 ∓ %.6g], differs", r, t2)
	}
	if _, err := CompareResults(half, nil, "a", "b"); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("against nil: error %v, want one saying a result is nil", err)
	}
	if _, err := CompareResults(half, &Result{Name: "bowls"}, "a", "b"); err == nil || !strings.Contains(err.Error(), "same experiment") {
		t.Errorf("minecraft_main against bowls: error %v, want one saying they must be the same experiment", err)
	}
}

// The committed results against themselves: every difference zero, none differs; and a folder
// that `eqf paper -out` wrote (with its .rollouts) reads as results/ does.
func TestCompareRunsCommitted(t *testing.T) {
	rs, err := LoadResults(ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	c := CompareRuns(rs, rs, "a", "b")
	if len(c.Rows) < 100 || c.Unmatched != 0 || len(c.OnlyA)+len(c.OnlyB) != 0 {
		t.Fatalf("%d rows, %d unmatched, only %v %v", len(c.Rows), c.Unmatched, c.OnlyA, c.OnlyB)
	}
	for _, r := range c.Rows {
		if r.Diff != 0 || r.Verdict == Differs {
			t.Errorf("%s %s: difference %g, verdict %q against itself", r.Experiment, r.Number, r.Diff, r.Verdict)
		}
	}
	dir := t.TempDir()
	r := &Result{Name: "minecraft_main", Numbers: []Number{{Name: "FVD", Ours: 1}}}
	if err := r.Save(filepath.Join(dir, r.Dir())); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".rollouts"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := LoadResults(dir)
	if err != nil || len(out) != 1 || out[0].Name != "minecraft_main" {
		t.Fatalf("an -out folder with .rollouts: %d results, %v", len(out), err)
	}
}

// TestCommittedCommands: results/commands.txt, which `make gpu-repro` runs, has one line per
// committed result, and each line is its run.txt's command: the same flags, and the folder's
// experiment among the names it runs.
func TestCommittedCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(ResultsDir(), "commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := LoadResults(ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		dir, cmd, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(cmd, "eqf paper ") {
			t.Fatalf("commands.txt: %q is not \"FOLDER: eqf paper …\"", line)
		}
		if _, dup := lines[dir]; dup {
			t.Errorf("commands.txt: %s twice", dir)
		}
		lines[dir] = cmd
	}
	// split is a command's flags (with their values) and the experiments it names.
	split := func(cmd string) (flags string, names []string) {
		f := strings.Fields(strings.TrimPrefix(cmd, "eqf paper "))
		var fl []string
		for i := 0; i < len(f); i++ {
			if strings.HasPrefix(f[i], "-") {
				fl = append(fl, f[i], f[i+1])
				i++
				continue
			}
			names = append(names, f[i])
		}
		return strings.Join(fl, " "), names
	}
	for _, r := range rs {
		cmd, ok := lines[r.Dir()]
		if !ok {
			t.Errorf("commands.txt has no line for %s", r.Dir())
			continue
		}
		delete(lines, r.Dir())
		flags, names := split(cmd)
		if len(names) != 1 || names[0] != r.Name {
			t.Errorf("%s: %q runs %v, want %s alone", r.Dir(), cmd, names, r.Name)
		}
		found := false
		for _, m := range regexp.MustCompile("`(eqf paper [^`]*)`").FindAllStringSubmatch(Run(filepath.Join(ResultsDir(), r.Dir())), -1) {
			f, n := split(m[1])
			found = found || f == flags && slices.Contains(n, r.Name)
		}
		if !found {
			t.Errorf("%s: %q is not the command its run.txt gives", r.Dir(), cmd)
		}
	}
	for dir := range lines {
		t.Errorf("commands.txt: %s is no committed result", dir)
	}
}

// docs/results.md's training-length section (LengthsMarkdown): an experiment with results at two lengths of the
// paper recipe gets a table of its numbers with intervals, one on a single length (or on
// another recipe) none.
func TestLengthsMarkdown(t *testing.T) {
	seeds := []int{1, 2, 3}
	rs := []*Result{
		{Name: "minecraft_main", TrainSeeds: seeds, Numbers: []Number{
			{Name: "S=2: EqF − FM", Stride: 2, Ours: 12, PerSeed: []float64{13, 11, 12}},
			{Name: "S=2: NFE", Stride: 2, Ours: 10},
		}},
		{Name: "minecraft_main", Recipe: "paper-3.5k", TrainSeeds: seeds, Numbers: []Number{
			{Name: "S=2: EqF − FM", Stride: 2, Ours: 2, PerSeed: []float64{1, 2, 3}},
			{Name: "S=2: NFE", Stride: 2, Ours: 10},
		}},
		{Name: "minecraft_main", Recipe: "paper-8", TrainSeeds: seeds, Numbers: []Number{{Name: "S=4: EqF − FM", Stride: 4, Ours: 5, PerSeed: []float64{4, 5, 6}}}},
		{Name: "bowls", TrainSeeds: seeds, Numbers: []Number{{Name: "x", Ours: 1, PerSeed: []float64{1, 1, 1}}}},
	}
	md := LengthsMarkdown(rs)
	for _, want := range []string{"## Training length", "### minecraft_main: 7,000 steps against 3,500 steps",
		fmt.Sprintf("| S=2: EqF − FM | 2 | 12 | +10 | [5.7, 14.3] paired | %.3g | ", detectable(3, math.Sqrt(3), planningPower)), "| differs |", "1 of 1 differ (95 %)"} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "NFE") || strings.Contains(md, "bowls") || strings.Contains(md, "S=4") {
		t.Errorf("section has an exact number, a single-length experiment or another recipe's:\n%s", md)
	}
	if md := LengthsMarkdown(rs[:1]); md != "" {
		t.Errorf("one length only: section\n%s", md)
	}
	// Three lengths: each against the next longer one, shortest first, never 14k against 3.5k.
	long := &Result{Name: "minecraft_main", Recipe: "paper-14k", TrainSeeds: seeds, Numbers: []Number{
		{Name: "S=2: EqF − FM", Stride: 2, Ours: 22, PerSeed: []float64{20, 21, 25}},
	}}
	md = LengthsMarkdown(append([]*Result{long}, rs...))
	first := strings.Index(md, "### minecraft_main: 7,000 steps against 3,500 steps")
	second := strings.Index(md, "### minecraft_main: 14,000 steps against 7,000 steps")
	if first < 0 || second < first || strings.Contains(md, "14,000 steps against 3,500") ||
		!strings.Contains(md, fmt.Sprintf("| S=2: EqF − FM | 12 | 22 | +10 | [2.55, 17.5] paired | %.3g | ", detectable(3, 3, planningPower))) {
		t.Errorf("three lengths: want 3.5k → 7k, then 7k → 14k (paired differences 7, 10, 13):\n%s", md)
	}
	// A length without results is skipped: 3.5k against 14k.
	if md := LengthsMarkdown([]*Result{long, rs[1]}); !strings.Contains(md, "### minecraft_main: 14,000 steps against 3,500 steps") {
		t.Errorf("3.5k and 14k only: section\n%s", md)
	}
	for n, want := range map[int]string{600: "600", 3500: "3,500", 70000: "70,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
