// Package paper runs the paper's experiments on the offline maze world: one file per experiment,
// named after the paper's figure or table label, each a function that runs the protocol and
// returns the numbers (ours beside the paper's) and the figures. `eqf paper list` names them,
// `eqf paper NAME` runs one and `eqf paper all` runs every one into out/paper/.
//
// Experiments that need trained models load them from the model zoo (`make models`); those that
// are analytic need nothing. Every experiment has a quick mode (Config.Quick: tiny sizes, used by
// the tests) and a full mode.
package paper

//go:generate go run ./internal/resultsdoc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Config is what every experiment takes.
type Config struct {
	Quick bool // tiny models and sizes (the quick zoo, trained on demand): what `go test ./paper` runs
	Seeds int  // evaluation seeds to average over (0: 3 in full mode, 1 in quick mode)
	// Clips is the rollouts per method, training seed and evaluation seed, one per validation
	// clip (0: DefaultRollouts = 64 in full mode, 2 in quick mode). Fewer than 26 in full mode
	// leave FVD over time (below 13, FVD too) with fewer clips per side than the features'
	// 128 dimensions: the result's notes then say its FVDs are not well posed.
	Clips int
	// Stride is the frames a rollout emits at a time, S (0: the zoo's horizon H, chunk by chunk;
	// 1: the paper's rolling staircase, App. D, each frame denoised over H rounds after a bake-in).
	Stride int
	// Strides, when set, runs every rollout experiment's methods at each of these strides, side
	// by side in one result (rows named "S=k: …"; comparisons pair rows of the same stride);
	// it overrides Stride.
	Strides []int
	// NoCache recomputes every rollout instead of reusing one this process already computed
	// with the same models, sampler and protocol (cache.go).
	NoCache bool
	// CacheDir, when set, also keeps every rollout's scores in this folder as they are computed
	// (cache.go), so that a stopped run started again with the same eqf binary, zoo and
	// settings resumes where it stopped; "" keeps them in this process only.
	CacheDir string
	// RolloutsOf, with CacheDir, names other eqf executables whose rollouts in CacheDir this run
	// reads as its own (a rollout none of them saved is computed and saved under this
	// executable): for changes between the builds that decide no rollout (a figure, a note, a
	// comparison), as whoever sets it vouches. The protocol note says how many rollouts they gave.
	RolloutsOf []string
	// TrainSeeds is the number of training seeds (the zoo's independent training runs, `make
	// models SEEDS=N`) whose models each experiment runs; 0: every training seed the zoo has.
	TrainSeeds int
	// TrainSeed, when set, is the only training seed to run (0: 1…TrainSeeds): its numbers are
	// the ones a run of more seeds gives for it (each seed's rollouts depend on its models and the
	// evaluation seeds alone), and PoolTrainingSeeds pools the results of runs of other seeds
	// with its result.
	TrainSeed int
	// Models, when set, are the only backbones (zoo DiTs: "eqf", "fm", "eqm", "diffusion",
	// "fm-eqf") whose methods minecraft_main and fixed_compute_scaling roll out, e.g. FM and EqF
	// on the paper-8 zoo, where only they need training; the result's notes name the methods
	// left out. Every other experiment needs all of its backbones and is an error when Models
	// leaves one out.
	Models []string
	// Recipe is the zoo recipe full mode reads: "" or "paper" (C = H = 2, `make models`),
	// "paper-8" (C = H = 4, `make models ZOO_RECIPE=paper-8`), "paper-3.5k", "paper-14k" or
	// "paper-70k" (the paper recipe trained for 3,500, 14,000 or 70,000 steps); no other recipe (zoo.PaperRecipes: the
	// guided ones were chosen for another goal).
	Recipe string
	// Zoo is the model zoo to load from (nil: the quick zoo in quick mode, else the zoo of
	// Recipe).
	Zoo *zoo.Zoo
	Log io.Writer // progress lines (nil: quiet)
}

