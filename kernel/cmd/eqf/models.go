package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

// eqf models: train the model zoo (make models; QUICK=1 make models for the quick recipe), or
// list what is trained.
func runModels(args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	recipe := fs.String("recipe", zoo.DefaultRecipe, "recipe: paper (the zoo the paper's experiments read, ~30 min per training seed on 2 cores), paper-8 (the same on 8-frame windows, C = H = 4), paper-3.5k, paper-14k and paper-70k (the paper recipe's backbones trained for 3,500, 14,000 and 70,000 steps), cpu (trained for guided rollouts), demo, or quick (tiny models, minutes)")
	seeds := fs.Int("seeds", 1, fmt.Sprintf("training seeds 1…N of every model but the shared action net, in [1, %d]", zoo.MaxTrainSeeds))
	only := fs.Int("seed", 0, "train (or list) only this training seed (0: all of 1…seeds; -list without -seeds or -seed lists 1 and every seed in the zoo's folder)")
	dir := fs.String("dir", "", "zoo folder (default out/models, or out/models-<recipe>)")
	list := fs.Bool("list", false, "list the models (those named, or all) with their cards, or how far their training has got, instead of training")
	noWait := fs.Bool("no-wait", false, "fail at once when another process is building a model this needs (default: wait for it)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqf models [-recipe paper|paper-8|paper-3.5k|paper-14k|paper-70k|cpu|demo|quick] [-seeds N | -seed K] [-dir DIR] [-list] [-no-wait] [model ...]\n\nmodels: ")
		var names []string
		for _, s := range zoo.Specs {
			names = append(names, s.Name)
		}
		fmt.Fprintf(fs.Output(), "%s (default: all)\n\n", strings.Join(names, ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	z, err := zoo.Open(*recipe)
	if err != nil {
		return flagErr("recipe", err)
	}
	if *seeds < 1 || *seeds > zoo.MaxTrainSeeds {
		return flagErr("seeds", fmt.Errorf("%d out of range: must be in [1, %d]", *seeds, zoo.MaxTrainSeeds))
	}
	if *only < 0 || *only > zoo.MaxTrainSeeds {
		return flagErr("seed", fmt.Errorf("%d out of range: must be in [0, %d] (0: all of 1…seeds)", *only, zoo.MaxTrainSeeds))
	}
	runs := make([]int, 0, *seeds)
	for k := 1; k <= *seeds; k++ {
		runs = append(runs, k)
	}
	if *only > 0 {
		runs = []int{*only}
	}
	names := fs.Args() // checked before anything is listed or trained
	if err := flagsFirst(fs); err != nil {
		return err
	}
	for i, n := range names {
		s, err := zoo.SpecByName(n)
		if err != nil {
			return err
		}
		names[i] = s.Name // EqF, as the paper writes it
	}
	if *dir != "" {
		z.Dir = *dir
		if !*list {
			if err := outDir("dir", *dir); err != nil {
				return err
			}
		} else if err := existing("dir", *dir); err != nil {
			return err
		}
	}
	if *list {
		if set := given(fs); !set["seeds"] && !set["seed"] {
			runs = z.TrainSeedsFound() // what is on disk: a seed trained alone (-seed 3) too
		}
		return listModels(z, runs, names)
	}
	z.Log, z.NoWait = os.Stdout, *noWait
	ctx, release := signal.NotifyContext(context.Background(), stopSignals...)
	defer release()
	z.Stop = ctx.Done()
	fmt.Printf("model zoo %s (recipe %q, training seeds %v)\n", z.Dir, z.Recipe.Name, runs)
	for _, k := range runs {
		if len(runs) > 1 {
			fmt.Printf("training seed %d\n", k)
		}
		switch err := z.WithTrainSeed(k).Build(names...); {
		case errors.Is(err, eqflib.ErrStopped):
			fmt.Println("stopped: the model in training saved a checkpoint; the same command resumes it")
			return nil
		case errors.Is(err, zoo.ErrStoppedWaiting):
			fmt.Printf("stopped: %v; the same command waits for it again\n", err)
			return nil
		case err != nil:
			return err
		}
	}
	return listModels(z, runs, names)
}

// listModels lists the named models (all when names is empty) of every training seed in runs.
func listModels(z *zoo.Zoo, runs []int, names []string) error {
	fmt.Printf("%-11s %4s %-8s %8s %9s  %-20s  %s\n", "model", "seed", "recipe", "steps", "minutes", "best agreement", "metrics")
	for _, k := range runs {
		listRun(z.WithTrainSeed(k), k, names)
	}
	return nil
}

// listRun lists training seed k's named models (the shared action net with the first).
func listRun(z *zoo.Zoo, k int, names []string) {
	for _, s := range zoo.Specs {
		if (s.Kind == "action-net" && k > 1) || (len(names) > 0 && !slices.Contains(names, s.Name)) {
			continue
		}
		c, err := z.Card(s.Name)
		if err != nil {
			how := "not trained"
			if p, err := z.Progress(s.Name); err != nil {
				how += ": " + err.Error()
			} else if p.Step > 0 || p.Holder != "" {
				how += ": " + p.String()
			}
			fmt.Printf("%-11s %4d %s (%s)\n", s.Name, k, how, z.ModelDir(s.Name))
			continue
		}
		var m []string
		for k, v := range c.Metrics {
			m = append(m, fmt.Sprintf("%s %.4g", k, v))
		}
		best := "—"
		if k, v, ok := c.BestSampler(); ok {
			best = fmt.Sprintf("%.3f %s", v, k)
		}
		slices.Sort(m)
		fmt.Printf("%-11s %4d %-8s %8d %9.1f  %-20s  %s\n", s.Name, k, c.Recipe, c.Steps, c.Seconds/60, best, strings.Join(m, ", "))
	}
}
