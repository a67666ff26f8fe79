package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/zoo"
)

// eqf paper list | NAME… | all: run the paper's experiments (package paper) into out/paper/NAME.
func runPaper(args []string) error {
	fs := flag.NewFlagSet("paper", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "quick mode: tiny sizes, seconds (what the tests run)")
	seeds := fs.Int("seeds", 0, "evaluation seeds to average over (0: 3, or 1 with -quick)")
	stride := fs.String("stride", "0", "rollout stride S: 0 = the zoo's horizon (chunk by chunk), 1 = the paper's rolling staircase with bake-in; \"0,1\" runs both side by side")
	recipe := fs.String("recipe", zoo.DefaultRecipe, "zoo recipe of full mode: paper (C = H = 2, make models), paper-8 (C = H = 4, make models ZOO_RECIPE=paper-8), or paper-3.5k / paper-14k / paper-70k (the paper recipe trained for 3,500 / 14,000 / 70,000 steps)")
	clips := fs.Int("clips", 0, fmt.Sprintf("rollouts per method, training seed and evaluation seed (0: %d, or 2 with -quick; below 26 FVD over time is not well posed)", paper.DefaultRollouts))
	trainSeeds := fs.Int("train-seeds", 0, "training seeds 1…N of the zoo (make models SEEDS=N) to run every model-based experiment with (0: all the zoo has)")
	trainSeed := fs.Int("train-seed", 0, "run only this training seed of the zoo (0: 1…train-seeds): its numbers are those a run of all seeds gives for it, and \"eqf paper pool\" pools them with runs of the other seeds")
	models := fs.String("models", "", "only these backbones' methods in minecraft_main and fixed_compute_scaling, e.g. fm,eqf on the paper-8 zoo (\"\": all; other experiments need all of theirs)")
	out := fs.String("out", "out/paper", "output folder (one subfolder per experiment)")
	rolloutsOf := fs.String("rollouts-of", "", "other eqf executables (separated by commas) whose rollouts in OUT/.rollouts this run reads as its own, for changes that decide no rollout (a figure, a note); the result's notes count them")
	resume := fs.Bool("resume", true, "keep every rollout's scores in OUT/.rollouts as they are computed, so that a stopped run started again with the same binary, zoo and flags resumes (false: this process only)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: eqf paper [flags] list | NAME... | all\n       eqf paper compare DIR_A DIR_B   (two runs' saved results, e.g. results out/paper, or two results of one experiment: B − A per number with intervals over training seeds)\n"+
			"       eqf paper [-out DIR] pool RESULT RESULT...   (results of one experiment on disjoint training seeds, e.g. runs of -train-seed 3 and of seeds 1–2, or a run folder holding one: the result of all their seeds, saved in DIR/<experiment>)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkFlags(between("seeds", *seeds, 0, 100), between("clips", *clips, 0, 4096), between("train-seeds", *trainSeeds, 0, 100), between("train-seed", *trainSeed, 0, 100)); err != nil {
		return err
	}
	if !zoo.IsPaperRecipe(*recipe) {
		return fmt.Errorf("flag -recipe = %q is out of range: must be one of %s (the paper's recipe, on 8-frame windows or trained for other lengths; the guided recipes never reach the paper's experiments)", *recipe, strings.Join(zoo.PaperRecipes, ", "))
	}
	var strides []int
	for _, f := range strings.Split(*stride, ",") {
		s, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || s < 0 || s > 64 {
			return fmt.Errorf("flag -stride = %q is out of range: must be strides in [0, 64] separated by commas (0: chunk by chunk, 1: the paper's staircase)", *stride)
		}
		strides = append(strides, s)
	}
	var others []string
	if *rolloutsOf != "" {
		for _, path := range strings.Split(*rolloutsOf, ",") {
			if st, err := os.Stat(path); err != nil {
				return fmt.Errorf("flag -rollouts-of: %w", err)
			} else if !st.Mode().IsRegular() {
				return fmt.Errorf("flag -rollouts-of = %q is out of range: must be eqf executables, not folders", *rolloutsOf)
			}
			others = append(others, path)
		}
		if !*resume {
			return fmt.Errorf("flag -rollouts-of needs -resume (the rollouts it reads are in OUT/.rollouts)")
		}
	}
	var backbones []string
	if *models != "" {
		for _, m := range strings.Split(*models, ",") {
			s, err := zoo.SpecByName(m) // EqF, as the paper writes it, is eqf
			if err != nil || !slices.Contains(zoo.Backbones(), s.Name) {
				return fmt.Errorf("flag -models = %q is out of range: must be zoo backbones (%s) separated by commas", *models, strings.Join(zoo.Backbones(), ", "))
			}
			backbones = append(backbones, s.Name)
		}
	}
	names := fs.Args()
	if len(names) > 0 && names[0] == "compare" {
		return compareRuns(names[1:])
	}
	if len(names) > 0 && names[0] == "pool" {
		return poolRuns(names[1:], *out)
	}
	if err := flagsFirst(fs); err != nil {
		return err
	}
	if len(names) > 1 && names[0] == "list" {
		return fmt.Errorf("eqf paper list takes no arguments: got %q (eqf paper NAME… runs experiments)", names[1:])
	}
	if len(names) == 0 || (len(names) == 1 && names[0] == "list") {
		for _, e := range paper.Experiments {
			fmt.Printf("%-32s %s\n", e.Name, e.Where)
		}
		return nil
	}
	var todo []paper.Experiment
	if len(names) == 1 && names[0] == "all" {
		todo = paper.Experiments
	} else {
		for _, n := range names {
			e, err := paper.ByName(n)
			if err != nil {
				return err
			}
			todo = append(todo, e)
		}
	}
	if err := outDir("out", *out); err != nil {
		return err
	}
	ctx, release := signal.NotifyContext(context.Background(), stopSignals...)
	defer release()
	for _, e := range todo {
		start := time.Now()
		fmt.Printf("%s (%s)\n", e.Name, e.Where)
		c := paper.Config{Quick: *quick, Recipe: *recipe, Seeds: *seeds, Clips: *clips, TrainSeeds: *trainSeeds, TrainSeed: *trainSeed, Strides: strides, Models: backbones, RolloutsOf: others, Log: os.Stdout}
		if *resume {
			c.CacheDir = filepath.Join(*out, ".rollouts")
		}
		r, err := e.Run(ctx, c)
		if err != nil && ctx.Err() != nil && c.CacheDir != "" {
			// A stop signal: the rollout in flight stopped at its next network evaluation.
			return fmt.Errorf("%s: stopped; the rollouts it finished are kept in %s, and the same command resumes from them", e.Name, c.CacheDir)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		dir := filepath.Join(*out, r.Dir()) // the experiment's name, and the recipe after it when that is not the paper's
		if err := r.Save(dir); err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		took := time.Since(start)
		fmt.Printf("%s: %d numbers, %d figures in %s -> %s\n", e.Name, len(r.Numbers), len(r.Figures)+len(r.Files),
			took.Round(time.Second), filepath.Join(dir, "results.md"))
		if r.Spent != nil {
			fmt.Printf("  where the time went: %s\n", r.Spent.Summary(took))
		}
	}
	return nil
}

// eqf paper compare DIR_A DIR_B: two runs' saved results (folders of <experiment>/results.json,
// as results/ and `eqf paper -out` hold them) number by number, as Markdown on stdout; or two
// results of one experiment (folders holding results.json themselves, or the files, e.g.
// minecraft_main on two recipes); or one result against a run's result of the same experiment
// and recipe (a result kept in docs/runs against `eqf paper -out`'s folder).
func compareRuns(dirs []string) error {
	if len(dirs) != 2 {
		return fmt.Errorf("eqf paper compare: got %d folders, want 2: DIR_A DIR_B (e.g. results out/paper, or results/minecraft_main-paper-3.5k results/minecraft_main)", len(dirs))
	}
	single := [2]bool{}
	for i, d := range dirs {
		if st, err := os.Stat(d); err == nil && !st.IsDir() { // results.json itself: its folder
			dirs[i] = filepath.Dir(d)
		}
		_, err := os.Stat(filepath.Join(dirs[i], "results.json"))
		single[i] = err == nil
	}
	if single[0] || single[1] {
		var rs [2]*paper.Result
		for i, d := range dirs {
			if !single[i] {
				continue
			}
			r, err := paper.LoadResult(d)
			if err != nil {
				return err
			}
			rs[i] = r
		}
		for i, d := range dirs { // a run against one result: the run's result of that experiment
			if single[i] {
				continue
			}
			r, err := sameExperiment(d, rs[1-i])
			if err != nil {
				return err
			}
			rs[i], dirs[i] = r, filepath.Join(d, r.Dir())
		}
		c, err := paper.CompareResults(rs[0], rs[1], dirs[0], dirs[1])
		if err != nil {
			return err
		}
		fmt.Print(c.Markdown())
		return nil
	}
	var runs [2][]*paper.Result
	for i, d := range dirs {
		rs, err := paper.LoadResults(d)
		if err != nil {
			return err
		}
		if len(rs) == 0 {
			return fmt.Errorf("eqf paper compare: %s holds no saved result (<experiment>/results.json)", d)
		}
		runs[i] = rs
	}
	fmt.Print(paper.CompareRuns(runs[0], runs[1], dirs[0], dirs[1]).Markdown())
	return nil
}

// sameExperiment is run dir's result of r's experiment and recipe (its folder r.Dir()).
func sameExperiment(dir string, r *paper.Result) (*paper.Result, error) {
	rs, err := paper.LoadResults(dir)
	if err != nil {
		return nil, err
	}
	var held []string
	for _, x := range rs {
		if x.Dir() == r.Dir() {
			return x, nil
		}
		held = append(held, x.Dir())
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("eqf paper compare: %s holds no saved result (<experiment>/results.json)", dir)
	}
	return nil, fmt.Errorf("eqf paper compare: %s holds no result of %s to compare with (it holds %s)", dir, r.Dir(), strings.Join(held, ", "))
}

// eqf paper pool RESULT RESULT...: results of one experiment run on disjoint training seeds
// (folders holding results.json, or the files; or run folders, `eqf paper -out`'s, each then
// giving its result of the first result's experiment and recipe) pooled into the result of all
// their seeds (paper.PoolTrainingSeeds), saved in out/<experiment>; never over one of the
// results pooled.
func poolRuns(args []string, out string) error {
	if len(args) < 2 {
		return fmt.Errorf("eqf paper pool: got %d results, want at least 2: RESULT RESULT... (folders holding results.json of one experiment on disjoint training seeds, e.g. docs/runs/…/minecraft_main-seeds-1-2 out/paper-70k/minecraft_main-paper-70k)", len(args))
	}
	parts := make([]*paper.Result, len(args))
	dirs := make([]string, len(args))
	var first *paper.Result // the first result named as such: a run folder's is of its experiment
	for i, a := range args {
		dirs[i] = a
		if st, err := os.Stat(a); err == nil && !st.IsDir() { // results.json itself: its folder
			dirs[i] = filepath.Dir(a)
		}
		if _, err := os.Stat(filepath.Join(dirs[i], "results.json")); err != nil {
			continue
		}
		r, err := paper.LoadResult(dirs[i])
		if err != nil {
			return fmt.Errorf("eqf paper pool: %w", err)
		}
		if parts[i] = r; first == nil {
			first = r
		}
	}
	for i, d := range dirs { // a run folder (`eqf paper -out`'s): its result of that experiment and recipe
		if parts[i] != nil {
			continue
		}
		if first == nil {
			return fmt.Errorf("eqf paper pool: %s holds no results.json: name at least one result (a folder holding results.json, or the file); a run folder then gives its result of the same experiment", d)
		}
		r, err := sameExperiment(d, first)
		if err != nil {
			return fmt.Errorf("eqf paper pool: %w", err)
		}
		parts[i], dirs[i] = r, filepath.Join(d, r.Dir())
	}
	r, err := paper.PoolTrainingSeeds(parts...)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, r.Dir())
	for i, d := range dirs {
		if sameDir(d, dir) {
			return fmt.Errorf("eqf paper pool: the pooled result would be saved over result %d (%s): give -out another folder", i+1, d)
		}
	}
	if err := outDir("out", out); err != nil {
		return err
	}
	if err := r.Save(dir); err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, "run.txt"), []byte(pooledRun(r, parts, dirs, args, out))); err != nil {
		return err
	}
	fmt.Printf("%s: training seeds %s pooled from %d results: %d numbers -> %s\n", r.Name, strings.Trim(fmt.Sprint(r.TrainSeeds), "[]"), len(parts), len(r.Numbers), filepath.Join(dir, "results.md"))
	return nil
}

