package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/eqflib/onnxfeat"
	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/zoo"
)

// eqf compare: paper.Compare's rollouts of an FM and an EqF checkpoint (FM Euler, EqF GD, EqF
// NAG, budget-adaptive NAG on the same clips and actions), with its options as flags.

type compareArgs struct {
	fm, eqf, features, out, warp   string // -fm and -eqf as given; runs holds what they name
	clips, frames, context         int
	horizon, stride, depth, subLen int
	momentum                       float64
	seed                           uint64
	featureSteps, timeChunk        int
	onnx                           onnxfeat.Options
	onnxPath                       string
	recipe                         string // the zoo run to compare instead of -fm, -eqf, -features
	trainSeed, trainSeeds          int
	seeds                          []int // the zoo's training runs -recipe compares
	// runs are the training runs -fm and -eqf (or -recipe) name, in pairing order.
	runs  []paper.ComparePair
	world string       // the runs' world (train.json), "" for the maze
	truth []*data.Clip // the held-out clips of the runs' own data (train.json)
}

func runCompare(args []string) error {
	a, err := parseCompareArgs(args)
	if err != nil {
		return err
	}
	return compare(a)
}

// parseCompareArgs parses and checks eqf compare's flags, taking the defaults of the zoo run
// (-recipe) or of what the runs were trained on.
func parseCompareArgs(args []string) (*compareArgs, error) {
	a := compareArgs{fm: "out/models/fm", eqf: "out/models/eqf", features: "out/models/action-net/action-net.eqf", out: "out/compare", warp: "c:0.8:0.001",
		clips: 8, frames: 100, context: 2, horizon: 2, stride: 1, depth: 10, subLen: 10, momentum: 0.2, seed: 7, featureSteps: 800,
		timeChunk: 25, trainSeed: 1}
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.StringVar(&a.recipe, "recipe", a.recipe, "compare the fm and eqf of this zoo recipe (e.g. paper, paper-8, paper-70k) with its action net, "+
		"context and horizon, instead of -fm, -eqf, -features")
	fs.IntVar(&a.trainSeed, "train-seed", a.trainSeed, "the zoo's training run with -recipe (1: the first)")
	fs.IntVar(&a.trainSeeds, "train-seeds", 0, "compare the zoo's training runs 1…N with -recipe (make models SEEDS=N), paired by training run (0: -train-seed's alone)")
	fs.StringVar(&a.fm, "fm", a.fm, "FM checkpoint (file or directory); several training runs comma-separated, paired in order with -eqf's")
	fs.StringVar(&a.eqf, "eqf", a.eqf, "EqF checkpoint with h_ω (file or directory); several training runs comma-separated, paired in order with -fm's")
	fs.StringVar(&a.features, "features", a.features, "maze-I3D action net (trained and written here if missing)")
	fs.StringVar(&a.out, "out", a.out, "output directory (results.json, results.md)")
	fs.StringVar(&a.warp, "warp", a.warp, "EqF η warp")
	fs.IntVar(&a.clips, "clips", a.clips, "ground-truth clips (rollouts per method)")
	fs.IntVar(&a.frames, "frames", a.frames, "frames generated per rollout")
	fs.IntVar(&a.context, "context", a.context, "context frames C")
	fs.IntVar(&a.horizon, "horizon", a.horizon, "horizon H")
	fs.IntVar(&a.stride, "stride", a.stride, "stride S")
	fs.IntVar(&a.depth, "depth", a.depth, "steps per frame D")
	fs.IntVar(&a.subLen, "clip-frames", a.subLen, "FVD is computed over non-overlapping clips of this many frames")
	fs.Float64Var(&a.momentum, "momentum", a.momentum, "NAG momentum μ")
	fs.Uint64Var(&a.seed, "seed", a.seed, "seed of ground-truth clips and noise")
	fs.IntVar(&a.featureSteps, "feature-steps", a.featureSteps, "action-net training steps when it is missing")
	fs.IntVar(&a.timeChunk, "time-chunk", a.timeChunk, "FVD over time: consecutive chunks of this many frames (paper: 25), each cut into 5-frame clips")
	fs.StringVar(&a.onnxPath, "onnx", "", "also report FVD in the features of this ONNX video model (e.g. an exported I3D)")
	fs.StringVar(&a.onnx.Name, "onnx-name", "", "name of the ONNX feature space, e.g. I3D-Kinetics400 (required with -onnx)")
	fs.StringVar(&a.onnx.Output, "onnx-output", "", "ONNX output used as features (default: the first)")
	fs.StringVar(&a.onnx.Layout, "onnx-layout", onnxfeat.LayoutBCTHW, "clip layout the ONNX model takes: BCTHW or BTCHW")
	fs.IntVar(&a.onnx.Size, "onnx-size", 0, "resize frames to this size for the ONNX model (I3D: 224; 0 keeps them)")
	if err := parseFlags(fs, args); err != nil {
		if i := len(args) - fs.NArg(); fs.NArg() > 0 && i >= 2 && slices.Contains([]string{"-fm", "--fm", "-eqf", "--eqf"}, args[i-2]) {
			err = fmt.Errorf("%w; several training runs go in one word, comma-separated: -fm F1,F2 -eqf E1,E2 (a pattern such as out/fm-* expands into several words)", err)
		}
		return nil, err
	}
	set := given(fs)
	if err := a.useZoo(set); err != nil {
		return nil, err
	}
	if err := a.useTrainedOn(set); err != nil {
		return nil, err
	}
	return &a, a.check()
}

