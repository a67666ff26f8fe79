package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/eqflib/onnxfeat"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/plots"
)

// eqf compare: action-conditioned rolling rollouts of an FM and an EqF checkpoint over the same
// ground-truth clips (same context, same actions), with FM Euler, EqF GD (open loop), EqF NAG
// (closed loop) and budget-adaptive NAG, scored by FVD in the maze-I3D feature space (the
// action net; trained and stored first if missing), FVD on pooled pixels, PSNR and flicker.

type compareArgs struct {
	fm, eqf, features, out, warp   string
	clips, frames, context         int
	horizon, stride, depth, subLen int
	momentum                       float64
	seed                           uint64
	featureSteps, timeChunk        int
	onnx                           onnxfeat.Options
	onnxPath                       string
}

func runCompare(args []string) error {
	a := compareArgs{fm: "out/models/fm", eqf: "out/models/eqf", features: "out/models/action-net/action-net.eqf", out: "out/compare", warp: "c:0.8:0.001",
		clips: 8, frames: 100, context: 2, horizon: 2, stride: 1, depth: 10, subLen: 10, momentum: 0.2, seed: 7, featureSteps: 800,
		timeChunk: 25}
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.StringVar(&a.fm, "fm", a.fm, "FM checkpoint (file or directory)")
	fs.StringVar(&a.eqf, "eqf", a.eqf, "EqF checkpoint with h_ω (file or directory)")
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := a.check(); err != nil {
		return err
	}
	return compare(&a)
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
	for _, f := range []struct{ flag, path string }{{"fm", a.fm}, {"eqf", a.eqf}} {
		if err := existing(f.flag, f.path); err != nil {
			return err
		}
	}
	if a.onnxPath != "" {
		if err := existing("onnx", a.onnxPath); err != nil {
			return err
		}
	}
	if err := outDir("features", filepath.Dir(a.features)); err != nil {
		return err
	}
	return outDir("out", a.out)
}

// loadEMA loads a checkpoint (a file, or the newest in a directory) and returns its EMA weights,
// with h_ω attached (at the width the checkpoint stored) when readout is set.
func loadEMA(path string, readout bool) (*eqflib.DiT, string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if p := eqflib.LatestCheckpoint(path); p != "" {
			path = p
		} else {
			return nil, "", fmt.Errorf("no checkpoint in %s", path)
		}
	}
	live, err := eqflib.LoadDiT(path)
	if err != nil {
		return nil, "", err
	}
	m, err := live.EMA()
	if err != nil {
		return nil, "", err
	}
	if readout {
		if err := m.AttachReadout(0); err != nil {
			return nil, "", fmt.Errorf("%s: closed-loop sampling needs h_ω: %w", path, err)
		}
	}
	return m, path, nil
}

// actionNet loads the feature network, or trains and stores it.
func actionNet(path string, h, w, steps int, seed uint64) (*eqflib.ActionNet, error) {
	if n, err := eqflib.LoadActionNet(path); err == nil {
		return n, nil
	} else if _, serr := os.Stat(path); serr == nil {
		return nil, err // present but unreadable: never overwrite silently
	}
	train, val, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), 8, h, w, 512, 64, seed)
	if err != nil {
		return nil, err
	}
	n, err := eqflib.NewActionNet(3, h, w, 3, eqflib.TrainPresets["cpu"].ActionNet, seed)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := n.Train(train, steps); err != nil {
		return nil, err
	}
	acc, err := n.Accuracy(val, 64)
	if err != nil {
		return nil, err
	}
	fmt.Printf("maze-I3D action net: %d steps in %v, validation action accuracy %.3f\n", steps, time.Since(start).Round(time.Second), acc)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return n, n.Save(path)
}

