package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
	"gonum.org/v1/gonum/stat"
)

type sampleArgs struct {
	ckpt, world, out string
	clip             string          // a clip to roll out over instead of -world's
	clips            int             // how many clips to roll out over (PSNR with an interval over them)
	trainedOn        *zoo.TrainedOn  // the -ckpt run's train.json (nil: none, or -model)
	model, recipe    string          // a zoo model instead of -ckpt: its name and recipe
	trainSeed        int             // the zoo's training run (1: the first)
	set              map[string]bool // the flags given on the command line
	run              *zoo.Zoo        // the zoo run of -model, set by check
	sampler          string          // as eqflib.ParseSampler reads it: "nag:0.3,closed,warp=c"
	frames, context  int
	window, steps    int
	guidance         float64
	seed             uint64
}

var defaultSample = sampleArgs{ckpt: "out/train", world: "maze", sampler: "nag:0.3,closed,warp=c", out: "out/sample",
	recipe: zoo.DefaultRecipe, trainSeed: 1, clips: 1, frames: 16, context: 2, window: 4, steps: 10, seed: 7}

func parseSampleArgs(name string, args []string, d sampleArgs) (*sampleArgs, error) {
	a := d
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&a.ckpt, "ckpt", a.ckpt, "checkpoint file, or a directory (its newest checkpoint)")
	fs.StringVar(&a.model, "model", a.model, "a zoo model instead of -ckpt ("+strings.Join(zoo.Backbones(), ", ")+
		"): its recipe's world, and its -window, -context, -steps and the sampler its card reports first unless given")
	fs.StringVar(&a.recipe, "recipe", a.recipe, "the zoo recipe of -model (eqf models -list -recipe R shows what is trained)")
	fs.IntVar(&a.trainSeed, "train-seed", a.trainSeed, "the zoo's training run of -model (1: the first; make models SEEDS=N trains 1…N)")
	fs.StringVar(&a.world, "world", a.world, "world the actions and context frames come from (-ckpt: the one it was trained on)")
	fs.StringVar(&a.clip, "clip", a.clip, "roll out over your clip instead: a folder of frames with actions.csv, .json or .npy, a .npy latent [T, C, H, W] (or .npz), an animated .gif, or clip i of a batch [N, T, C, H, W], NAME.npy[i] "+
		"(-ckpt trained with -data: its first validation clip unless given)")
	fs.IntVar(&a.clips, "clips", a.clips, "roll out over this many clips in one batch, the PSNR a mean over them with its 95 % interval (psnr.csv): "+
		"-ckpt trained with -data: its first validation clips; -clip FOLDER: its first clips; else clips of the world")
	fs.StringVar(&a.sampler, "sampler", a.sampler, "the sampler, name[:μ][,key=value…] as eqflib.ParseSampler reads it: euler, gd, nag, lgd, budget, "+
		"earlystop or ddim; keys closed, warp (identity, sd3[:r], c[:α[:σ_end]], logsnr[:λmin:λmax]), mu, step, thresh, cleanup; "+
		"e.g. nag:0.3,closed,warp=c, gd,warp=sd3, earlystop:0.3,thresh=0.2,cleanup=8; not given, what the model takes: "+
		"closed-loop NAG with h_ω, open-loop NAG without, Euler for FM, DDIM for diffusion")
	fs.StringVar(&a.out, "out", a.out, "output directory")
	fs.IntVar(&a.frames, "frames", a.frames, "rollout length in frames (with a clip: at most its length, which a shorter clip sets)")
	fs.IntVar(&a.context, "context", a.context, "context frames kept in each window (the first come from the data)")
	fs.IntVar(&a.window, "window", a.window, "frames per window (-ckpt: the -frames it was trained with)")
	fs.IntVar(&a.steps, "steps", a.steps, "sampler steps per frame (D)")
	fs.Float64Var(&a.guidance, "guidance", a.guidance, "classifier-free guidance weight w on the actions (0: none; a model trained with -set cond_dropout=p)")
	fs.Uint64Var(&a.seed, "seed", a.seed, "seed of the ground-truth clip and the noise")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	a.set = given(fs)
	return &a, a.check()
}