// useZoo points the training runs at the zoo run -recipe, -train-seed names (or its runs 1…N,
// -train-seeds), and -features at its action net, and takes its recipe's context and horizon
// unless they are given. Without -recipe, -fm and -eqf name the runs (splitRuns).
func (a *compareArgs) useZoo(set map[string]bool) error {
	if a.recipe == "" {
		for _, f := range []string{"train-seed", "train-seeds"} {
			if set[f] {
				return fmt.Errorf("-%s: names training runs of the zoo -recipe, which is not given (several runs of your own: -fm A,B -eqf X,Y)", f)
			}
		}
		return a.splitRuns(set)
	}
	for _, f := range []string{"fm", "eqf", "features"} {
		if set[f] {
			return fmt.Errorf("-%s and -recipe: give one (-recipe compares the zoo's models, -%s a checkpoint)", f, f)
		}
	}
	if set["train-seed"] && set["train-seeds"] {
		return errors.New("-train-seed and -train-seeds: give one (-train-seed K compares training run K, -train-seeds N runs 1…N)")
	}
	seeds := []int{a.trainSeed}
	if a.trainSeeds != 0 {
		if err := checkFlags(between("train-seeds", a.trainSeeds, 1, zoo.MaxTrainSeeds)); err != nil {
			return err
		}
		seeds = nil
		for k := 1; k <= a.trainSeeds; k++ {
			seeds = append(seeds, k)
		}
	}
	var z *zoo.Zoo
	for _, k := range seeds {
		var err error
		if z, err = zooRun(a.recipe, k); err != nil {
			return err
		}
		for _, m := range []string{"action-net", "fm", "eqf"} {
			if _, err := z.Card(m); err != nil {
				return err // it names the recipe, the seed and the command that trains it
			}
		}
		a.runs = append(a.runs, paper.ComparePair{FM: z.ModelDir("fm"), EqF: z.ModelDir("eqf")})
	}
	a.seeds = seeds
	a.features = filepath.Join(z.ModelDir("action-net"), "action-net.eqf") // every training run's
	if !set["context"] {
		a.context = z.Recipe.Context
	}
	if !set["horizon"] {
		a.horizon = z.Recipe.Frames - z.Recipe.Context
	}
	return nil
}

// splitRuns reads -fm and -eqf as the training runs they name: a checkpoint each, or several
// comma-separated, an FM and an EqF per training run in the same order.
func (a *compareArgs) splitRuns(set map[string]bool) error {
	fms, eqfs := pathList(a.fm), pathList(a.eqf)
	if len(fms) != len(eqfs) {
		return fmt.Errorf("-fm names %d training runs and -eqf %d: give an FM and an EqF of each training run, in the same order (-fm A,B -eqf X,Y)", len(fms), len(eqfs))
	}
	for i := range fms {
		if fms[i] == "" || eqfs[i] == "" {
			return fmt.Errorf("-fm %q, -eqf %q: training run %d names no checkpoint: give an FM and an EqF of each training run, comma-separated (-fm A,B -eqf X,Y)", a.fm, a.eqf, i+1)
		}
		a.runs = append(a.runs, paper.ComparePair{FM: fms[i], EqF: eqfs[i]})
	}
	for _, f := range []struct{ flag, path string }{{"fm", a.fm}, {"eqf", a.eqf}} {
		if _, err := os.Stat(f.path); os.IsNotExist(err) && !set[f.flag] { // the default: a first run
			return fmt.Errorf("-%s: %s does not exist: eqf compare needs an FM and an EqF checkpoint, -fm and -eqf (files, or folders `eqf train` wrote), or a trained zoo's, -recipe paper (after `make models`)", f.flag, f.path)
		}
	}
	for i, run := range a.runs {
		for _, f := range []struct{ flag, path string }{{"fm", run.FM}, {"eqf", run.EqF}} {
			if err := existing(a.runFlag(f.flag, i), f.path); err != nil {
				return err
			}
		}
	}
	return nil
}

