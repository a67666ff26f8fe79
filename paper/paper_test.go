package paper

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// quickZoo is one quick zoo for the package's tests, trained once into a temporary folder.
var quickZoo *zoo.Zoo

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "eqf-paper-zoo")
	if err != nil {
		panic(err)
	}
	quickZoo = &zoo.Zoo{Dir: dir, Recipe: zoo.Recipes["quick"]}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// quick is quick mode on the first training seed (TestAnalysesOverTrainingSeeds trains a second
// one into the same zoo, which TrainSeeds 0 would pick up).
func quick() Config { return Config{Quick: true, Zoo: quickZoo, TrainSeeds: 1} }

// results keeps each experiment's quick result for the tests that check its content.
var results = map[string]*Result{}

// run returns an experiment's quick result, running it once.
func run(t *testing.T, name string) *Result {
	t.Helper()
	if r, ok := results[name]; ok {
		return r
	}
	e, err := ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := e.Run(context.Background(), quick())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s: quick mode in %s", name, time.Since(start).Round(time.Millisecond))
	results[name] = r
	return r
}

// Every experiment runs in quick mode and saves results.json, results.md and each figure as PNG
// and HTML; what is analytic is checked against its closed form.
func TestExperimentsQuick(t *testing.T) {
	for _, e := range Experiments {
		t.Run(e.Name, func(t *testing.T) {
			r := run(t, e.Name)
			if r.Name != e.Name || len(r.Figures) == 0 {
				t.Fatalf("result %q with %d figures", r.Name, len(r.Figures))
			}
			dir := t.TempDir()
			if err := r.Save(dir); err != nil {
				t.Fatal(err)
			}
			var back Result
			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			if err != nil || json.Unmarshal(b, &back) != nil || back.Name != e.Name || len(back.Numbers) != len(r.Numbers) {
				t.Fatalf("results.json: %v %s", err, b)
			}
			md, _ := os.ReadFile(filepath.Join(dir, "results.md"))
			// Every result from trained models names them (recipe, steps, hash, date).
			analytic := map[string]bool{"inference_schedule_vis": true, "eqm_weighting": true, "sampler_warp_conversions": true}[e.Name]
			if got := back.Models["action-net"]; analytic != (got == "") || !analytic && (!strings.Contains(got, "quick recipe") || !strings.Contains(string(md), "- action-net: quick recipe")) {
				t.Errorf("models %v (analytic: %v); results.md:\n%s", back.Models, analytic, md)
			}
			for stem := range r.Figures {
				for _, ext := range []string{".png", ".html"} {
					if st, err := os.Stat(filepath.Join(dir, stem+ext)); err != nil || st.Size() == 0 {
						t.Errorf("%s%s: %v", stem, ext, err)
					}
				}
				if !strings.Contains(string(md), stem+".png") {
					t.Errorf("results.md does not show %s", stem)
				}
			}
		})
	}
}

