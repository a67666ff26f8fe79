package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

// eqf models: train the model zoo (make models; QUICK=1 make models for the quick recipe), or
// list what is trained.
func runModels(args []string) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	recipe := fs.String("recipe", "cpu", "recipe: cpu (the zoo, ~65 min on 2 cores) or quick (tiny models, minutes)")
	dir := fs.String("dir", "", "zoo folder (default out/models, or out/models-<recipe>)")
	list := fs.Bool("list", false, "list the trained models and their cards instead of training")
	noWait := fs.Bool("no-wait", false, "fail at once when another process is building a model this needs (default: wait for it)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: eqf models [-recipe cpu|quick] [-dir DIR] [-list] [-no-wait] [model ...]\n\nmodels: ")
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
		return listModels(z)
	}
	z.Log, z.NoWait = os.Stdout, *noWait
	ctx, release := signal.NotifyContext(context.Background(), stopSignals...)
	defer release()
	z.Stop = ctx.Done()
	fmt.Printf("model zoo %s (recipe %q)\n", z.Dir, z.Recipe.Name)
	if err := z.Build(fs.Args()...); errors.Is(err, eqflib.ErrStopped) {
		fmt.Println("stopped: the model in training saved a checkpoint; the same command resumes it")
		return nil
	} else if err != nil {
		return err
	}
	return listModels(z)
}

func listModels(z *zoo.Zoo) error {
	fmt.Printf("%-11s %-8s %8s %9s  %-20s  %s\n", "model", "recipe", "steps", "minutes", "best agreement", "metrics")
	for _, s := range zoo.Specs {
		c, err := z.Card(s.Name)
		if err != nil {
			fmt.Printf("%-11s not trained (%s)\n", s.Name, filepath.Join(z.Dir, s.Name))
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
		fmt.Printf("%-11s %-8s %8d %9.1f  %-20s  %s\n", s.Name, c.Recipe, c.Steps, c.Seconds/60, best, strings.Join(sortStrings(m), ", "))
	}
	return nil
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