// pathList splits a flag's comma-separated paths, spaces around them dropped (a path that
// exists is one, commas and all).
func pathList(s string) []string {
	if _, err := os.Stat(s); err == nil || !strings.Contains(s, ",") {
		return []string{s}
	}
	paths := strings.Split(s, ",")
	for i, p := range paths {
		paths[i] = strings.TrimSpace(p)
	}
	return paths
}

// runFlag names a flag's checkpoint of training run i in an error, as flagErr takes it: the
// flag itself with one run ("fm"), else "fm's training run 2".
func (a *compareArgs) runFlag(flag string, i int) string {
	if len(a.runs) == 1 {
		return flag
	}
	return fmt.Sprintf("%s's training run %d", flag, i+1)
}

// useTrainedOn reads what the -eqf run was trained on (its train.json, as eqf sample does) and
// checks -fm was trained on the same, as was every checkpoint of other training runs. Its window
// sets -horizon (the window less -context) unless given; runs of different windows need
// -horizon. A run on another world than the maze is compared over that world's clips, one on
// your clips (-data) over its validation clips (those held out, -val's, or its only clip):
// -frames defaults to what the shortest of them holds past the context (at most 100),
// -clip-frames to at most that and -time-chunk to at most half of it (a curve of two chunks),
// each so that FVD compares two clips or more (one validation clip is cut in two). Runs without
// train.json (the zoo's, earlier eqf's) are compared on the maze.
func (a *compareArgs) useTrainedOn(set map[string]bool) error {
	if a.recipe != "" {
		return nil
	}
	eqf := a.runs[0].EqF
	on, err := zoo.ReadTrainedOn(runDir(eqf))
	if err != nil {
		return flagErr(a.runFlag("eqf", 0), err)
	}
	for i, run := range a.runs {
		for _, m := range []struct{ flag, path string }{{"fm", run.FM}, {"eqf", run.EqF}} {
			if on == nil && len(a.runs) == 1 || i == 0 && m.flag == "eqf" {
				continue // one run recording nothing is compared on the maze, as runs of earlier eqf's were
			}
			other, err := zoo.ReadTrainedOn(runDir(m.path))
			if err != nil {
				return flagErr(a.runFlag(m.flag, i), err)
			}
			if !sameData(other, on) {
				what, ref := "nothing it recorded (no "+zoo.TrainedOnFile+")", "nothing it recorded"
				if other != nil {
					what = other.String()
				}
				if on != nil {
					ref = on.String()
				}
				return fmt.Errorf("-%s: %s was trained on %s, -%s %s on %s: compare models of the same data", a.runFlag(m.flag, i), m.path, what, a.runFlag("eqf", 0), eqf, ref)
			}
			if on != nil && !set["horizon"] && other.Frames != on.Frames {
				return fmt.Errorf("-%s: %s was trained on %d-frame windows, -%s %s on %d: give -horizon (with -context) to compare them at one geometry",
					a.runFlag(m.flag, i), m.path, other.Frames, a.runFlag("eqf", 0), eqf, on.Frames)
			}
		}
	}
	if on == nil {
		return nil
	}
	if !set["horizon"] && on.Frames > a.context {
		a.horizon = on.Frames - a.context
	}
	if on.World != "" {
		a.world = on.World
		return nil
	}
	if a.truth, _, err = on.ValClips(0); err != nil {
		return fmt.Errorf("-%s: %s says the run was trained on %s: %w", a.runFlag("eqf", 0), filepath.Join(runDir(eqf), zoo.TrainedOnFile), on, err)
	}
	shortest := a.truth[0].Frames
	for _, c := range a.truth {
		shortest = min(shortest, c.Frames)
	}
	// FVD compares two sets of at least two clips: one held-out clip is cut in two at least.
	n, least := len(a.truth), 5
	if n == 1 {
		least = 10
	}
	if !set["frames"] {
		a.frames = min(a.frames, shortest-a.context)
		if a.frames < least {
			return fmt.Errorf("-eqf: the %d validation clip(s) of %s have %d frames: a comparison needs -context %d + %d (FVD over time compares two or more 5-frame clips)",
				n, on.ValPath(), shortest, a.context, least)
		}
	}
	if !set["time-chunk"] {
		a.timeChunk = min(a.timeChunk, max(least, a.frames/2/5*5)) // two chunks where they fit: a curve
	}
	if !set["clip-frames"] {
		a.subLen = min(a.subLen, a.frames)
		if n == 1 {
			a.subLen = min(a.subLen, a.frames/2)
		}
	}
	return nil
}

// sameData is whether two runs' records name the same data (both none: the maze, or unknown).
func sameData(a, b *zoo.TrainedOn) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.World == b.World && a.Data == b.Data && a.Val == b.Val
}

