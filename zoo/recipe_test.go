package zoo

import (
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// The paper recipe at other lengths differs from it in the backbones' run alone: the same
// action net and g_φ (one configuration hash: its FVD features are the paper recipe's), every
// backbone another, its warm-up and EMA horizon scaled with the run.
func TestPaperLengths(t *testing.T) {
	paper := &Zoo{Recipe: Recipes[DefaultRecipe]}
	for _, name := range PaperLengths {
		r := Recipes[name]
		if !IsPaperRecipe(name) || r.Name != name {
			t.Errorf("%s: a paper recipe %v, name %q", name, IsPaperRecipe(name), r.Name)
		}
		if r.Train != eqflib.ScalePaperPreset(r.Steps) {
			t.Errorf("%s: training %+v, want ScalePaperPreset(%d)", name, r.Train, r.Steps)
		}
		same := r
		same.Name, same.Train, same.Steps = paper.Recipe.Name, paper.Recipe.Train, paper.Recipe.Steps
		if hash(same) != hash(paper.Recipe) {
			t.Errorf("%s differs from the paper recipe in more than its steps:\n%+v\n%+v", name, r, paper.Recipe)
		}
		z := &Zoo{Recipe: r}
		for _, s := range Specs {
			shared := s.Kind == "action-net" || s.Kind == "gphi"
			if got := z.configHash(s) == paper.configHash(s); got != (shared || name == DefaultRecipe) {
				t.Errorf("%s: %s has the paper recipe's hash: %v", name, s.Name, got)
			}
		}
	}
	want := []int{3500, 7000, 14000, 70000}
	for i, name := range PaperLengths {
		if got := Recipes[name].Steps; i >= len(want) || got != want[i] {
			t.Errorf("PaperLengths[%d] = %s: %d steps, want the lengths %v in order", i, name, got, want)
		}
	}
	if IsPaperRecipe("cpu") || IsPaperRecipe("demo") {
		t.Error("a guided recipe counts as the paper's")
	}
}

// Every named recipe is valid; bad recipes are refused with the field named.
func TestRecipeValidate(t *testing.T) {
	for name, r := range Recipes {
		if err := r.Validate(); err != nil {
			t.Errorf("recipe %q: %v", name, err)
		}
	}
	// The cpu recipe trains for guidance and scores it; the demo's trains for guidance too (make
	// demo rolls out guided beside unguided); the paper's recipes never drop the actions.
	if r := Recipes["cpu"]; r.Train.CondDropout == 0 || r.Eval.Guidance == 0 {
		t.Errorf("cpu recipe: CondDropout %g, Eval.Guidance %g: want both > 0", r.Train.CondDropout, r.Eval.Guidance)
	}
	if r := Recipes["demo"]; r.Train.CondDropout == 0 {
		t.Errorf("demo recipe: CondDropout %g: want > 0 (make demo samples with guidance)", r.Train.CondDropout)
	}
	for _, name := range []string{"paper", "paper-8"} {
		if r := Recipes[name]; r.Train.CondDropout != 0 || r.Eval.Guidance != 0 {
			t.Errorf("%s recipe: CondDropout %g, Eval.Guidance %g: want 0 (the paper trains and samples without)", name, r.Train.CondDropout, r.Eval.Guidance)
		}
	}
	for _, c := range []struct {
		name string
		mod  func(r *Recipe)
		want string
	}{
		{"context ≥ frames", func(r *Recipe) { r.Context = r.Frames }, "Recipe.Context"},
		{"negative guidance", func(r *Recipe) { r.Eval.Guidance = -1 }, "Recipe.Eval.Guidance = -1 out of range"},
		{"guidance without dropout", func(r *Recipe) { r.Train.CondDropout = 0 }, "needs Recipe.Train.CondDropout > 0"},
		{"no steps", func(r *Recipe) { r.Steps = 0 }, "step count"},
	} {
		r := Recipes["quick"]
		c.mod(&r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// A card strip's row label fits the strip's 16 characters and tells guided from unguided.
func TestStripLabel(t *testing.T) {
	for _, c := range []struct {
		es   EvalSampler
		want string
	}{
		{EvalSampler{Key: "nag_closed"}, "nag closed"},
		{EvalSampler{Key: "nag_closed_w3", Guidance: 3}, "nag closed w=3"},
		{EvalSampler{Key: "gd_open_w2.5", Guidance: 2.5}, "gd open w=2.5"},
	} {
		if got := stripLabel(c.es); got != c.want || len(got) > 16 {
			t.Errorf("stripLabel(%q) = %q, want %q (≤ 16 characters)", c.es.Key, got, c.want)
		}
	}
}

// A card's best sampler is its highest action agreement; cards without rollouts have none.
func TestBestSampler(t *testing.T) {
	c := &Card{Metrics: map[string]float64{"agreement_nag_closed": 0.68, "agreement_gd_open_w3": 0.81, "agreement_nag_closed_w3": 0.795, "fvd_gd_open_w3": 27.8}}
	if k, v, ok := c.BestSampler(); !ok || k != "gd_open_w3" || v != 0.81 {
		t.Errorf("BestSampler = %q %g %v, want gd_open_w3 0.81", k, v, ok)
	}
	if _, _, ok := (&Card{Metrics: map[string]float64{"sigma_mae": 0.03}}).BestSampler(); ok {
		t.Error("a card without agreement metrics has a best sampler")
	}
}