type methodResult struct {
	Method      string    `json:"method"`
	FVDMaze     float64   `json:"fvd_maze_i3d"`
	FVDPixels   float64   `json:"fvd_pixels"`
	FVDONNX     *float64  `json:"fvd_onnx,omitempty"`
	FVDOverTime []float64 `json:"fvd_maze_i3d_over_time"`
	NFE         int       `json:"nfe"`
	NFEPerFrame float64   `json:"nfe_per_frame"`
	PSNR        float64   `json:"psnr_db"`
	Flicker     float64   `json:"flicker"`
	Seconds     float64   `json:"seconds"`
}

func compare(a *compareArgs) error {
	fm, fmPath, err := loadEMA(a.fm, false)
	if err != nil {
		return err
	}
	eq, eqPath, err := loadEMA(a.eqf, true)
	if err != nil {
		return err
	}
	if fm.Config != eq.Config {
		return fmt.Errorf("the FM (%s) and EqF (%s) models have different configurations", fmPath, eqPath)
	}
	cfg := eq.Config
	stats, err := data.LoadStats(filepath.Join(filepath.Dir(eqPath), "stats.json"))
	if err != nil {
		return err
	}
	feat, err := actionNet(a.features, cfg.Height, cfg.Width, a.featureSteps, a.seed)
	if err != nil {
		return err
	}
	world, err := data.WorldByName("maze")
	if err != nil {
		return err
	}
	C, R := a.context, a.frames
	clips := make([]*data.Clip, a.clips)
	for i := range clips {
		if clips[i], err = data.RenderClip(world, a.seed*1000+uint64(2*i+1), C+R, cfg.Height, cfg.Width); err != nil {
			return err
		}
	}
	ds, err := data.NewClipDataset(clips, C+R, C+R, &stats)
	if err != nil {
		return err
	}
	idx := make([]int, a.clips)
	for i := range idx {
		idx[i] = i
	}
	gt, cond, err := eqflib.LoadBatch(ds, idx)
	if err != nil {
		return err
	}
	B := gt.Batch()
	ctx := eqflib.MustNewWindow(B, max(C, 1), cfg.Channels, cfg.Height, cfg.Width)
	truth := eqflib.MustNewWindow(B, R, cfg.Channels, cfg.Height, cfg.Width)
	fsz := gt.FrameSize()
	for b := 0; b < B; b++ {
		copy(ctx.Data[b*C*fsz:(b+1)*C*fsz], gt.Data[b*(C+R)*fsz:(b*(C+R)+C)*fsz])
		copy(truth.Data[b*R*fsz:(b+1)*R*fsz], gt.Data[(b*(C+R)+C)*fsz:(b+1)*(C+R)*fsz])
	}
	// Timeline conditions [B, C + R + H − S, d]: the clip's actions, the last one repeated.
	L := C + R + a.horizon - a.stride
	d := cfg.CondDim
	tl := make([]float64, 0, B*L*d)
	for b := 0; b < B; b++ {
		for t := 0; t < L; t++ {
			src := min(t, C+R-1)
			tl = append(tl, cond[(b*(C+R)+src)*d:(b*(C+R)+src+1)*d]...)
		}
	}
	warp, err := eqflib.ParseWarp(a.warp)
	if err != nil {
		return err
	}
	geom := eqflib.RollConfig{Context: C, Horizon: a.horizon, Stride: a.stride, Depth: a.depth}
	methods := []struct {
		name string
		f    eqflib.Field
		fs   eqflib.FrameSampler
	}{
		{"FM Euler", fm, eqflib.FrameSampler{Sampler: eqflib.Euler}},
		{"EqF GD (open loop, " + a.warp + ")", eq, eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: warp}}},
		{fmt.Sprintf("EqF NAG μ=%.2g (closed loop, %s)", a.momentum, a.warp), eq, eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, ClosedLoop: true, Momentum: a.momentum}}},
		{fmt.Sprintf("EqF budget-adaptive NAG μ=%.2g", a.momentum), eq, eqflib.FrameSampler{Sampler: eqflib.Budget, Options: eqflib.Options{Momentum: a.momentum}}},
	}
	var onnxFeat *onnxfeat.Extractor
	if a.onnxPath != "" {
		if onnxFeat, err = onnxfeat.Load(a.onnxPath, a.onnx); err != nil {
			return err
		}
	}
	pix := eqflib.PixelFeatures{Size: 4}
	truthClips, err := truth.Subclips(a.subLen)
	if err != nil {
		return fmt.Errorf("-clip-frames: %w", err)
	}
	if a.timeChunk < 5 || a.timeChunk > R {
		return fmt.Errorf("-time-chunk = %d: must be in [5, %d] (frames)", a.timeChunk, R)
	}
	var results []methodResult
	videos := []plots.Video{{Name: "ground truth", Frames: truth}}
	for _, m := range methods {
		start := time.Now()
		res, err := eqflib.Roll(m.f, ctx, eqflib.RollOptions{RollConfig: geom, Sampler: m.fs, Frames: R, Conditions: tl, CondDim: d, Seed: a.seed})
		if err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		secs := time.Since(start).Seconds()
		videos = append(videos, plots.Video{Name: strings.SplitN(m.name, " (", 2)[0], Frames: res.Frames})
		gen, err := res.Frames.Subclips(a.subLen)
		if err != nil {
			return fmt.Errorf("-clip-frames: %w", err)
		}
		fa, err := eqflib.ComputeFVD(feat, gen, truthClips)
		if err != nil {
			return err
		}
		fp, err := eqflib.ComputeFVD(pix, gen, truthClips)
		if err != nil {
			return err
		}
		mse, err := eqflib.FrameMSE(res.Frames, truth)
		if err != nil {
			return err
		}
		var mean float64
		for _, v := range mse {
			mean += v / float64(len(mse))
		}
		psnr, err := eqflib.PSNR([]float64{mean}, 4) // standardised data: ±2 std as the range
		if err != nil {
			return err
		}
		fl, err := eqflib.Flicker(res.Frames)
		if err != nil {
			return err
		}
		r := methodResult{Method: m.name, FVDMaze: fa.Value, FVDPixels: fp.Value, NFE: res.NFE, NFEPerFrame: res.NFEPerFrame(), PSNR: psnr[0], Flicker: fl, Seconds: secs}
		if onnxFeat != nil {
			fo, err := eqflib.ComputeFVD(onnxFeat, gen, truthClips)
			if err != nil {
				return err
			}
			r.FVDONNX = &fo.Value
			fmt.Printf("%-44s %s\n", "", fo)
		}
		// FVD over time (Fig. 3 right): each chunk of timeChunk frames, cut into 5-frame clips.
		for s := 0; s+a.timeChunk <= R; s += a.timeChunk {
			g, err := res.Frames.SliceFrames(s, a.timeChunk)
			if err == nil {
				g, err = g.Subclips(5)
			}
			if err != nil {
				return fmt.Errorf("-time-chunk: %w", err)
			}
			t, err := truth.SliceFrames(s, a.timeChunk)
			if err == nil {
				t, err = t.Subclips(5)
			}
			if err != nil {
				return fmt.Errorf("-time-chunk: %w", err)
			}
			f, err := eqflib.ComputeFVD(feat, g, t)
			if err != nil {
				return err
			}
			r.FVDOverTime = append(r.FVDOverTime, f.Value)
		}
		fmt.Printf("%-44s FVD (maze-I3D) %8.2f  FVD (pixels-4x4) %8.2f  NFE %5d (%.1f/frame)  PSNR %5.2f dB  flicker %.3f  (%.0fs)\n",
			r.Method, r.FVDMaze, r.FVDPixels, r.NFE, r.NFEPerFrame, r.PSNR, r.Flicker, secs)
		fmt.Printf("%-44s FVD (maze-I3D) over %d-frame chunks: %.1f\n", "", a.timeChunk, r.FVDOverTime)
		results = append(results, r)
	}
	if err := os.MkdirAll(a.out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(map[string]any{"fm": fmPath, "eqf": eqPath, "features": a.features, "geometry": geom,
		"clips": a.clips, "frames": R, "fvd_clip_frames": a.subLen, "fvd_time_chunk": a.timeChunk, "onnx": a.onnxPath,
		"onnx_features": a.onnx.Name, "results": results}, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(a.out, "results.json"), js); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# %d-frame rollouts, %d clips, C=%d H=%d S=%d D=%d\n\nFVD over %d-frame clips (%d per side). ", R, B, C, a.horizon, a.stride, a.depth, a.subLen, truthClips.Batch())
	md.WriteString("maze-I3D = the project's maze action-recognition features, not I3D.\n\n")
	md.WriteString("| method | FVD (maze-I3D features) | FVD (pixels-4x4) | NFE | NFE/frame | PSNR (dB) | flicker |\n|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&md, "| %s | %.2f | %.2f | %d | %.1f | %.2f | %.3f |\n", r.Method, r.FVDMaze, r.FVDPixels, r.NFE, r.NFEPerFrame, r.PSNR, r.Flicker)
	}
	if onnxFeat != nil {
		fmt.Fprintf(&md, "\n| method | FVD (%s features) |\n|---|---|\n", a.onnx.Name)
		for _, r := range results {
			fmt.Fprintf(&md, "| %s | %.2f |\n", r.Method, *r.FVDONNX)
		}
	}
	fmt.Fprintf(&md, "\nFVD (maze-I3D features) over consecutive %d-frame chunks, 5-frame clips (%d per side):\n\n| method |", a.timeChunk, B*(a.timeChunk/5))
	for s := 0; s+a.timeChunk <= R; s += a.timeChunk {
		fmt.Fprintf(&md, " frames %d–%d |", s+1, s+a.timeChunk)
	}
	md.WriteString("\n|---|" + strings.Repeat("---|", len(results[0].FVDOverTime)) + "\n")
	for _, r := range results {
		fmt.Fprintf(&md, "| %s |", r.Method)
		for _, v := range r.FVDOverTime {
			fmt.Fprintf(&md, " %.1f |", v)
		}
		md.WriteString("\n")
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(a.out, "results.md"), []byte(md.String())); err != nil {
		return err
	}
	return compareFigures(a, results, videos, stats)
}

