package paper

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/zoo"
)

// The committed results saved before results named their action net's weights are known to have
// been scored with zoo/action-net (committedActionNets): every such line of results/ is listed,
// each comes from a run on the Go backend (its run.txt; those of docs/runs too), every listed
// line is in results/ or docs/runs, and
// the listed digest is the committed file's. A run scored with zoo/action-net then compares with
// them unmarked; one with other weights is marked, said outright.
func TestCommittedActionNetLines(t *testing.T) {
	folder := &zoo.Zoo{Dir: filepath.Join("..", "zoo"), Recipe: zoo.Recipes[zoo.DefaultRecipe]} // its action net: zoo/action-net
	if d, err := folder.ActionNetDigest(); err != nil || d != committedActionNetDigest {
		t.Errorf("zoo/action-net's digest is %s (%v), committedActionNetDigest %s", d, err, committedActionNetDigest)
	}
	rs, err := LoadResults(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, r := range rs {
		line, ok := r.Models["action-net"]
		if !ok || strings.Contains(line, weightsTag) {
			continue
		}
		seen = append(seen, line)
		if !slices.Contains(committedActionNets, line) {
			t.Errorf("%s: its action net %q is not in committedActionNets", r.Dir(), line)
		}
		run, err := os.ReadFile(filepath.Join("..", "results", r.Dir(), "run.txt"))
		if err != nil || !strings.Contains(string(run), "Go backend") {
			t.Errorf("%s: run.txt does not say it ran on the Go backend (%v)", r.Dir(), err)
		}
	}
	// The runs kept in docs/runs: a listed line comes from the Go backend there too; a line not
	// listed (a GPU run's own action net) is not known to be zoo/action-net's.
	kept, err := filepath.Glob(filepath.Join("..", "docs", "runs", "*", "*", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range kept {
		r, err := LoadResult(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		line := r.Models["action-net"]
		if !slices.Contains(committedActionNets, line) {
			continue
		}
		seen = append(seen, line)
		run, err := os.ReadFile(filepath.Join(filepath.Dir(path), "run.txt"))
		if err != nil || !strings.Contains(string(run), "Go backend") {
			t.Errorf("%s: run.txt does not say it ran on the Go backend (%v)", filepath.Dir(path), err)
		}
	}
	for _, line := range committedActionNets {
		if !slices.Contains(seen, line) {
			t.Errorf("committedActionNets lists %q, which no committed result names", line)
		}
	}

	// A rerun scored with zoo/action-net (its card trained on another date) against a committed
	// result: the same features. Its own action net's weights: other features.
	const committed = "paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-27 02:38"
	rerun := "paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-30 03:38" + weightsTag + committedActionNetDigest
	own := "paper recipe, 600 steps, config ab3e9587d56f7c0f, trained 2026-11-29 23:58" + weightsTag + "0123456789abcdef"
	result := func(net string) []*Result {
		return []*Result{{Name: "minecraft_main", TrainSeeds: []int{1}, Models: map[string]string{"action-net": net},
			Numbers: []Number{{Name: "S=2: FM Euler (c-function): FVD (maze-I3D)", Stride: 2, Ours: 50}}}}
	}
	if c := CompareRuns(result(committed), result(rerun), "results", "rerun"); c.Rows[0].OtherActionNet || strings.Contains(c.Summary(), "action net") {
		t.Errorf("a rerun with zoo/action-net is marked against the committed results: %s", c.Summary())
	}
	if c := CompareRuns(result(committed), result(own), "results", "rerun"); !c.Rows[0].OtherActionNet || !strings.Contains(c.Summary(), "have different weights") {
		t.Errorf("a rerun with its own action net is not marked as other weights: %s", c.Summary())
	}
}