// check validates the flags before any work starts.
func (a *sampleArgs) check() error {
	if err := checkFlags(between("window", a.window, 2, 1024), between("context", a.context, 1, a.window-1),
		between("frames", a.frames, 1, 1<<20), between("steps", a.steps, 1, 1<<20), guidanceFlag("guidance", a.guidance),
		between("clips", a.clips, 1, 4096)); err != nil {
		return err
	}
	if _, err := data.WorldByName(a.world); err != nil {
		return flagErr("world", err)
	}
	if a.clip != "" {
		if a.set["world"] {
			return errors.New("-world and -clip: give one (-clip rolls out over your clip's actions, -world over a generated one's)")
		}
		if err := existingClip("clip", a.clip); err != nil {
			return err
		}
	}
	if _, err := eqflib.ParseSampler(a.sampler); err != nil {
		return flagErr("sampler", err)
	}
	if a.model == "" {
		for _, f := range []string{"recipe", "train-seed"} {
			if a.set[f] {
				return fmt.Errorf("-%s: names the zoo run of -model, which is not given (-model NAME samples a zoo model; -ckpt a checkpoint)", f)
			}
		}
		if _, err := os.Stat(a.ckpt); os.IsNotExist(err) && !a.set["ckpt"] { // the default: a first run
			return fmt.Errorf("-ckpt: %s does not exist: eqf sample rolls out a checkpoint `eqf train` wrote there (-ckpt FILE or FOLDER for another), or a zoo model, -model eqf (after `make models`)", a.ckpt)
		}
		if err := existing("ckpt", a.ckpt); err != nil {
			return err
		}
		return outDir("out", a.out)
	}
	if a.set["ckpt"] {
		return errors.New("-ckpt and -model: give one (-model NAME samples a zoo model, -ckpt a checkpoint file or folder)")
	}
	if a.set["world"] {
		return errors.New("-world: a zoo model (-model) samples its recipe's maze (or -clip); -world is for -ckpt")
	}
	if s, err := zoo.SpecByName(a.model); err != nil {
		return flagErr("model", err)
	} else if s.Kind != "dit" {
		return fmt.Errorf("-model = %s: must be one of the zoo's backbones (%s): %s is not a DiT", a.model, strings.Join(zoo.Backbones(), ", "), a.model)
	} else {
		a.model = s.Name // -model EqF, as the paper writes it
	}
	var err error
	if a.run, err = zooRun(a.recipe, a.trainSeed); err != nil {
		return err
	}
	return outDir("out", a.out)
}

func runSample(args []string) error {
	a, err := parseSampleArgs("sample", args, defaultSample)
	if err != nil {
		return err
	}
	return sample(a)
}

