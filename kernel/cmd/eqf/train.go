package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// settings collects repeated -set key=value overrides.
type settings map[string]string

func (s settings) String() string {
	kv := make([]string, 0, len(s))
	for k, v := range s {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, " -set ")
}
func (s settings) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("-set %q: want key=value", kv)
	}
	s[k] = v
	return nil
}

// ditSettable are the backbone keys -set accepts beside the training preset's own (its JSON
// names, eqflib.TrainPresetKeys) and devices (TrainConfig.Devices).
var ditSettable = []string{"hidden", "depth", "heads", "patch", "mlp_ratio"}

// trainSettable lists every key -set accepts, sorted.
var trainSettable = func() []string {
	keys := append(append(eqflib.TrainPresetKeys(), "devices"), ditSettable...)
	sort.Strings(keys)
	return keys
}()

// applySettings applies the -set overrides: training keys to the preset (by its JSON names, the
// library's TrainPreset.Set), devices and the backbone's keys to devices and dc.
func applySettings(s settings, tp *eqflib.TrainPreset, devices *int, dc *eqflib.DiTConfig) error {
	for k, v := range s {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("-set %s=%s: the value must be a finite number", k, v)
		}
		whole := f == math.Trunc(f) && math.Abs(f) <= 1<<30
		switch k {
		case "devices", "hidden", "depth", "heads", "patch":
			if !whole {
				return fmt.Errorf("-set %s=%s: the value must be a whole number", k, v)
			}
		}
		switch k {
		case "devices":
			*devices = int(f)
		case "hidden":
			dc.Hidden = int(f)
		case "depth":
			dc.Depth = int(f)
		case "heads":
			dc.Heads = int(f)
		case "patch":
			dc.Patch = int(f)
		case "mlp_ratio":
			dc.MLPRatio = f
		default:
			if !slices.Contains(trainSettable, k) {
				return fmt.Errorf("-set %s: unknown key, must be one of %s", k, strings.Join(trainSettable, ", "))
			}
			if err := tp.Set(k, f); err != nil {
				return fmt.Errorf("-set %s=%s: %w", k, v, err)
			}
		}
	}
	return nil
}

type trainArgs struct {
	world, preset, objective string
	data                     string          // clips to train on instead of -world
	val                      string          // -data's validation clips, instead of every 10th held out
	given                    map[string]bool // the flags given on the command line
	trainPreset              string
	frames, steps            int
	readoutSteps             int
	seed                     uint64
	out                      string
	resume                   bool
	ckptEvery, evalEvery     int
	ckptMinutes              int
	set                      settings
	args                     []string // as given, recorded in train.json
}

func parseTrainArgs(name string, args []string, defaults trainArgs) (*trainArgs, error) {
	a := defaults
	a.set = settings{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&a.world, "world", a.world, "data world: maze, shapes or pan")
	fs.StringVar(&a.data, "data", a.data, "train on your clips instead of a world: a folder of clips (sub-folders of PNG/JPEG frames with actions.csv, .json or .npy, "+
		"and .npy latents [T, C, H, W] or batches [N, T, C, H, W] with NAME.actions.npy or .csv beside them, .npz archives of clips and actions, or animated .gif files with NAME.actions.csv), one clip's folder or one .npy/.npz/.gif; the model takes their frame size, channels and actions, "+
		"every 10th clip (the last of 2–9) is held out for validation unless -val gives them")
	fs.StringVar(&a.val, "val", a.val, "with -data: validate on these clips (your data's validation split, in -data's forms), training on every clip of -data")
	fs.StringVar(&a.preset, "preset", a.preset, "DiT preset: tiny, small or paper")
	fs.StringVar(&a.objective, "objective", a.objective, "eqf, fm, eqm, nufm or diffusion")
	fs.StringVar(&a.trainPreset, "train", a.trainPreset, "training preset (optimiser, schedule, EMA, h_ω), -set overrides its values:\n"+strings.TrimRight(eqflib.DescribeTrainPresets(), "\n")+"\n")
	fs.IntVar(&a.frames, "frames", a.frames, "frames per training window")
	fs.IntVar(&a.steps, "steps", a.steps, "optimiser steps (total, counting resumed ones)")
	fs.IntVar(&a.readoutSteps, "readout-steps", a.readoutSteps, "h_ω training steps after the backbone (EqF-type objectives; 0 skips)")
	fs.Uint64Var(&a.seed, "seed", a.seed, "seed of data, initialisation and noise")
	fs.StringVar(&a.out, "out", a.out, "output directory (checkpoints, history, stats)")
	fs.BoolVar(&a.resume, "resume", a.resume, "continue from the newest checkpoint in -out")
	fs.IntVar(&a.ckptEvery, "ckpt-every", a.ckptEvery, "checkpoint every this many steps (and at the end)")
	fs.IntVar(&a.ckptMinutes, "ckpt-minutes", a.ckptMinutes, "also checkpoint after this many minutes without one, what a killed run loses at most (0: by steps only)")
	fs.IntVar(&a.evalEvery, "eval-every", a.evalEvery, "validation loss every this many steps (0: never)")
	fs.Var(a.set, "set", "override a setting, key=value (repeatable): "+strings.Join(trainSettable, ", "))
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	a.given, a.args = given(fs), args
	return &a, a.check()
}