// Number is one reported quantity: ours (mean ± standard error over seeds) beside the paper's.
type Number struct {
	Name  string  `json:"name"`
	Ours  float64 `json:"ours"`
	Err   float64 `json:"err,omitempty"`   // standard error over seeds (0 with one seed or for exact values)
	Paper string  `json:"paper,omitempty"` // the paper's value as printed, or "" where it prints none
	Note  string  `json:"note,omitempty"`
	// Stride is the rollout stride S the number was measured with (rollout numbers only).
	Stride int `json:"stride,omitempty"`
	// PerSeed are the values of each training seed (each the mean over its evaluation seeds),
	// when there are several.
	PerSeed []float64 `json:"per_seed,omitempty"`
	// Lo and Hi bound the 95 % t-interval over training seeds of a paired difference; Verdict
	// compares it with the paper's difference (Agrees, Differs or Inconclusive; stats.go).
	Lo      float64 `json:"lo,omitempty"`
	Hi      float64 `json:"hi,omitempty"`
	Verdict string  `json:"verdict,omitempty"`
}

// Result is an experiment's outcome.
type Result struct {
	Name    string   `json:"name"`  // the experiment (the paper's label)
	Title   string   `json:"title"` // what it reproduces
	Where   string   `json:"where"` // the paper's section, figure or table
	Numbers []Number `json:"numbers,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Models are the zoo models the numbers come from, each with its recipe, steps,
	// configuration hash and training date (none for the analytic experiments).
	Models map[string]string `json:"models,omitempty"`
	// TrainSeeds are the zoo's training seeds the numbers come from (none for the analytic
	// experiments).
	TrainSeeds []int `json:"train_seeds,omitempty"`
	// Recipe is the zoo recipe of those models (one of zoo.PaperRecipes; "quick" in quick mode; none
	// for the analytic experiments). A committed result of another recipe than the paper's
	// lives in results/<experiment>-<recipe>/.
	Recipe  string                   `json:"recipe,omitempty"`
	Figures map[string]*plots.Figure `json:"-"` // by file stem
	// Files are further outputs by file name: rollout strips (PNG, ground truth on top), video
	// players (HTML). results.md shows the PNGs and links the rest.
	Files map[string][]byte `json:"-"`
	// Spent is where the experiment's time went (nil for the analytic experiments); not saved.
	Spent *Spent `json:"-"`
}

// Save writes results.json, results.md (the numbers beside the paper's), every figure as PNG
// and HTML and their data (figures.json, so LoadResult can draw them again) and every file
// into dir, atomically file by file.
func (r *Result) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, "results.json"), append(js, '\n')); err != nil {
		return err
	}
	if len(r.Figures) > 0 {
		fj, err := json.MarshalIndent(r.Figures, "", " ")
		if err != nil {
			return fmt.Errorf("paper: %s: figures: %w", r.Name, err)
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, figuresFile), append(fj, '\n')); err != nil {
			return err
		}
	}
	var md strings.Builder
	md.WriteString(r.Markdown())
	for _, stem := range sortedKeys(r.Figures) {
		for _, ext := range []string{".png", ".html"} {
			if err := r.Figures[stem].Save(filepath.Join(dir, stem+ext)); err != nil {
				return err
			}
		}
		fmt.Fprintf(&md, "\n![%s](%s.png) ([interactive](%s.html))\n", stem, stem, stem)
	}
	for _, name := range sortedKeys(r.Files) {
		if err := fsutil.WriteFileAtomic(filepath.Join(dir, name), r.Files[name]); err != nil {
			return err
		}
		if strings.HasSuffix(name, ".png") {
			fmt.Fprintf(&md, "\n![%s](%s)\n", strings.TrimSuffix(name, ".png"), name)
		} else {
			fmt.Fprintf(&md, "\n[%s](%s)\n", name, name)
		}
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, "results.md"), []byte(md.String()))
}

// Markdown is the result's title, its numbers beside the paper's as a table, and its notes.
func (r *Result) Markdown() string {
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n%s (paper: %s)\n\n", r.Name, r.Title, r.Where)
	r.writeTable(&md)
	r.writeNotes(&md)
	return md.String()
}

// writeTable writes the numbers beside the paper's as a Markdown table (nothing without numbers).
func (r *Result) writeTable(md *strings.Builder) {
	if len(r.Numbers) == 0 {
		return
	}
	md.WriteString("| quantity | ours | paper | note |\n|---|---|---|---|\n")
	for _, n := range r.Numbers {
		fmt.Fprintf(md, "| %s | %s | %s | %s |\n", cell(n.Name), cell(n.ours()), cell(orDash(n.Paper)), cell(n.Note))
	}
	md.WriteString("\n")
}

// writeNotes writes the notes as a Markdown list and the models they came from.
func (r *Result) writeNotes(md *strings.Builder) {
	for _, note := range r.Notes {
		fmt.Fprintf(md, "- %s\n", note)
	}
	if len(r.Models) > 0 {
		md.WriteString("\nModels:\n")
		for _, n := range sortedKeys(r.Models) {
			fmt.Fprintf(md, "- %s: %s\n", n, r.Models[n])
		}
	}
}

// HTML is Markdown's table and notes as an HTML fragment, for a notebook's display.
func (r *Result) HTML() string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p><b>%s</b>: %s (paper: %s)</p>\n", html.EscapeString(r.Name), html.EscapeString(r.Title), html.EscapeString(r.Where))
	if len(r.Numbers) > 0 {
		b.WriteString("<table><tr><th style=\"text-align:left\">quantity</th><th>ours</th><th>paper</th><th style=\"text-align:left\">note</th></tr>\n")
		for _, n := range r.Numbers {
			fmt.Fprintf(&b, "<tr><td style=\"text-align:left\">%s</td><td>%s</td><td>%s</td><td style=\"text-align:left\">%s</td></tr>\n",
				html.EscapeString(n.Name), html.EscapeString(n.ours()), html.EscapeString(orDash(n.Paper)), html.EscapeString(n.Note))
		}
		b.WriteString("</table>\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("<ul>\n")
		for _, note := range r.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", html.EscapeString(note))
		}
		b.WriteString("</ul>\n")
	}
	return b.String()
}

// PNGs renders every figure (by stem) and then every PNG file, in name order: what a notebook
// displays.
func (r *Result) PNGs() ([][]byte, error) {
	var out [][]byte
	for _, stem := range sortedKeys(r.Figures) {
		b, err := r.Figures[stem].Bytes("png")
		if err != nil {
			return nil, fmt.Errorf("paper: %s: figure %s: %w", r.Name, stem, err)
		}
		out = append(out, b)
	}
	for _, name := range sortedKeys(r.Files) {
		if strings.HasSuffix(name, ".png") {
			out = append(out, r.Files[name])
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Format is the number as results.md shows it: mean ± standard error, the 95 % interval of a
// paired difference and its verdict.
func (n Number) Format() string { return n.ours() }

func (n Number) ours() string {
	s := fmt.Sprintf("%.4g", n.Ours)
	if n.Err > 0 {
		s += fmt.Sprintf(" ± %.2g", n.Err)
	}
	if n.Lo != 0 || n.Hi != 0 {
		s += fmt.Sprintf(" [%.3g, %.3g]", n.Lo, n.Hi)
	}
	if n.Verdict != "" {
		s += " — " + n.Verdict
	}
	return s
}

// cell escapes a Markdown table cell (a value such as |σ − g_φ(x)| holds bars).
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Dir is where an experiment's results go by default: <repository>/out/paper/<name>, or
// out/paper-quick/<name> in quick mode (the repository is found as the zoo finds it, or
// $EQF_ROOT).
func Dir(name string, quick bool) string {
	if quick {
		return filepath.Join(zoo.Root(), "out", "paper-quick", name)
	}
	return filepath.Join(zoo.Root(), "out", "paper", name)
}

// Experiment is one runnable experiment.
type Experiment struct {
	Name  string // the paper's label (e.g. "inference_schedule_vis")
	Where string // section, figure or table
	Run   func(ctx context.Context, c Config) (*Result, error)
}

// RunFullOrQuick runs the experiment in full mode (c.Quick is ignored) on the paper recipe's
// zoo, or, when that zoo lacks a model the experiment needs (zoo.ErrNotTrained), in quick mode
// on the quick zoo (tiny models, trained on first use), logging why. quick says which ran: a
// notebook's one switch to rerun an experiment wherever it is opened.
func (e Experiment) RunFullOrQuick(ctx context.Context, c Config) (r *Result, quick bool, err error) {
	if e.Run == nil {
		return nil, false, fmt.Errorf("paper: Experiment %q has no Run: take one from Experiments or ByName", e.Name)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	c.Quick = false
	r, err = e.Run(ctx, c)
	if !errors.Is(err, zoo.ErrNotTrained) {
		return r, false, err
	}
	if c.Log != nil {
		fmt.Fprintf(c.Log, "%v\nrunning %s in quick mode instead (tiny models: it checks the code, not the paper's numbers)\n", err, e.Name)
	}
	c.Quick, c.Zoo = true, nil
	r, err = e.Run(ctx, c)
	return r, true, err
}

// Experiments lists every experiment, in the paper's order (main text, then appendices).
var Experiments = []Experiment{
	{"abs_residual_and_fvd_over_time", "§3, Fig. abs_residual_and_fvd_over_time", AbsResidualAndFVDOverTime},
	{"inference_schedule_vis", "§4.4, Fig. inference_schedule_vis", InferenceScheduleVis},
	{"minecraft_main", "§5.2, Table minecraft_main", MinecraftMain},
	{"fixed_compute_scaling", "§5.2, Fig. fixed_compute_scaling", FixedComputeScaling},
	{"budget_adaptive", "§5.3, Fig. minecraft_budget_adaptive, Table main_budget_adaptive", BudgetAdaptive},
	{"minecraft_inference_expts", "§5.3, Table minecraft_inference_expts", MinecraftInferenceExpts},
	{"closed_open_nag", "§5.3, Fig. closed_open_nag", ClosedOpenNAG},
	{"fm_eqf_field_agreement", "§5.5, App. A.4, Table fm_eqf_field_agreement", FMEqFFieldAgreement},
	{"eqm_weighting", "App. A.1, Prop. A.1", EqMWeighting},
	{"unfinished_denoising", "App. B.1, B.4, Figs. unfinished_denoising(_comparison)", UnfinishedDenoising},
	{"bowls", "App. B.2, Fig. bowls", Bowls},
	{"fm_conditioning_ablation", "App. B.3, Table fm_conditioning_ablation", FMConditioningAblation},
	{"adaptive_early_stopping", "App. C.1, Table minecraft_adaptive_early_stopping", AdaptiveEarlyStopping},
	{"inpainting", "App. C.3, Table re10k_inpaint (on the maze)", Inpainting},
	{"forward_compute", "App. D.6, Table forward_compute", ForwardCompute},
	{"sampling_runtime", "App. D.6, Table sampling_runtime", SamplingRuntime},
	{"mc_eq_finetune", "App. E.1, Table mc_eq_finetune", MCEqFinetune},
	{"nle", "App. F.2, Fig. nle", NLE},
	{"margred", "App. F.2, Fig. margred", MargRed},
	{"sampler_warp_conversions", "App. G, Fig. sampler_warp_conversions", SamplerWarpConversions},
	{"planning_threshold", "App. J.2, Fig. planning_threshold", PlanningThreshold},
}

// ByName returns the experiment called name.
func ByName(name string) (Experiment, error) {
	var names []string
	for _, e := range Experiments {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Experiment{}, fmt.Errorf("paper: experiment %q unknown: must be one of %s", name, strings.Join(names, ", "))
}