// sample rolls a trained model out over a ground-truth clip's actions with eqflib.Roll: the
// clip's first `context` frames are the clean context (fed at level 0, as the paper's App. I
// prescribes), every window holds `context` clean frames and `window − context` frames being
// denoised, a frame takes `steps` sampler steps from noise to data and leaves the window one at
// a time. Writes rollout.png, truth.png and rollout.gif.
func sample(a *sampleArgs) error {
	sampler, err := eqflib.ParseSampler(a.sampler)
	if err != nil {
		return flagErr("sampler", err)
	}
	var (
		m     *eqflib.DiT
		stats data.Stats
		world data.World
		path  string // what was sampled, for the summary line
	)
	if a.model != "" {
		if m, stats, world, sampler, err = a.loadZooModel(sampler); err != nil {
			return err
		}
		path = fmt.Sprintf("the %s zoo's %s of training seed %d", a.recipe, a.model, a.trainSeed)
	} else {
		if m, path, err = eqflib.LoadEMA(a.ckpt, a.set["sampler"] && sampler.NeedsReadout()); err != nil {
			return fmt.Errorf("-ckpt: %w (-sampler %s)", err, sampler)
		}
		if !a.set["sampler"] { // what the checkpoint takes, as a zoo model's card reports first
			sampler, _ = zoo.DefaultSampler(&zoo.Model{DiT: m})
		}
		if stats, err = data.LoadStats(filepath.Join(filepath.Dir(path), "stats.json")); err != nil {
			return err
		}
		if err := a.trainedDefaults(filepath.Dir(path)); err != nil {
			return err
		}
		if world, err = data.WorldByName(a.world); err != nil {
			return err
		}
	}
	cfg := m.Config
	truths, names, err := a.loadClips(cfg)
	if err != nil {
		return err
	}
	if truths == nil && world.CondDim() != cfg.CondDim {
		return fmt.Errorf("world %s has %d conditions, the model %d", a.world, world.CondDim(), cfg.CondDim)
	}
	if a.context < 1 || a.context >= a.window || a.frames <= a.context {
		return fmt.Errorf("-context = %d out of range: must be in [1, -window = %d) and below -frames = %d", a.context, a.window, a.frames)
	}
	if a.steps < 1 || a.steps%(a.window-a.context) != 0 {
		return fmt.Errorf("-steps = %d out of range: must be a positive multiple of -window − -context = %d (sampler steps per frame; "+
			"each evaluation advances the window's %d frames together)", a.steps, a.window-a.context, a.window-a.context)
	}
	if truths == nil {
		for k := range a.clips {
			seed := (a.seed | 1) + 2*uint64(k) // odd seeds: validation-style clips
			c, err := data.RenderClip(world, seed, a.frames, cfg.Height, cfg.Width)
			if err != nil {
				return err
			}
			truths, names = append(truths, c), append(names, fmt.Sprintf("%s seed %d", a.world, seed))
		}
	}
	B := len(truths)
	ds, err := data.NewClipDataset(truths, a.frames, a.frames, &stats)
	if err != nil {
		return err
	}
	idx := make([]int, B)
	for k := range idx {
		idx[k] = k
	}
	gt, cond, err := eqflib.LoadBatch(ds, idx)
	if err != nil {
		return err
	}
	C, H, R := a.context, a.window-a.context, a.frames-a.context
	ctx, err := gt.SliceFrames(0, C)
	if err != nil {
		return err
	}
	d := cfg.CondDim
	var timeline []float64 // none for a model without actions (shapes, latents)
	if d > 0 {
		if timeline, err = eqflib.ExtendConditions(cond, B, a.frames, C+R+H-1, d); err != nil { // stride 1
			return err
		}
	}
	var field eqflib.Field = m
	if a.guidance > 0 {
		if field, err = eqflib.Guide(m, a.guidance); err != nil {
			return flagErr("guidance", err)
		}
	}
	res, err := eqflib.Roll(field, ctx, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: C, Horizon: H, Stride: 1, Depth: a.steps},
		Sampler: sampler, Frames: R, Conditions: timeline, CondDim: d, Seed: a.seed})
	if err != nil {
		return err
	}
	n, hw := cfg.Channels*cfg.Height*cfg.Width, cfg.Height*cfg.Width
	outs := make([]*data.Clip, B) // each clip's context and generated frames, in pixels
	for k := range outs {
		gen := append(append([]float64(nil), ctx.Data[k*C*n:(k+1)*C*n]...), res.Frames.Data[k*R*n:(k+1)*R*n]...)
		outs[k] = &data.Clip{Frames: a.frames, Channels: cfg.Channels, Height: cfg.Height, Width: cfg.Width,
			Pixels: stats.Denormalise(gen, hw), CondDim: cfg.CondDim, Cond: truths[k].Cond}
	}
	out, truth := outs[0], truths[0]
	if err := os.MkdirAll(a.out, 0o755); err != nil {
		return err
	}
	over := fmt.Sprintf("a %s clip", a.world)
	switch {
	case B > 1:
		over = fmt.Sprintf("%d clips (%s … %s)", B, names[0], names[B-1])
	case a.clip != "":
		over = "the clip " + a.clip
	}
	wrote := []string{"rollout.png", "truth.png", "rollout.gif"}
	for _, save := range []func() error{
		func() error { return data.SaveStrip(filepath.Join(a.out, "rollout.png"), out, 4) },
		func() error { return data.SaveStrip(filepath.Join(a.out, "truth.png"), truth, 4) },
		func() error { return data.SaveGIF(filepath.Join(a.out, "rollout.gif"), out, 8, 25) },
	} {
		if err := save(); err != nil {
			return err
		}
	}
	// rollout.html: the first clips, each beside its rollout
	shown := 0
	if cfg.Channels == 1 || cfg.Channels == 3 { // what plots draws (a latent's four channels are not pixels)
		shape, videos := [5]int{1, a.frames, cfg.Channels, cfg.Height, cfg.Width}, []plots.Video(nil)
		for shown = 0; shown < min(B, maxPlayerClips); shown++ {
			videos = append(videos, plots.Video{Name: names[shown], Frames: &eqflib.Window{Shape: shape, Data: truths[shown].Pixels}},
				plots.Video{Name: "rollout", Frames: &eqflib.Window{Shape: shape, Data: outs[shown].Pixels}})
		}
		title := fmt.Sprintf("%s over %s (%d frames, %d given)", path, over, a.frames, a.context)
		if B > 1 {
			title = fmt.Sprintf("%s over %s, %d shown (%d frames, %d given)", path, over, shown, a.frames, a.context)
		}
		if err := plots.Player(filepath.Join(a.out, "rollout.html"), title, videos, plots.VideoOptions{}); err != nil {
			return err
		}
	}
	written := fmt.Sprintf("%s/{%s}", a.out, strings.Join(wrote, ","))
	switch {
	case B > 1 && shown > 0:
		written += fmt.Sprintf(" (the first clip), %s (the first %d)", filepath.Join(a.out, "rollout.html"), shown)
	case B > 1:
		written += " (the first clip)"
	case shown > 0:
		written = fmt.Sprintf("%s/{%s,rollout.html}", a.out, strings.Join(wrote, ","))
	}
	psnr, peak, err := clipsPSNR(outs, truths, C)
	if err != nil {
		return err
	}
	if B > 1 {
		if err := savePSNR(filepath.Join(a.out, "psnr.csv"), names, psnr, C); err != nil {
			return err
		}
		written += fmt.Sprintf(" and %s (every clip)", filepath.Join(a.out, "psnr.csv"))
	}
	fmt.Printf("sampled %d frames (%d given, windows of %d) of %s from %s with %s, %d steps per frame (%d network evaluations); wrote %s\n",
		a.frames, a.context, a.window, over, path, sampler, a.steps, res.NFE, written)
	units := ""
	if peak != 1 {
		units = fmt.Sprintf(", peak-to-peak %.3g: the clips' range", peak)
	}
	if B == 1 {
		p := psnr[0]
		fmt.Printf("PSNR against the clip's frames (one sample of a stochastic model%s): %.1f dB on the first generated frame, %.1f on the last, mean %.1f\n",
			units, p[0], p[len(p)-1], stat.Mean(p, nil))
		return nil
	}
	first, last, mean := make([]float64, B), make([]float64, B), make([]float64, B)
	for k, p := range psnr {
		first[k], last[k], mean[k] = p[0], p[len(p)-1], stat.Mean(p, nil)
	}
	say := func(v []float64) string {
		m, lo, hi := paper.MeanInterval(v)
		return fmt.Sprintf("%.1f [%.1f, %.1f]", m, lo, hi)
	}
	fmt.Printf("PSNR against the clips' frames (dB, mean over %d clips [95 %% interval over clips], one sample each%s): %s on the first generated frame, %s on the last, %s over all\n",
		B, units, say(first), say(last), say(mean))
	return nil
}