// pooledRun is a pooled result's run.txt: how it was pooled, from which results (each with its
// training seeds and its own run.txt, where it has one), so that where and how each seed ran
// stays with the result.
func pooledRun(r *paper.Result, parts []*paper.Result, dirs, args []string, out string) string {
	seeds := func(ks []int) string {
		if len(ks) == 1 {
			return fmt.Sprintf("training seed %d", ks[0])
		}
		return "training seeds " + strings.Trim(strings.ReplaceAll(fmt.Sprint(ks), " ", ", "), "[]")
	}
	var b strings.Builder
	recipe := r.Recipe
	if recipe == "" {
		recipe = zoo.DefaultRecipe
	}
	fmt.Fprintf(&b, "%s on the %s recipe, %s: pooled from %d results on disjoint training seeds\n", r.Name, recipe, seeds(r.TrainSeeds), len(parts))
	fmt.Fprintf(&b, "command: eqf paper -out %s pool %s (%s UTC)\n", out, strings.Join(args, " "), time.Now().UTC().Format("2006-01-02 15:04"))
	b.WriteString("paper.PoolTrainingSeeds: each number's per-seed values side by side, its mean, standard error, 95 % interval\n" +
		"and verdict computed again over all the seeds: the numbers one run of all of them gives (a seed's rollouts\n" +
		"depend on its own models and the evaluation seeds alone)\n")
	for i, p := range parts {
		fmt.Fprintf(&b, "\nresult %d: %s, %s\n", i+1, dirs[i], seeds(p.TrainSeeds))
		run := paper.Run(dirs[i])
		if run == "" {
			run = "(no run.txt)"
		}
		for _, line := range strings.Split(run, "\n") {
			b.WriteString(strings.TrimRight("  "+line, " ") + "\n")
		}
	}
	return b.String()
}

// sameDir says whether two paths name one folder.
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