// compareFigures writes FVD over time (PNG and interactive HTML) and the first clip of every
// method beside the ground truth (strip PNG and HTML player): same context, same actions.
func compareFigures(a *compareArgs, results []methodResult, videos []plots.Video, stats data.Stats) error {
	var curves []plots.Curve
	for _, r := range results {
		curves = append(curves, plots.Curve{Name: r.Method, Values: r.FVDOverTime})
	}
	fig, err := plots.RolloutFigure(nil, curves, a.timeChunk, "maze-I3D")
	if err != nil {
		return err
	}
	fig.Title = fmt.Sprintf("FVD over time, %d-frame rollouts (%d clips)", a.frames, a.clips)
	vo := plots.VideoOptions{Mean: stats.Mean, Std: stats.Std, Scale: 3}
	written := []string{"fvd_over_time.png", "fvd_over_time.html", "rollouts.png", "rollouts.html"}
	for _, step := range []func() error{
		func() error { return fig.Save(filepath.Join(a.out, written[0])) },
		func() error { return fig.Save(filepath.Join(a.out, written[1])) },
		func() error { return plots.Strip(filepath.Join(a.out, written[2]), videos, vo) },
		func() error {
			return plots.Player(filepath.Join(a.out, written[3]), "Rollouts on the same actions (clip 0)", videos, vo)
		},
	} {
		if err := step(); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %s/{results.json,results.md,%s}\n", a.out, strings.Join(written, ","))
	return nil
}