// maxPlayerClips is how many clips rollout.html shows beside their rollouts.
const maxPlayerClips = 4

// clipsPSNR is the PSNR (dB) of each generated frame of each gen[k] (from frame `from` on) against
// truth[k]'s, in the clips' units: peak-to-peak 1 for pixels in [0, 1], else the clips' own range
// (latents).
func clipsPSNR(gen, truth []*data.Clip, from int) (psnr [][]float64, peak float64, err error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range truth {
		lo, hi = min(lo, slices.Min(c.Pixels)), max(hi, slices.Max(c.Pixels))
	}
	if peak = 1.0; (lo < 0 || hi > 1) && hi > lo {
		peak = hi - lo
	}
	psnr = make([][]float64, len(truth))
	for k, c := range truth {
		shape, n := [5]int{1, c.Frames - from, c.Channels, c.Height, c.Width}, c.Channels*c.Height*c.Width
		mse, err := eqflib.FrameMSE(&eqflib.Window{Shape: shape, Data: gen[k].Pixels[from*n:]}, &eqflib.Window{Shape: shape, Data: c.Pixels[from*n:]})
		if err != nil {
			return nil, 0, err
		}
		if psnr[k], err = eqflib.PSNR(mse, peak); err != nil {
			return nil, 0, err
		}
	}
	return psnr, peak, nil
}

