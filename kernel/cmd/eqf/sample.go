package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

type sampleArgs struct {
	ckpt, world, sampler, warp, out string
	frames, context, window, steps  int
	momentum                        float64
	closed                          bool
	seed                            uint64
}

var defaultSample = sampleArgs{ckpt: "out/train", world: "maze", sampler: "nag", warp: "c", out: "out/sample",
	frames: 16, context: 2, window: 4, steps: 30, momentum: 0.3, closed: true, seed: 7}

func parseSampleArgs(name string, args []string, d sampleArgs) (*sampleArgs, error) {
	a := d
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&a.ckpt, "ckpt", a.ckpt, "checkpoint file, or a directory (its newest checkpoint)")
	fs.StringVar(&a.world, "world", a.world, "world the actions and context frames come from")
	fs.StringVar(&a.sampler, "sampler", a.sampler, "euler, gd, nag, lgd, budget, earlystop or ddim")
	fs.StringVar(&a.warp, "warp", a.warp, "η warp: identity, sd3[:r], c[:α[:σ_end]], logsnr[:λmin:λmax]")
	fs.StringVar(&a.out, "out", a.out, "output directory")
	fs.IntVar(&a.frames, "frames", a.frames, "rollout length in frames")
	fs.IntVar(&a.context, "context", a.context, "context frames kept in each window (the first come from the data)")
	fs.IntVar(&a.window, "window", a.window, "frames per window (the -frames the model was trained with)")
	fs.IntVar(&a.steps, "steps", a.steps, "sampler steps per window")
	fs.Float64Var(&a.momentum, "momentum", a.momentum, "NAG momentum μ")
	fs.BoolVar(&a.closed, "closed", a.closed, "closed loop: step sizes from the readout σ̂ (needs h_ω)")
	fs.Uint64Var(&a.seed, "seed", a.seed, "seed of the ground-truth clip and the noise")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return &a, nil
}

func runSample(args []string) error {
	a, err := parseSampleArgs("sample", args, defaultSample)
	if err != nil {
		return err
	}
	return sample(a)
}

// frozenField holds some frames fixed: their velocity (and σ̂) is zero, so every sampler leaves
// them where they are. The demo's rollout uses it for context frames.
type frozenField struct {
	f      eqflib.Field
	frozen []bool // per frame
}

func (z *frozenField) Info() eqflib.FieldInfo { return z.f.Info() }
func (z *frozenField) Eval(x *eqflib.Window, level []float64, o eqflib.EvalOptions) (*eqflib.Output, error) {
	out, err := z.f.Eval(x, level, o)
	if err != nil {
		return nil, err
	}
	for fr, fz := range z.frozen {
		if fz {
			clear(out.V.Frame(fr))
			if out.SigmaHat != nil {
				out.SigmaHat[fr] = 0
			}
		}
	}
	return out, nil
}

// sample rolls a trained model out over a ground-truth clip's actions: each window keeps the
// last `context` frames fixed and samples the rest from noise; writes rollout.png, truth.png and
// rollout.gif.
func sample(a *sampleArgs) error {
	path := a.ckpt
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if path = eqflib.LatestCheckpoint(a.ckpt); path == "" {
			return fmt.Errorf("no checkpoint in %s", a.ckpt)
		}
	}
	live, err := eqflib.LoadDiT(path)
	if err != nil {
		return err
	}
	m, err := live.EMA()
	if err != nil {
		return err
	}
	if a.closed {
		if err := m.AttachReadout(eqflib.ParamReadoutProj); err != nil {
			return fmt.Errorf("closed-loop sampling needs h_ω in the checkpoint: %w", err)
		}
	}
	stats, err := data.LoadStats(filepath.Join(filepath.Dir(path), "stats.json"))
	if err != nil {
		return err
	}
	world, err := data.WorldByName(a.world)
	if err != nil {
		return err
	}
	cfg := m.Config
	if world.CondDim() != cfg.CondDim {
		return fmt.Errorf("world %s has %d conditions, the model %d", a.world, world.CondDim(), cfg.CondDim)
	}
	window := a.window
	if a.context < 1 || a.context >= window || a.frames <= a.context {
		return fmt.Errorf("-context = %d out of range: must be in [1, %d) and below -frames = %d", a.context, window, a.frames)
	}
	truth, err := data.RenderClip(world, a.seed|1, a.frames, cfg.Height, cfg.Width) // an odd seed: a validation-style clip
	if err != nil {
		return err
	}
	s, err := eqflib.SamplerByName(a.sampler)
	if err != nil {
		return err
	}
	w, err := eqflib.ParseWarp(a.warp)
	if err != nil {
		return err
	}
	n := cfg.Channels * cfg.Height * cfg.Width
	hw := cfg.Height * cfg.Width
	norm := func(px []float64) []float64 {
		out := make([]float64, len(px))
		for i, v := range px {
			c := (i / hw) % cfg.Channels
			out[i] = (v - stats.Mean[c]) / stats.Std[c]
		}
		return out
	}
	gen := norm(truth.Pixels[:a.context*n]) // frames so far, normalised
	rng := eqflib.NewRNG(a.seed)
	nfe := 0
	for len(gen)/n < a.frames {
		have := len(gen) / n
		x, _ := eqflib.Randn(rng, 1, window, cfg.Channels, cfg.Height, cfg.Width)
		copy(x.Data, gen[(have-a.context)*n:])
		cond := make([]float64, window*cfg.CondDim)
		for t := 0; t < window; t++ {
			src := min(have-a.context+t, a.frames-1)
			copy(cond[t*cfg.CondDim:(t+1)*cfg.CondDim], truth.Cond[src*cfg.CondDim:(src+1)*cfg.CondDim])
		}
		frozen := make([]bool, window)
		for t := 0; t < a.context; t++ {
			frozen[t] = true
		}
		res, err := s(&frozenField{f: m.WithConditions(cond), frozen: frozen}, x,
			eqflib.Options{Steps: a.steps, Warp: w, ClosedLoop: a.closed, Momentum: a.momentum, Cleanup: 8, SigmaThresh: 0.2})
		if err != nil {
			return err
		}
		nfe += res.NFE
		gen = append(gen, res.X.Data[a.context*n:]...)
	}
	gen = gen[:a.frames*n]
	out := &data.Clip{Frames: a.frames, Channels: cfg.Channels, Height: cfg.Height, Width: cfg.Width,
		Pixels: stats.Denormalise(gen, hw), CondDim: cfg.CondDim, Cond: truth.Cond}
	if err := os.MkdirAll(a.out, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		fn   func() error
	}{
		{"rollout.png", func() error { return data.SaveStrip(filepath.Join(a.out, "rollout.png"), out, 4) }},
		{"truth.png", func() error { return data.SaveStrip(filepath.Join(a.out, "truth.png"), truth, 4) }},
		{"rollout.gif", func() error { return data.SaveGIF(filepath.Join(a.out, "rollout.gif"), out, 8, 25) }},
	} {
		if err := f.fn(); err != nil {
			return err
		}
	}
	fmt.Printf("sampled %d frames (%d given) with %s, %d steps per window (%d network evaluations); wrote %s/{rollout.png,truth.png,rollout.gif}\n",
		a.frames, a.context, a.sampler, a.steps, nfe, a.out)
	return nil
}
