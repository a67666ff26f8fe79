package paper

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Results as data. A full run's results.json files are committed under results/<experiment>/
// (results/<experiment>-<recipe>/ for another recipe than the paper's: Result.Dir), with their
// figures and a run.txt saying which machine and command produced them;
// docs/results.md is generated from them (`go generate ./paper`), so no number in the docs is
// typed by hand.

// figuresFile holds a saved result's figures as data (plots.Figure's JSON), by file stem.
const figuresFile = "figures.json"

// LoadResult reads a saved result from dir, as Result.Save wrote it: its numbers and notes
// (results.json), its figures (figures.json, when the result was saved with them) and its
// further files (rollout strips, video players: every other file in dir but run.txt,
// results.md and the figures' own PNG and HTML renderings).
func LoadResult(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, fmt.Errorf("paper: no saved result in %s: %w", dir, err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("paper: %s/results.json: %w", dir, err)
	}
	if r.Name == "" {
		return nil, fmt.Errorf("paper: %s/results.json names no experiment", dir)
	}
	r.Figures, r.Files = map[string]*plots.Figure{}, map[string][]byte{}
	if fb, err := os.ReadFile(filepath.Join(dir, figuresFile)); err == nil {
		if err := json.Unmarshal(fb, &r.Figures); err != nil {
			return nil, fmt.Errorf("paper: %s/%s: %w", dir, figuresFile, err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		stem := strings.TrimSuffix(strings.TrimSuffix(name, ".png"), ".html")
		if _, isFigure := r.Figures[stem]; e.IsDir() || isFigure || name == "results.json" || name == "results.md" || name == figuresFile || name == "run.txt" {
			continue
		}
		if r.Files[name], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// Run is what a committed result's run.txt says about where and how it ran ("" when it has none).
func Run(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "run.txt"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ResultsDir is the folder of committed full results: <repository>/results.
func ResultsDir() string { return filepath.Join(zoo.Root(), "results") }

// LoadResults reads every saved result under root (root/<experiment>/results.json: the committed
// results/, an `eqf paper -out` folder), in the paper's order (Experiments). A folder in root
// without results.json holds no result and is passed over (a folder of one's own notes; with
// root /tmp, every other program's); one whose results.json cannot be read is an error.
func LoadResults(root string) ([]*Result, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("paper: saved results: %w", err)
	}
	order := map[string]int{}
	for i, e := range Experiments {
		order[e.Name] = i
	}
	var out []*Result
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") { // an `eqf paper -out` folder keeps its rollouts in .rollouts
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), "results.json")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		r, err := loadPlaced(root, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b *Result) int { // the paper's order, each experiment's recipes in recipeOrder
		return cmp.Or(cmp.Compare(order[a.Name], order[b.Name]), recipeOrder(a, b))
	})
	return out, nil
}

// recipeOrder orders the results of one experiment: the paper recipe's first, then the paper
// recipe at other lengths from the shortest (zoo.PaperLengths), then other recipes by name.
func recipeOrder(a, b *Result) int {
	rank := func(r *Result) int {
		if r.paperRecipe() {
			return 0
		}
		if i := slices.Index(zoo.PaperLengths, r.Recipe); i >= 0 {
			return 1 + i
		}
		return 1 + len(zoo.PaperLengths)
	}
	if c := cmp.Compare(rank(a), rank(b)); c != 0 {
		return c
	}
	return strings.Compare(a.Recipe, b.Recipe)
}

// LoadOtherRecipes reads the committed results of experiment name on zoo recipes other than the
// paper's (root/<name>-<recipe>/, Result.Dir): the paper recipe at other lengths from the
// shortest, then other recipes by name; none is not an error, a folder that holds another result
// is (as in LoadResults).
func LoadOtherRecipes(root, name string) ([]*Result, error) {
	dirs, err := filepath.Glob(filepath.Join(root, name+"-*")) // experiment names have no '-'
	if err != nil {
		return nil, err
	}
	var out []*Result
	for _, dir := range dirs {
		r, err := loadPlaced(root, filepath.Base(dir))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, recipeOrder)
	return out, nil
}

// loadPlaced reads the committed result in root/dir and checks that it is an experiment's and
// sits in its own folder (Result.Dir).
func loadPlaced(root, dir string) (*Result, error) {
	r, err := LoadResult(filepath.Join(root, dir))
	if err != nil {
		return nil, err
	}
	if _, err := ByName(r.Name); err != nil {
		return nil, fmt.Errorf("paper: %s holds a result of %q, which is no experiment", filepath.Join(root, dir), r.Name)
	}
	if want := r.Dir(); dir != want {
		return nil, fmt.Errorf("paper: %s holds a result of %s: it belongs in %s", filepath.Join(root, dir), r.label(), filepath.Join(root, want))
	}
	return r, nil
}

// paperRecipe says whether a result's models are the paper recipe's (or the quick zoo's, which
// checks the code, or it has none).
func (r *Result) paperRecipe() bool {
	return r.Recipe == "" || r.Recipe == zoo.DefaultRecipe || r.Recipe == "quick"
}

// Dir is the folder a result is saved in (`eqf paper -out`) and committed in (results/): the
// experiment's name, with the recipe after it when that is not the paper's (for example
// minecraft_main-paper-8), so that results of two recipes stand side by side.
func (r *Result) Dir() string {
	if r.paperRecipe() {
		return r.Name
	}
	return r.Name + "-" + r.Recipe
}

// label names a result in the docs: the experiment, and its recipe when that is not the paper's.
func (r *Result) label() string {
	if r.paperRecipe() {
		return r.Name
	}
	return fmt.Sprintf("%s (recipe %s)", r.Name, r.Recipe)
}

// ResultsMarkdown is docs/results.md: every committed result's numbers beside the paper's (with
// intervals and verdicts over training seeds, and the seeds each comparison needs), its training
// seeds, where it ran (run.txt), its figures, notes and models.
func ResultsMarkdown(root string) (string, error) {
	rs, err := LoadResults(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("<!-- Code generated by `go generate ./paper` from results/*/results.json; DO NOT EDIT. -->\n\n")
	b.WriteString("# Committed results\n\n")
	b.WriteString("Each section is one experiment's committed full result (`results/<experiment>/`; on another recipe's models than the paper's, " +
		"`results/<experiment>-<recipe>/`), as `eqf paper` saved it. " +
		"Numbers are means over training seeds (each the mean over its evaluation seeds) ± standard error over training seeds; " +
		"a paired difference carries its 95 % t-interval over training seeds in brackets and, where the paper states a difference, " +
		"a verdict: agrees or differs only when the interval excludes zero (or, for a size the paper states, excludes that size; " +
		"for an upper bound, lies below the paper's value), else inconclusive.\n")
	if len(rs) == 0 {
		b.WriteString("\nNo experiment has a committed result yet.\n")
	}
	writeVerdicts(&b, rs)
	b.WriteString(SeedsMarkdown(rs))
	b.WriteString(LengthsMarkdown(rs))
	for _, r := range rs {
		dir := filepath.Join(root, r.Dir())
		fmt.Fprintf(&b, "\n## %s\n\n%s (paper: %s). Training seeds: %s.\n\n", r.label(), r.Title, r.Where, seedList(r.TrainSeeds))
		if run := Run(dir); run != "" {
			fmt.Fprintf(&b, "Run: %s\n\n", run)
		}
		r.writeTable(&b)
		pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		for _, p := range pngs {
			name := filepath.Base(p)
			fmt.Fprintf(&b, "![%s](../results/%s/%s)\n\n", strings.TrimSuffix(name, ".png"), r.Dir(), name)
		}
		r.writeNotes(&b)
	}
	return b.String(), nil
}

// writeVerdicts is the section that gathers every comparison with the paper from the committed
// results, one row each (experiment, comparison, stride, ours with its interval, the paper's,
// verdict), after a count of each verdict per protocol.
func writeVerdicts(b *strings.Builder, rs []*Result) {
	type row struct {
		exp string
		n   Number
	}
	var rows []row
	count := map[int]map[string]int{} // stride → verdict → comparisons
	for _, r := range rs {
		for _, n := range r.Numbers {
			if n.Verdict == "" {
				continue
			}
			rows = append(rows, row{r.label(), n})
			if count[n.Stride] == nil {
				count[n.Stride] = map[string]int{}
			}
			count[n.Stride][n.Verdict]++
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## The paper's claims at a glance\n\n")
	strides := make([]int, 0, len(count))
	for s := range count {
		strides = append(strides, s)
	}
	sort.Ints(strides)
	for _, s := range strides {
		c := count[s]
		n, noun := c[Agrees]+c[Differs]+c[Inconclusive], "comparisons"
		if n == 1 {
			noun = "comparison"
		}
		fmt.Fprintf(b, "- %s: %d %s with the paper — %d agree, %d differ, %d inconclusive.\n", strideWords(s), n, noun, c[Agrees], c[Differs], c[Inconclusive])
	}
	b.WriteString("\nEach row is a paired difference over training seeds as its experiment's section reports it " +
		"(S: the rollout stride; the paper's value is its own difference, or the side its text claims).\n\n")
	b.WriteString("| experiment | comparison | S | ours [95 % interval] | paper | verdict |\n|---|---|---|---|---|---|\n")
	for _, x := range rows {
		n := x.n
		ours := fmt.Sprintf("%.4g", n.Ours)
		if n.Lo != 0 || n.Hi != 0 {
			ours += fmt.Sprintf(" [%.3g, %.3g]", n.Lo, n.Hi)
		}
		s := "—"
		if n.Stride > 0 {
			s = fmt.Sprint(n.Stride)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", x.exp, cell(n.Name), s, ours, cell(orDash(n.Paper)), n.Verdict)
	}
}

// LengthsMarkdown is docs/results.md's section (and the notebooks') that sets an experiment's
// results on the paper recipe trained for different lengths (zoo.PaperLengths) against each
// other, each against the next longer one: the numbers with an interval over training seeds,
// as CompareResults gives them ("" when no experiment has results at two lengths). A row of a
// paired difference between two methods (say EqF NAG − FM Euler) is then a difference in
// differences: whether the gap between the methods moves with training length.
func LengthsMarkdown(rs []*Result) string {
	var b strings.Builder
	byName := map[string]map[string]*Result{} // experiment → recipe → result
	var names []string
	for _, r := range rs {
		rec := r.Recipe
		if rec == "" {
			rec = zoo.DefaultRecipe
		}
		if !slices.Contains(zoo.PaperLengths, rec) || len(r.TrainSeeds) == 0 {
			continue
		}
		if byName[r.Name] == nil {
			byName[r.Name] = map[string]*Result{}
			names = append(names, r.Name)
		}
		byName[r.Name][rec] = r
	}
	started := false
	for _, name := range names {
		var chain []*Result
		for _, rec := range zoo.PaperLengths {
			if r := byName[name][rec]; r != nil {
				chain = append(chain, r)
			}
		}
		for i := 0; i+1 < len(chain); i++ {
			short, long := chain[i], chain[i+1]
			la, lb := stepsLabel(short), stepsLabel(long)
			c, err := CompareResults(short, long, la, lb)
			if err != nil {
				continue
			}
			if !started {
				b.WriteString("\n## Training length\n\n" +
					"The same experiment on the paper recipe trained for different lengths (warm-up and EMA horizon scaled with the run), " +
					"each number with an interval over training seeds against the next longer run: B − A, its 95 % t-interval paired by " +
					"training seed (seed k starts from the same initial seed and data order at both lengths; Welch's from the means and " +
					"standard errors where a number keeps no per-seed values) and whether it excludes zero, beside the smallest B − A that the " +
					"paired interval would show with probability 80 % at the spread of the per-seed differences (what an interval that includes zero rules out). " +
					"A row of a difference between two methods is a difference in differences: whether their gap moves with training length.\n")
				started = true
			}
			fmt.Fprintf(&b, "\n### %s: %s against %s\n\n", name, lb, la)
			fmt.Fprintf(&b, "| number | %s (A) | %s (B) | B − A | 95 %% interval | detectable (80 %%) | in seed SDs | verdict |\n|---|---|---|---|---|---|---|---|\n", la, lb)
			n, differ := 0, 0
			for _, r := range c.Rows {
				if r.Verdict == "" {
					continue
				}
				n++
				if r.Verdict == Differs {
					differ++
				}
				ci := interval(r.PairedLo, r.PairedHi) + " paired"
				if math.IsNaN(r.PairedLo) { // no per-seed values: Welch's, from means and standard errors
					ci = interval(r.WelchLo, r.WelchHi) + " Welch"
				}
				fmt.Fprintf(&b, "| %s | %.4g | %.4g | %+.3g | %s | %s | %s | %s |\n", cell(r.label()), r.A, r.B, r.Diff, ci, r.detectableCell(), r.inSeedSDs(), r.Verdict)
			}
			fmt.Fprintf(&b, "\n%d of %d differ (95 %%), where about %.1f would by chance alone.\n", differ, n, 0.05*float64(n))
		}
	}
	return b.String()
}

// stepsLabel names a result by its recipe's training length ("7,000 steps").
func stepsLabel(r *Result) string {
	rec := r.Recipe
	if rec == "" {
		rec = zoo.DefaultRecipe
	}
	z, err := zoo.RecipeByName(rec)
	if err != nil {
		return rec
	}
	return thousands(z.Steps) + " steps"
}

// strideWords names a protocol by its stride for the verdict counts.
func strideWords(s int) string {
	switch s {
	case 0:
		return "Analyses (no rollout stride)"
	case 1:
		return "The paper's rolling staircase (S = 1)"
	}
	return fmt.Sprintf("Chunk by chunk (S = %d)", s)
}

func seedList(s []int) string {
	if len(s) == 0 {
		return "none (analytic)"
	}
	parts := make([]string, len(s))
	for i, k := range s {
		parts[i] = fmt.Sprint(k)
	}
	return strings.Join(parts, ", ")
}

// thousands writes n with a comma between groups of three digits (70,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