// savePSNR writes each clip's PSNR per generated frame as CSV (clip, frame, psnr_db), frames
// numbered in the clip (the first generated is frame `from`), atomically.
func savePSNR(path string, names []string, psnr [][]float64, from int) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write([]string{"clip", "frame", "psnr_db"})
	for k, p := range psnr {
		for t, v := range p {
			w.Write([]string{names[k], strconv.Itoa(from + t), strconv.FormatFloat(v, 'f', 4, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return data.WriteFileAtomic(path, []byte(b.String()))
}

// trainedDefaults sets what the -ckpt's train.json says and the command line does not give: the
// window it was trained with and its world; a run trained on -data keeps its record
// (a.trainedOn), whose validation clips loadClips reads.
func (a *sampleArgs) trainedDefaults(dir string) error {
	on, err := zoo.ReadTrainedOn(dir)
	if err != nil || on == nil {
		return flagErr("ckpt", err)
	}
	a.trainedOn = on
	if !a.set["window"] {
		a.window = on.Frames
	}
	if on.World != "" && a.clip == "" && !a.set["world"] {
		a.world = on.World
	}
	return nil // a run on data: loadClips reads its validation clips
}

// loadClips loads the clips to roll out over, each cut to -frames, and their names: -clip's
// clip, or the first -clips of a folder of clips; for a -ckpt trained with -data, its first
// -clips validation clips (read once, only those of its held-out ones); nil for clips of -world.
// Each clip's first -context frames are the context and its actions the rollout's; with -frames
// not given, a clip shorter than its default sets it.
func (a *sampleArgs) loadClips(cfg eqflib.DiTConfig) ([]*data.Clip, []string, error) {
	var (
		clips []*data.Clip
		names []string
		root  string // where the names lie (data.ClipPath)
		err   error
	)
	what := "-clip "                                           // names a clip in errors
	record := filepath.Join(runDir(a.ckpt), zoo.TrainedOnFile) // the -ckpt run's, for errors
	switch on := a.trainedOn; {
	case a.clip == "" && !a.set["world"] && on != nil && on.Data != "": // a -data run: its validation clips
		root, what = on.ValPath(), "the -ckpt run's validation clip "
		if existingClip("ckpt", root) != nil {
			return nil, nil, fmt.Errorf("-ckpt: %s says the run was trained on %s, but %s is not there (moved?): give -clip PATH", record, on, root)
		}
		if clips, names, err = on.ValClips(a.clips); err != nil {
			return nil, nil, fmt.Errorf("-ckpt: %s says the run was trained on %s: %w (give -clip PATH)", record, on, err)
		}
		if len(clips) == 1 {
			a.clip = data.ClipPath(root, names[0]) // what was sampled, for the summary line
		}
	case a.clip != "":
		if clips, names, err = data.LoadClips(a.clip); err != nil {
			return nil, nil, flagErr("clip", err)
		}
		if len(clips) > 1 && !a.set["clips"] {
			return nil, nil, fmt.Errorf("-clip: %s holds %d clips: name one of them (-clip %s), or roll out over several (-clips N)",
				a.clip, len(clips), shellWord(data.ClipPath(a.clip, names[0])))
		}
		root = a.clip
	default:
		return nil, nil, nil
	}
	if a.clips > len(clips) {
		return nil, nil, fmt.Errorf("-clips = %d out of range: %s holds %d clip(s), at most %d", a.clips, root, len(clips), len(clips))
	}
	clips, names = clips[:a.clips], names[:a.clips]
	for k, c := range clips {
		path := data.ClipPath(root, names[k])
		if len(clips) == 1 {
			path = a.clip
		}
		if c.Channels != cfg.Channels || c.Height != cfg.Height || c.Width != cfg.Width || c.CondDim != cfg.CondDim {
			return nil, nil, fmt.Errorf("%s%s is %dx%d with %d channels and %d actions per frame: the model takes %dx%d with %d channels and %d actions",
				what, path, c.Width, c.Height, c.Channels, c.CondDim, cfg.Width, cfg.Height, cfg.Channels, cfg.CondDim)
		}
		if !a.set["frames"] {
			a.frames = min(a.frames, c.Frames)
		}
		if a.frames > c.Frames {
			return nil, nil, fmt.Errorf("-frames = %d out of range: %s%s has %d frames, whose actions the rollout follows (at most %d)", a.frames, what, path, c.Frames, c.Frames)
		}
	}
	for k, c := range clips {
		clips[k] = c.Head(a.frames)
	}
	return clips, names, nil
}

// loadZooModel loads -model of the zoo run -recipe, -train-seed, and sets what the zoo knows and
// the command line does not give: the recipe's -window and -context, its evaluation's steps per
// frame and the sampler the model's card reports first (zoo.DefaultSampler: closed-loop NAG
// with h_ω, FM Euler, DDIM). The world is the recipe's maze, the one the model was trained on.
func (a *sampleArgs) loadZooModel(sampler eqflib.FrameSampler) (*eqflib.DiT, data.Stats, data.World, eqflib.FrameSampler, error) {
	z := a.run
	zm, err := z.Load(a.model)
	if err != nil {
		return nil, data.Stats{}, nil, sampler, flagErr("model", err)
	}
	if !a.set["window"] {
		a.window = z.Recipe.Frames
	}
	if !a.set["context"] {
		a.context = z.Recipe.Context
	}
	if !a.set["steps"] {
		a.steps = z.Recipe.Eval.WithDefaults().Depth
	}
	if !a.set["sampler"] {
		sampler, _ = zoo.DefaultSampler(zm)
	} else if sampler.NeedsReadout() && !zm.DiT.HasReadout() {
		return nil, data.Stats{}, nil, sampler, fmt.Errorf("-sampler = %s: closed-loop sampling needs h_ω, which the zoo's %s lacks (%s have it)",
			a.sampler, a.model, strings.Join(readoutModels(), ", "))
	}
	return zm.DiT, zm.Stats, data.NewMaze(z.Recipe.World), sampler, nil
}

// readoutModels are the zoo's backbones trained with h_ω.
func readoutModels() []string {
	var names []string
	for _, s := range zoo.Specs {
		if s.Readout {
			names = append(names, s.Name)
		}
	}
	return names
}