// keptRuns says, beside the error that stopped a comparison of n training runs, where the own
// results of the first saved runs lie (under out; none saved: the error alone).
func keptRuns(err error, saved, n int, out string) error {
	switch {
	case saved == 1:
		return fmt.Errorf("%w (training run 1 of %d was rolled out: its own result is in %s)", err, n, filepath.Join(out, "run-1"))
	case saved > 1:
		return fmt.Errorf("%w (training runs 1–%d of %d were rolled out: their own results are in %s)", err, saved, n, filepath.Join(out, "run-*"))
	}
	return err
}

// runDir is the folder of a checkpoint named by a flag: itself, or a file's folder.
func runDir(path string) string {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return filepath.Dir(path)
	}
	return path
}

// check validates the flags before any work starts.
func (a *compareArgs) check() error {
	if err := checkFlags(between("clips", a.clips, 1, 1<<16), between("frames", a.frames, 1, 1<<20), between("context", a.context, 0, 1024),
		between("horizon", a.horizon, 1, 1024), flagRule{"stride", a.stride >= 1 && a.horizon%a.stride == 0, a.stride, fmt.Sprintf("a divisor of -horizon = %d", a.horizon)},
		between("depth", a.depth, 1, 1<<20), between("clip-frames", a.subLen, 1, a.frames), momentumFlag("momentum", a.momentum),
		atLeast("feature-steps", a.featureSteps, 1), between("time-chunk", a.timeChunk, 5, a.frames), atLeast("onnx-size", a.onnx.Size, 0),
		flagRule{"onnx-layout", a.onnx.Layout == onnxfeat.LayoutBCTHW || a.onnx.Layout == onnxfeat.LayoutBTCHW, a.onnx.Layout, "BCTHW or BTCHW"},
		flagRule{"onnx-name", a.onnxPath == "" || a.onnx.Name != "", `""`, "a feature-space name (e.g. I3D-Kinetics400) with -onnx"},
		flagRule{"onnx-output", a.onnxPath != "" || a.onnx.Output == "", a.onnx.Output, "unset without -onnx"}); err != nil {
		return err
	}
	if _, err := eqflib.ParseWarp(a.warp); err != nil {
		return flagErr("warp", err)
	}
	if a.onnxPath != "" {
		if err := existing("onnx", a.onnxPath); err != nil {
			return err
		}
	}
	if a.truth == nil && (a.world == "" || a.world == "maze") { // the maze's action net, trained there if missing
		if err := outDir("features", filepath.Dir(a.features)); err != nil {
			return err
		}
	}
	return outDir("out", a.out)
}

// compare runs paper.Compare with the flags and saves its result into -out.
func compare(a *compareArgs) error {
	o := paper.CompareOptions{Runs: a.runs, Features: a.features, Warp: a.warp, Clips: a.clips, Frames: a.frames,
		RollConfig: eqflib.RollConfig{Context: a.context, Horizon: a.horizon, Stride: a.stride, Depth: a.depth},
		ClipFrames: a.subLen, TimeChunk: a.timeChunk, Momentum: a.momentum, Seed: a.seed, FeatureSteps: a.featureSteps, Truth: a.truth, Log: os.Stdout}
	if a.world != "" {
		w, err := data.WorldByName(a.world)
		if err != nil {
			return err
		}
		o.World = w
	}
	if a.onnxPath != "" {
		x, err := onnxfeat.Load(a.onnxPath, a.onnx)
		if err != nil {
			return err
		}
		o.ONNX = x
	}
	saved := 0 // training runs whose own result is saved in -out/run-K
	if len(a.runs) > 1 {
		o.RunDone = func(k int, r *paper.Result) error {
			dir := filepath.Join(a.out, fmt.Sprintf("run-%d", k))
			if err := r.Save(dir); err != nil {
				return err
			}
			saved = k
			fmt.Printf("training run %d: its own result in %s\n", k, dir)
			return nil
		}
	}
	ctx, release := signal.NotifyContext(context.Background(), stopSignals...)
	defer release()
	r, err := paper.Compare(ctx, o)
	if err != nil {
		return keptRuns(err, saved, len(a.runs), a.out)
	}
	if saved > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Each training run's own result — its numbers, FVD over time and rollouts — is in run-1/ … run-%d/ beside this one.", saved))
	}
	if a.recipe != "" { // the zoo's models: which recipe and training runs, as eqf paper records them
		r.Recipe, r.TrainSeeds = a.recipe, a.seeds
	}
	if err := r.Save(a.out); err != nil {
		return err
	}
	wrote := []string{"results.json", "results.md"}
	for stem := range r.Figures {
		wrote = append(wrote, stem+".png", stem+".html")
	}
	if len(r.Figures) > 0 {
		wrote = append(wrote, "figures.json") // what LoadResult draws them again from
	}
	wrote = append(slices.Sorted(maps.Keys(r.Files)), wrote...)
	slices.Sort(wrote)
	fmt.Printf("wrote %s/{%s}\n", a.out, strings.Join(wrote, ","))
	return nil
}
