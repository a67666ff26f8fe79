package paper

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Training seeds run apart and pooled give the result of one run of them all, number for number
// to the last digit: minecraft_main on FM and EqF of the quick zoo, at both strides and with two
// evaluation seeds (so that a one-seed run's errors are over evaluation seeds and must not
// survive pooling), run on training seeds 1–2 at once, and on seed 1 and seed 2 alone.
func TestPoolTrainingSeeds(t *testing.T) {
	c := quick()
	c.TrainSeeds, c.Models, c.Strides, c.Seeds = 2, []string{"fm", "eqf"}, []int{0, 1}, 2
	runWith := func(c Config) *Result {
		t.Helper()
		r, err := MinecraftMain(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	both := runWith(c)
	c.TrainSeed = 1
	one := runWith(c)
	c.TrainSeed = 2
	two := runWith(c)
	if !slices.Equal(two.TrainSeeds, []int{2}) || two.Models["fm, training seed 2"] == "" || two.Models["fm"] != "" {
		t.Fatalf("a run of training seed 2 alone: TrainSeeds %v, Models %v: want [2], its backbones named with their seed", two.TrainSeeds, two.Models)
	}
	for _, parts := range [][]*Result{{one, two}, {two, one}} {
		pooled, err := PoolTrainingSeeds(parts...)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pooled.TrainSeeds, both.TrainSeeds) || len(pooled.Numbers) != len(both.Numbers) || !reflect.DeepEqual(pooled.Models, both.Models) {
			t.Fatalf("pooled: seeds %v, %d numbers, models %v; one run: %v, %d, %v", pooled.TrainSeeds, len(pooled.Numbers), pooled.Models, both.TrainSeeds, len(both.Numbers), both.Models)
		}
		verdicts := 0
		for i, n := range pooled.Numbers {
			if w := both.Numbers[i]; !sameNumber(n, w) {
				t.Errorf("pooled %+v\n  one run %+v", n, w)
			}
			if n.Verdict != "" {
				verdicts++
			}
		}
		if verdicts == 0 {
			t.Error("no pooled number has a verdict: the paired differences were not judged")
		}
		if !reflect.DeepEqual(pooled.Figures["fvd"], both.Figures["fvd"]) {
			t.Errorf("pooled FVD figure %+v\n  one run's %+v", pooled.Figures["fvd"], both.Figures["fvd"])
		}
		if !slices.Equal(pooled.Notes[:len(both.Notes)], both.Notes) || !strings.Contains(pooled.Notes[len(both.Notes)], "Pooled from 2 runs of training seeds") {
			t.Errorf("pooled notes:\n%s\none run's:\n%s", strings.Join(pooled.Notes, "\n"), strings.Join(both.Notes, "\n"))
		}
	}

	// A result saved before every measure kept its per-seed values: its agreement and flicker
	// are left out, and the notes name them; the exact NFE per frame is kept.
	old := clone(t, both)
	var agreement int
	for i, n := range old.Numbers {
		if strings.HasSuffix(n.Name, ": action agreement") || strings.HasSuffix(n.Name, ": flicker") {
			old.Numbers[i].PerSeed = nil
			agreement++
		}
	}
	third := clone(t, two)
	third.TrainSeeds = []int{3}
	third.Notes[0] = strings.Replace(third.Notes[0], "training seeds [2],", "training seeds [3],", 1)
	third.Models = map[string]string{"action-net": two.Models["action-net"], "fm, training seed 3": "x", "eqf, training seed 3": "y"}
	pooled, err := PoolTrainingSeeds(old, third)
	if err != nil {
		t.Fatal(err)
	}
	if len(pooled.Numbers) != len(both.Numbers)-agreement || !strings.Contains(pooled.Notes[len(pooled.Notes)-1], "Left out: ") ||
		!strings.Contains(pooled.Notes[len(pooled.Notes)-1], "S=2: FM Euler (c-function): flicker;") {
		t.Errorf("%d of %d numbers pooled (%d without per-seed values); last note %q", len(pooled.Numbers), len(both.Numbers), agreement, pooled.Notes[len(pooled.Notes)-1])
	}
	for _, n := range pooled.Numbers {
		if strings.Contains(n.Name, "NFE per frame") && (n.Ours != num(t, both, n.Name).Ours || len(n.PerSeed) != 0 || n.Err != 0) {
			t.Errorf("%s: %+v, want the exact count", n.Name, n)
		}
		if strings.HasSuffix(n.Name, "FVD (maze-I3D)") && len(n.PerSeed) != 3 {
			t.Errorf("%s: per seed %v, want 3", n.Name, n.PerSeed)
		}
	}

	// A pooled result pools again: with seed 4, as the three runs pooled at once. A number that
	// not every run has is left out, named.
	fourth := relabel(t, two, 2, 4)
	again, err := PoolTrainingSeeds(pooled12(t, one, two), fourth)
	if err != nil {
		t.Fatal(err)
	}
	atOnce, err := PoolTrainingSeeds(one, two, fourth)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.TrainSeeds, []int{1, 2, 4}) || len(again.Numbers) != len(atOnce.Numbers) || !reflect.DeepEqual(again.Models, atOnce.Models) ||
		!slices.Equal(again.Notes[:len(both.Notes)], atOnce.Notes[:len(both.Notes)]) || len(again.Notes) != len(atOnce.Notes) {
		t.Fatalf("pooled twice: seeds %v, %d numbers, notes\n%s\nat once: %d numbers, notes\n%s", again.TrainSeeds, len(again.Numbers), strings.Join(again.Notes, "\n"), len(atOnce.Numbers), strings.Join(atOnce.Notes, "\n"))
	}
	for i, n := range again.Numbers {
		if !sameNumber(n, atOnce.Numbers[i]) {
			t.Errorf("pooled twice %+v\n  at once %+v", n, atOnce.Numbers[i])
		}
	}
	fewer := clone(t, fourth)
	fewer.Numbers = fewer.Numbers[1:]
	p, err := PoolTrainingSeeds(one, fewer)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Numbers) != len(one.Numbers)-1 || !strings.HasPrefix(p.Notes[len(p.Notes)-1], "Left out: 1 numbers that not every run has: "+numberLabel(one.Numbers[0])) {
		t.Errorf("%d numbers of %d pooled; last note %q", len(p.Numbers), len(one.Numbers), p.Notes[len(p.Notes)-1])
	}

	// Action nets not known to be the same (no digest on one side): each run's is listed under its
	// seeds, and a note says so.
	undated := relabel(t, two, 2, 5)
	undated.Models["action-net"] = "quick recipe, 2 steps, config x, trained 2026-11-28 17:45"
	p, err = PoolTrainingSeeds(one, undated)
	if err != nil {
		t.Fatal(err)
	}
	if p.Models["action-net"] != one.Models["action-net"] || p.Models["action-net, training seed 5"] != undated.Models["action-net"] ||
		!strings.HasPrefix(p.Notes[len(p.Notes)-2], "Scored by the action nets listed for them") || !strings.Contains(p.Notes[len(p.Notes)-2], "of training seed 5, which") {
		t.Errorf("models %v, notes %q", p.Models, p.Notes)
	}

	// What cannot be pooled is refused, naming why.
	otherNet := clone(t, two)
	otherNet.Models["action-net"] = "quick recipe, 2 steps, config x, trained y" + weightsTag + "0123"
	oneNet := clone(t, one)
	oneNet.Models["action-net"] = "quick recipe, 2 steps, config x, trained z" + weightsTag + "4567"
	otherClips := clone(t, two)
	otherClips.Notes[0] = strings.Replace(otherClips.Notes[0], "rollouts per evaluation seed", "rollouts per evaluation seed!", 1)
	bowls := clone(t, two)
	bowls.Name = "bowls"
	flipped := clone(t, both)
	for i, n := range flipped.Numbers {
		if n.Verdict == Inconclusive {
			flipped.Numbers[i].Verdict = Agrees
		}
	}
	third.Notes[0] = strings.Replace(third.Notes[0], "training seeds [3],", "training seeds [4],", 1)
	third.TrainSeeds = []int{4}
	for _, bad := range []struct {
		parts []*Result
		want  string
	}{
		{[]*Result{one}, "at least 2"},
		{[]*Result{one, nil}, "result 2 is nil"},
		{[]*Result{both, one}, "training seed 1 is in results 1 and 2"},
		{[]*Result{oneNet, otherNet}, "another action net"},
		{[]*Result{one, otherClips}, "note 1 differs"},
		{[]*Result{bowls, bowls}, `"bowls" is out of range`},
		{[]*Result{one, bowls}, "one experiment on one recipe"},
		{[]*Result{flipped, third}, "this experiment judges it otherwise"},
	} {
		if _, err := PoolTrainingSeeds(bad.parts...); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("want an error with %q, got %v", bad.want, err)
		}
	}
}