func TestEqMWeightingMatchesPropA1(t *testing.T) {
	r, err := EqMWeighting(context.Background(), Config{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	// c(σ)² with λ = 4, α = 0.8: (4σ/0.2)² below σ = 0.2, 16 above.
	for i, s := range []float64{0.001, 0.01, 0.1, 0.5} {
		want := math.Pow(4*math.Min(1, s/0.2), 2)
		if got := r.Numbers[i].Ours; math.Abs(got-want) > 1e-9*want {
			t.Errorf("σ = %g: EqM/EqF weight %g, want c(σ)² = %g", s, got, want)
		}
	}
}

func TestByName(t *testing.T) {
	if _, err := ByName("inference_schedule_vis"); err != nil {
		t.Error(err)
	}
	if _, err := ByName("minecraft_main_typo"); err == nil || !strings.Contains(err.Error(), "must be one of") {
		t.Errorf("unknown name: %v", err)
	}
}

// docs/results.md is generated from the committed results: it must match them (run `go
// generate ./paper` after committing a result).
func TestResultsDocUpToDate(t *testing.T) {
	want, err := ResultsMarkdown(ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(filepath.Dir(ResultsDir()), "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Error("docs/results.md is out of date with results/*/results.json: run `go generate ./paper`")
	}
	rs, err := LoadResults(ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if len(r.Numbers) == 0 {
			t.Errorf("%s: a committed result without numbers", r.Name)
		}
	}
	// LoadResults passes over a folder without results.json: none is committed, so the docs
	// leave none out
	entries, err := os.ReadDir(ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(ResultsDir(), e.Name(), "results.json")); e.IsDir() && err != nil {
			t.Errorf("results/%s holds no results.json: %v", e.Name(), err)
		}
	}
}

// The claims at a glance count every verdict once per protocol and list each comparison with
// its interval; numbers without a verdict stay out.
func TestVerdictsAtAGlance(t *testing.T) {
	rs := []*Result{
		{Name: "a", Numbers: []Number{{Name: "x: FVD", Ours: 50, Stride: 2}, {Name: "x − y", Ours: -3, Lo: -5, Hi: -1, Paper: "-2.00", Verdict: Agrees, Stride: 2},
			{Name: "x − z", Ours: 1, Lo: -2, Hi: 4, Paper: "-1.00", Verdict: Inconclusive, Stride: 1}}},
		{Name: "b", Numbers: []Number{{Name: "|h − g|", Ours: 0.5, Lo: 0.1, Hi: 0.9, Paper: "< 0", Verdict: Differs}}},
	}
	var b strings.Builder
	writeVerdicts(&b, rs)
	md := b.String()
	for _, want := range []string{
		"- Analyses (no rollout stride): 1 comparison with the paper — 0 agree, 1 differ, 0 inconclusive.",
		"- The paper's rolling staircase (S = 1): 1 comparison with the paper — 0 agree, 0 differ, 1 inconclusive.",
		"- Chunk by chunk (S = 2): 1 comparison with the paper — 1 agree, 0 differ, 0 inconclusive.",
		"| a | x − y | 2 | -3 [-5, -1] | -2.00 | agrees |",
		"| b | \\|h − g\\| | — | 0.5 [0.1, 0.9] | < 0 | differs |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "x: FVD") {
		t.Error("a number without a verdict is listed")
	}
	b.Reset()
	writeVerdicts(&b, rs[:0])
	if b.Len() != 0 {
		t.Errorf("no results: %q", b.String())
	}
}

// A saved result loads back with its numbers, intervals, verdicts and training seeds, its
// figures as data (drawing the same PNG) and its files.
func TestLoadResult(t *testing.T) {
	fig := &plots.Figure{Title: "FVD over time", Panels: []plots.Panel{{XLabel: "frame", YLabel: "FVD",
		Series: []plots.Series{{Name: "FM", X: []float64{25, 50}, Y: []float64{60, math.NaN()}}}}}}
	r := &Result{Name: "minecraft_main", Title: "t", Where: "w", TrainSeeds: []int{1, 2, 3},
		Numbers: []Number{{Name: "EqF − FM", Ours: -3, Err: 1, Lo: -7.3, Hi: 1.3, Verdict: Inconclusive, PerSeed: []float64{-1, -3, -5}, Stride: 1}},
		Figures: map[string]*plots.Figure{"fvd_over_time": fig}, Files: map[string][]byte{"rollouts.png": []byte("strip"), "rollouts.html": []byte("<p>player</p>")}}
	dir := t.TempDir()
	if err := r.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := LoadResult(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != r.Name || len(got.TrainSeeds) != 3 || len(got.Numbers) != 1 || got.Numbers[0].Lo != -7.3 || got.Numbers[0].Verdict != Inconclusive || got.Numbers[0].Stride != 1 {
		t.Errorf("loaded %+v", got)
	}
	if len(got.Figures) != 1 || got.Figures["fvd_over_time"] == nil {
		t.Fatalf("figures loaded: %v, want fvd_over_time", got.Figures)
	}
	want, _ := fig.Bytes("png")
	if png, err := got.Figures["fvd_over_time"].Bytes("png"); err != nil || string(png) != string(want) {
		t.Errorf("the loaded figure draws another PNG (err %v)", err)
	}
	if len(got.Files) != 2 || string(got.Files["rollouts.png"]) != "strip" || string(got.Files["rollouts.html"]) != "<p>player</p>" {
		t.Errorf("files loaded: %d (%v), want the two saved", len(got.Files), got.Files)
	}
	if _, err := LoadResult(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no saved result") {
		t.Errorf("an empty folder: %v", err)
	}
}

// A result of another recipe than the paper's (paper-8) is committed beside the paper recipe's
// under results/<experiment>-<recipe>/: all load, the paper recipe's first, then the paper recipe
// at other lengths from the shortest, then other recipes, and the docs name
// the recipe in the heading, the verdict rows and the figures' paths. A result in another
// experiment's or recipe's folder is an error naming the right one.
func TestResultsOfTwoRecipes(t *testing.T) {
	root := t.TempDir()
	fig := &plots.Figure{Title: "FVD", Panels: []plots.Panel{{XLabel: "method", YLabel: "FVD", Series: []plots.Series{{Name: "FM", X: []float64{1}, Y: []float64{50}}}}}}
	mk := func(recipe string, fvd float64) *Result {
		return &Result{Name: "minecraft_main", Title: "t", Where: "w", Recipe: recipe, TrainSeeds: []int{1, 2, 3},
			Numbers: []Number{{Name: "EqF − FM: FVD", Ours: fvd, Lo: fvd - 1, Hi: fvd + 1, Verdict: Agrees, Paper: "-39.8", Stride: 1}},
			Figures: map[string]*plots.Figure{"fvd": fig}}
	}
	eight, paperR := mk("paper-8", -20), mk("paper", -10)
	if eight.Dir() != "minecraft_main-paper-8" || paperR.Dir() != "minecraft_main" || mk("quick", 0).Dir() != "minecraft_main" {
		t.Fatalf("folders %q, %q: want minecraft_main-paper-8 and minecraft_main", eight.Dir(), paperR.Dir())
	}
	// the paper recipe at other lengths, whose folders' names sort 14k before 3.5k
	long, short := mk("paper-14k", -5), mk("paper-3.5k", -15)
	for _, r := range []*Result{eight, paperR, long, short} {
		if err := r.Save(filepath.Join(root, r.Dir())); err != nil {
			t.Fatal(err)
		}
	}
	// a folder of one's own without results.json is passed over
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes", "todo.txt"), []byte("rerun"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := LoadResults(root)
	if err != nil {
		t.Fatal(err)
	}
	recipes := func(rs []*Result) (out []string) {
		for _, r := range rs {
			out = append(out, r.Recipe)
		}
		return out
	}
	if got, want := recipes(rs), []string{"paper", "paper-3.5k", "paper-14k", "paper-8"}; !slices.Equal(got, want) {
		t.Fatalf("loaded results of recipes %v: want %v (the paper recipe's, its other lengths from the shortest, then others)", got, want)
	}
	md, err := ResultsMarkdown(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n## minecraft_main\n", "\n## minecraft_main (recipe paper-8)\n", "](../results/minecraft_main-paper-8/fvd.png)",
		"| minecraft_main (recipe paper-8) | EqF − FM: FVD | 1 | -20 [-21, -19] |", "| minecraft_main | EqF − FM: FVD | 1 | -10 [-11, -9] |"} {
		if !strings.Contains(md, want) {
			t.Errorf("docs lack %q:\n%s", want, md)
		}
	}
	if o, err := LoadOtherRecipes(root, "minecraft_main"); err != nil || !slices.Equal(recipes(o), []string{"paper-3.5k", "paper-14k", "paper-8"}) {
		t.Errorf("LoadOtherRecipes(minecraft_main): recipes %v, %v: want paper-3.5k's, paper-14k's, paper-8's", recipes(o), err)
	}
	if o, err := LoadOtherRecipes(root, "fixed_compute_scaling"); err != nil || len(o) != 0 {
		t.Errorf("LoadOtherRecipes(fixed_compute_scaling): %d results, %v: want none", len(o), err)
	}
	if err := os.Rename(filepath.Join(root, "minecraft_main-paper-8"), filepath.Join(root, "minecraft_main-8")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResults(root); err == nil || !strings.Contains(err.Error(), "belongs in "+filepath.Join(root, "minecraft_main-paper-8")) {
		t.Errorf("a paper-8 result in minecraft_main-8/: %v, want an error naming its folder", err)
	}
	if _, err := LoadOtherRecipes(root, "minecraft_main"); err == nil || !strings.Contains(err.Error(), "belongs in "+filepath.Join(root, "minecraft_main-paper-8")) {
		t.Errorf("LoadOtherRecipes with a paper-8 result in minecraft_main-8/: %v, want the same error", err)
	}
}

// RunFullOrQuick runs full mode where the paper recipe's zoo has the models (an analytic
// experiment needs none) and falls back to quick mode, saying so, where it lacks one.
func TestRunFullOrQuick(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(quickZoo.Dir, filepath.Join(root, "out", "models-quick")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(zoo.EnvRoot, root)
	e, _ := ByName("closed_open_nag")
	var log strings.Builder
	r, quick, err := e.RunFullOrQuick(context.Background(), Config{Log: &log})
	if err != nil || !quick || r == nil || len(r.Numbers) == 0 {
		t.Fatalf("closed_open_nag without a paper zoo: quick %v, err %v; want a quick result", quick, err)
	}
	if !strings.Contains(log.String(), "not trained") || !strings.Contains(log.String(), "quick mode instead") {
		t.Errorf("the log does not say why it ran quick:\n%s", log.String())
	}
	a, _ := ByName("eqm_weighting")
	if r, quick, err := a.RunFullOrQuick(context.Background(), Config{}); err != nil || quick || len(r.Numbers) == 0 {
		t.Errorf("eqm_weighting (analytic): quick %v, err %v; want full mode", quick, err)
	}
}