// check validates the flags before any work starts.
func (a *trainArgs) check() error {
	if err := checkFlags(between("frames", a.frames, 1, 1024), between("steps", a.steps, 1, 1<<30),
		atLeast("readout-steps", a.readoutSteps, 0), atLeast("ckpt-every", a.ckptEvery, 1), atLeast("ckpt-minutes", a.ckptMinutes, 0),
		atLeast("eval-every", a.evalEvery, 0)); err != nil {
		return err
	}
	if _, err := data.WorldByName(a.world); err != nil {
		return flagErr("world", err)
	}
	if a.data != "" {
		if a.given["world"] {
			return errors.New("-world and -data: give one (-data trains on your clips, -world on a generated world)")
		}
		if err := existingClip("data", a.data); err != nil {
			return err
		}
	}
	if a.val != "" {
		if a.data == "" {
			return errors.New("-val: names the validation clips of -data, which is not given (-data DIR -val DIR trains on your clips)")
		}
		if err := existingClip("val", a.val); err != nil {
			return err
		}
		if sameFile(a.val, a.data) {
			return fmt.Errorf("-val = %s out of range: the clips of -data, trained on; validation clips must be others (without -val every 10th clip of -data is held out)", a.val)
		}
	}
	dc, err := eqflib.DiTPreset(a.preset)
	if err != nil {
		return flagErr("preset", err)
	}
	obj, err := eqflib.ParseObjective(a.objective)
	if err != nil {
		return flagErr("objective", err)
	}
	tp, err := eqflib.TrainPresetByName(a.trainPreset)
	if err != nil {
		return flagErr("train", err)
	}
	if _, err := a.trainConfig(tp, obj, &dc); err != nil {
		return err
	}
	return outDir("out", a.out)
}

// trainConfig is the training preset's configuration with the -set overrides applied to it and
// to dc, both validated (an invalid override is named).
func (a *trainArgs) trainConfig(tp eqflib.TrainPreset, obj eqflib.Objective, dc *eqflib.DiTConfig) (eqflib.TrainConfig, error) {
	devices := 0
	if err := applySettings(a.set, &tp, &devices, dc); err != nil {
		return eqflib.TrainConfig{}, err
	}
	if a.data != "" {
		dc.Height, dc.Width = dc.Patch, dc.Patch // the clips' size, checked against the patch once they are loaded
	}
	tc := tp.Config(obj, a.steps)
	tc.Seed, tc.Devices = a.seed, devices
	if tc.CosineSteps != 0 && tc.CosineSteps <= tc.Warmup {
		tc.CosineSteps = 0 // the warm-up covers the whole run: nothing left to decay
	}
	for _, err := range []error{dc.Validate(), tc.Validate()} {
		if err != nil {
			return tc, fmt.Errorf("-set %s: %w", a.set, err)
		}
	}
	return tc, nil
}

var defaultTrain = trainArgs{world: "maze", preset: "tiny", objective: "eqf", trainPreset: "cpu", frames: 4, steps: 200, seed: 1, out: "out/train", ckptEvery: 100, ckptMinutes: 10, evalEvery: 50}

func runTrain(args []string) error {
	a, err := parseTrainArgs("train", args, defaultTrain)
	if err != nil {
		return err
	}
	_, err = train(a)
	return err
}

