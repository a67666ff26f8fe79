package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// runDemo is `make demo`: train EqF and its readout h_ω with the "demo" recipe (the zoo's CPU
// backbone, actions dropped from a tenth of the windows, a ten-minute budget) and the action net
// on the maze world, roll out action-conditioned videos over validation clips with closed-loop
// NAG, with classifier-free guidance on the actions (-guidance w) and without it (as the paper
// samples), and score both; everything lands in out/demo. The last line reports the guided
// rollouts' action agreement.
func runDemo(args []string) error {
	start := time.Now()
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	out := fs.String("out", "out/demo", "output folder (the models are cached in it: a second run only samples)")
	recipe := fs.String("recipe", "demo", "zoo recipe to train with (demo, quick or cpu: one trained with condition dropout)")
	clips := fs.Int("clips", 4, "rollouts (validation clips)")
	frames := fs.Int("frames", 50, "generated frames per rollout")
	guidance := fs.Float64("guidance", 3, "classifier-free guidance weight w on the actions of the guided rollout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := checkFlags(atLeast("clips", *clips, 1), atLeast("frames", *frames, 1), guidanceFlag("guidance", *guidance)); err != nil {
		return err
	}
	r, err := zoo.RecipeByName(*recipe)
	if err != nil {
		return flagErr("recipe", err)
	}
	if *guidance > 0 && r.Train.CondDropout == 0 {
		return fmt.Errorf("-guidance = %g: recipe %q trains without condition dropout, so its models cannot be guided: use -guidance 0 or a recipe with condition dropout (demo, quick, cpu)", *guidance, r.Name)
	}
	if err := outDir("out", *out); err != nil {
		return err
	}
	z := &zoo.Zoo{Dir: *out, Recipe: r, Log: os.Stdout}
	if err := z.Build("action-net", "eqf"); err != nil {
		return err
	}
	m, err := z.Load("eqf")
	if err != nil {
		return err
	}
	net, err := z.LoadActionNet()
	if err != nil {
		return err
	}
	ec := zoo.EvalConfig{Clips: *clips, Frames: *frames, Chunk: min(25, *frames)}
	plain, err := z.Evaluate(m, net, ec)
	if err != nil {
		return err
	}
	q := plain
	if *guidance > 0 {
		ec.Guidance = *guidance
		if q, err = z.Evaluate(m, net, ec); err != nil {
			return err
		}
	}
	vo := plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std, Scale: 3}
	// The strip's labels are short (the sampler is closed-loop NAG, μ = 0.3, on every row).
	videos := []plots.Video{{Name: "ground truth", Frames: clip0(q.Truth)}, {Name: "EqF, no guidance", Frames: clip0(plain.Rollout)}}
	if q != plain {
		videos = slices.Insert(videos, 1, plots.Video{Name: fmt.Sprintf("EqF, guidance w = %g", *guidance), Frames: clip0(q.Rollout)})
	}
	for _, f := range []struct {
		name string
		fn   func(string) error
	}{
		{"rollout.png", func(p string) error { return plots.Strip(p, videos, vo) }},
		{"rollout.gif", func(p string) error { return plots.GIF(p, videos[1], vo) }},
		{"truth.gif", func(p string) error { return plots.GIF(p, videos[0], vo) }},
		{"rollout.html", func(p string) error { return plots.Player(p, "EqF rollouts on the clip's actions", videos, vo) }},
	} {
		if err := f.fn(filepath.Join(*out, f.name)); err != nil {
			return err
		}
	}
	scored := []*zoo.Quality{plain}
	if q != plain {
		scored = append(scored, q)
	}
	for _, r := range scored {
		fmt.Printf("%s\n", r)
		fmt.Printf("colour drift per %d frames: %.3f\n", ec.Chunk, r.Drift)
	}
	fmt.Printf("demo done in %v: %s/{rollout.png,rollout.gif,truth.gif,rollout.html}, eqf/loss.png, eqf/card.json\n",
		time.Since(start).Round(time.Second), *out)
	fmt.Printf("action agreement %.2f\n", q.Agreement.Ratio)
	return nil
}

// clip0 is the first clip of a batch of videos.
func clip0(x *eqflib.Window) *eqflib.Window {
	return &eqflib.Window{Shape: [5]int{1, x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4]}, Data: x.Data[:x.Frames()*x.FrameSize()]}
}