// sameNumber: equal to the last digit, NaN equal to NaN.
func sameNumber(a, b Number) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.Name == b.Name && eq(a.Ours, b.Ours) && eq(a.Err, b.Err) && a.Paper == b.Paper && a.Note == b.Note && a.Stride == b.Stride &&
		slices.EqualFunc(a.PerSeed, b.PerSeed, eq) && eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && a.Verdict == b.Verdict
}

// clone is a deep copy of a result's saved part.
func clone(t *testing.T, r *Result) *Result {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c Result
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// Runs that read some rollouts from another build's cache say how many in their protocol note,
// each its own count: they pool, and the pooled notes keep each run's count under its seeds.
func TestPoolBorrowedRollouts(t *testing.T) {
	l := &setup{borrowed: 3, rolled: 12, disk: disk{also: []string{"0123456789abcdef0123"}}}
	b := l.borrowedNote()
	if !borrowedSentence.MatchString(b) || borrowedSentence.FindString(b) != b {
		t.Fatalf("borrowedSentence does not match borrowedNote's %q", b)
	}
	note := func(seeds string, n int) string {
		return "Protocol: paper zoo, training seeds " + seeds + ", 64 rollouts per evaluation seed. " + overSeeds(n)
	}
	x := Number{Name: "FVD", Ours: 1}
	a := &Result{Name: "minecraft_main", TrainSeeds: []int{1, 2}, Notes: []string{note("[1 2]", 2) + b}, Numbers: []Number{{Name: "FVD", Ours: 1.5, Err: 0.5, PerSeed: []float64{1, 2}}}}
	c := &Result{Name: "minecraft_main", TrainSeeds: []int{3}, Notes: []string{note("[3]", 1) + b}, Numbers: []Number{x}}
	p, err := PoolTrainingSeeds(a, c)
	if err != nil {
		t.Fatal(err)
	}
	if p.Notes[0] != note("[1 2 3]", 3) || p.Notes[1] != "Training seeds 1, 2:"+b || p.Notes[2] != "Training seed 3:"+b || p.Numbers[0].Ours != 4.0/3 || len(p.Numbers[0].PerSeed) != 3 {
		t.Errorf("notes %q, numbers %+v", p.Notes, p.Numbers)
	}
}

// A paired difference's paper column gives the paper's difference or only its side.
func TestPaperSign(t *testing.T) {
	for text, want := range map[string]float64{"-39.79": -39.79, "+12.50 (77.63 − 65.13: why)": 12.5, "< 0 (SD3 lags)": -1, "> 0 (overshoots)": 1, "": math.NaN(), "≈ −1": math.NaN()} {
		if got := paperSign(text); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("paperSign(%q) = %g, want %g", text, got, want)
		}
	}
}

// pooled12 is the pool of two results.
func pooled12(t *testing.T, a, b *Result) *Result {
	t.Helper()
	p, err := PoolTrainingSeeds(a, b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// relabel is a copy of a one-seed result r of training seed from as if it were of seed to.
func relabel(t *testing.T, r *Result, from, to int) *Result {
	t.Helper()
	c := clone(t, r)
	c.TrainSeeds = []int{to}
	c.Notes[0] = strings.Replace(c.Notes[0], fmt.Sprintf("training seeds [%d],", from), fmt.Sprintf("training seeds [%d],", to), 1)
	c.Models = map[string]string{}
	for k, v := range r.Models {
		c.Models[strings.Replace(k, fmt.Sprintf("training seed %d", from), fmt.Sprintf("training seed %d", to), 1)] = v
	}
	return c
}