// train runs the backbone (and optionally h_ω) training described by a, writing checkpoints,
// history.json/.csv and stats.json into a.out. It returns the trained DiT.
func train(a *trainArgs) (*eqflib.DiT, error) {
	world, err := data.WorldByName(a.world)
	if err != nil {
		return nil, err
	}
	dc, err := eqflib.DiTPreset(a.preset)
	if err != nil {
		return nil, err
	}
	obj, err := eqflib.ParseObjective(a.objective)
	if err != nil {
		return nil, err
	}
	tp, err := eqflib.TrainPresetByName(a.trainPreset)
	if err != nil {
		return nil, err
	}
	tc, err := a.trainConfig(tp, obj, &dc)
	if err != nil {
		return nil, err
	}
	var (
		trainDS, valDS eqflib.Dataset // valDS nil: no validation
		stats          data.Stats
		on             = zoo.TrainedOn{World: a.world, Frames: a.frames}
		about          = fmt.Sprintf("%s %dx%d", a.world, dc.Height, dc.Width) // the data, for the first line
	)
	if a.data != "" {
		tr, val, held, err := clipSplits(a.data, a.val, a.frames)
		if err != nil {
			return nil, err
		}
		c := tr.Clips[0]
		dc.Channels, dc.Height, dc.Width, dc.CondDim = c.Channels, c.Height, c.Width, c.CondDim
		if err := dc.Validate(); err != nil {
			return nil, fmt.Errorf("-data: the clips' frames are %dx%d, the %s preset's patches %dx%d: -set patch=P with P dividing both sizes (%w)",
				c.Width, c.Height, a.preset, dc.Patch, dc.Patch, err)
		}
		abs, err := filepath.Abs(a.data)
		if err != nil {
			return nil, err
		}
		trainDS, stats, on = tr, tr.Stats, zoo.TrainedOn{Data: abs, HeldOut: held, Frames: a.frames}
		if a.val != "" {
			if on.Val, err = filepath.Abs(a.val); err != nil {
				return nil, err
			}
		}
		if val != nil {
			valDS = val
		}
		about = describeClips(a.data, a.val, tr, val, held)
	} else {
		dc.CondDim = world.CondDim()
		tr, val, err := data.NewWorldSplits(world, a.frames, dc.Height, dc.Width, 100000, 512, a.seed)
		if err != nil {
			return nil, err
		}
		trainDS, valDS, stats = tr, val, tr.Stats
	}
	on.Commands = []string{commandLine("eqf train", a.args)}
	began := "" // what the resumed run's first command was
	if a.resume {
		if prev, err := zoo.ReadTrainedOn(a.out); err != nil {
			return nil, flagErr("resume", err)
		} else if prev != nil && (prev.World != on.World || prev.Data != on.Data || prev.Val != on.Val) { // another -frames is a choice (longer windows later)
			return nil, fmt.Errorf("-resume: %s was trained on %s, not %s: resume with the same data, or train into another -out", a.out, prev, on)
		} else if prev != nil && len(prev.Commands) > 0 {
			on.Commands, began = append(prev.Commands, on.Commands...), prev.Commands[0]
		}
	}
	if err := os.MkdirAll(a.out, 0o755); err != nil {
		return nil, err
	}
	if err := stats.Save(filepath.Join(a.out, "stats.json")); err != nil {
		return nil, err
	}
	if err := on.Save(a.out); err != nil {
		return nil, err
	}
	m, err := eqflib.NewDiT(dc, obj.NoiseConditional(), a.seed, eqflib.DefaultDType)
	if err != nil {
		return nil, err
	}
	tr, err := eqflib.NewTrainer(m, trainDS, valDS, tc)
	if err != nil {
		return nil, err
	}
	if a.resume {
		if last := eqflib.LatestCheckpoint(a.out); last != "" {
			if err := tr.RestoreCheckpoint(last); err != nil {
				return nil, err
			}
			how := ""
			if began != "" {
				how = " (the run began as `" + began + "`)"
			}
			fmt.Printf("resumed from %s at step %d%s\n", last, tr.Step, how)
		}
	}
	fmt.Printf("training %s (%s, %d parameters) with %s on %s, %d frames, batch %d, backend %s%s\n",
		a.preset, m.Info().Name, dc.NumParams(), obj.Kind, about, a.frames, tc.Batch,
		eqflib.MustBackend().Name(), dataParallelNote(tr))
	ctx, release := signal.NotifyContext(context.Background(), stopSignals...)
	defer release()
	err = tr.Run(a.steps, eqflib.RunOptions{EvalEvery: a.evalEvery, Progress: os.Stdout, CheckpointDir: a.out, CheckpointEvery: a.ckptEvery,
		CheckpointAfter: time.Duration(a.ckptMinutes) * time.Minute, Stop: ctx.Done()})
	if errors.Is(err, eqflib.ErrStopped) {
		if err := eqflib.SaveHistory(a.out, tr.History); err != nil {
			return nil, err
		}
		fmt.Printf("stopped at step %d: checkpoint and history saved in %s (continue with -resume)\n", tr.Step, a.out)
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := eqflib.SaveHistory(a.out, tr.History); err != nil {
		return nil, err
	}
	name := a.world
	if a.data != "" {
		name = filepath.Base(on.Data)
	}
	title := fmt.Sprintf("%s on %s %dx%d (%s preset)", obj.Kind, name, dc.Height, dc.Width, a.preset)
	if err := plots.LossCurves(filepath.Join(a.out, "loss.png"), []plots.Run{{Name: obj.Kind.String(), History: tr.History}},
		plots.LossOptions{Title: title}); err != nil {
		return nil, err
	}
	if a.readoutSteps > 0 && !obj.NoiseConditional() {
		pc := tp.Readout
		pc.Seed = a.seed
		rt, err := eqflib.NewReadoutTrainer(m, trainDS, pc)
		if err != nil {
			return nil, err
		}
		loss, err := rt.Train(a.readoutSteps)
		if err != nil {
			return nil, err
		}
		fmt.Printf("h_ω: %d steps, logit MSE %.4f\n", a.readoutSteps, loss)
		if _, err := tr.SaveCheckpoint(a.out, 3); err != nil { // the readout's variables join the checkpoint
			return nil, err
		}
	}
	return m, nil
}

func dataParallelNote(tr *eqflib.Trainer) string {
	if n := tr.DataParallelDevices(); n > 1 {
		return fmt.Sprintf(" (data-parallel over %d devices)", n)
	}
	return ""
}

// stopSignals end a training run cleanly (RunOptions.Stop): Ctrl-C and SIGTERM.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}
