package paper

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// CompareOptions configure Compare: `eqf compare`'s flags.
type CompareOptions struct {
	FM, EqF  string // checkpoints (a file, or the newest in a folder); EqF must carry h_ω
	Features string // the maze-I3D action net: loaded, or trained (FeatureSteps) and written here if missing
	Warp     string // EqF's η warp (ParseWarp)
	Clips    int    // ground-truth clips: rollouts per method
	Frames   int    // frames generated per rollout
	eqflib.RollConfig
	ClipFrames   int     // FVD over non-overlapping clips of this many frames
	TimeChunk    int     // FVD over time: chunks of this many frames, each cut into 5-frame clips
	Momentum     float64 // NAG's μ
	Seed         uint64  // clips and noise
	FeatureSteps int
	// ONNX, when set, also scores FVD in its features (e.g. an exported I3D).
	ONNX eqflib.FeatureExtractor
	Log  io.Writer
}

// Compare is `eqf compare`: action-conditioned rolling rollouts of an FM and an EqF checkpoint
// over the same ground-truth clips (same context, same actions) with FM Euler, EqF GD (open
// loop), EqF NAG (closed loop) and budget-adaptive NAG, scored by FVD in the maze-I3D features,
// FVD on pooled pixels (and in ONNX features when given), PSNR, flicker and NFE, with FVD over
// time (Fig. 3 right) and the rollouts of the first clip.
func Compare(ctx context.Context, o CompareOptions) (*Result, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, a...)
		}
	}
	fm, fmPath, err := eqflib.LoadEMA(o.FM, false)
	if err != nil {
		return nil, err
	}
	eq, eqPath, err := eqflib.LoadEMA(o.EqF, true)
	if err != nil {
		return nil, err
	}
	if fm.Config != eq.Config {
		return nil, fmt.Errorf("paper: the FM (%s) and EqF (%s) models have different configurations", fmPath, eqPath)
	}
	cfg := eq.Config
	stats, err := data.LoadStats(filepath.Join(filepath.Dir(eqPath), "stats.json"))
	if err != nil {
		return nil, err
	}
	feat, err := actionNet(o.Features, cfg.Height, cfg.Width, o.FeatureSteps, o.Seed, logf)
	if err != nil {
		return nil, err
	}
	warp, err := eqflib.ParseWarp(o.Warp)
	if err != nil {
		return nil, err
	}
	world, err := data.WorldByName("maze")
	if err != nil {
		return nil, err
	}
	C, R, H, S := o.Context, o.Frames, o.Horizon, o.Stride
	if o.TimeChunk < 5 || o.TimeChunk > R {
		return nil, fmt.Errorf("paper: CompareOptions.TimeChunk = %d out of range: must be in [5, Frames = %d]", o.TimeChunk, R)
	}
	clips := make([]*data.Clip, o.Clips)
	for i := range clips {
		if clips[i], err = data.RenderClip(world, o.Seed*1000+uint64(2*i+1), C+R, cfg.Height, cfg.Width); err != nil {
			return nil, err
		}
	}
	ds, err := data.NewClipDataset(clips, C+R, C+R, &stats)
	if err != nil {
		return nil, err
	}
	idx := make([]int, o.Clips)
	for i := range idx {
		idx[i] = i
	}
	gt, cond, err := eqflib.LoadBatch(ds, idx)
	if err != nil {
		return nil, err
	}
	ctxFrames, _ := gt.SliceFrames(0, C)
	if C == 0 {
		ctxFrames, _ = gt.SliceFrames(0, 1) // a template: its batch and frame shape
	}
	truth, _ := gt.SliceFrames(C, R)
	// Timeline conditions [B, C + R + H − S, d]: the clip's actions, the last one repeated.
	B, d := gt.Batch(), cfg.CondDim
	tl, err := eqflib.ExtendConditions(cond, B, C+R, C+R+H-S, d)
	if err != nil {
		return nil, err
	}
	methods := []method{
		{Name: "FM Euler", Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler}, Model: "fm", Color: 1},
		{Name: "EqF GD (open loop, " + o.Warp + ")", Model: "eqf", Color: 3, Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: warp}}},
		{Name: fmt.Sprintf("EqF NAG μ=%.2g (closed loop, %s)", o.Momentum, o.Warp), Model: "eqf", Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, ClosedLoop: true, Momentum: o.Momentum}}},
		{Name: fmt.Sprintf("EqF budget-adaptive NAG μ=%.2g", o.Momentum), Model: "eqf", Color: 4,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Budget, Options: eqflib.Options{Momentum: o.Momentum}}},
	}
	fields := map[string]eqflib.Field{"fm": fm, "eqf": eq}
	truthClips, err := truth.Subclips(o.ClipFrames)
	if err != nil {
		return nil, fmt.Errorf("paper: CompareOptions.ClipFrames: %w", err)
	}
	r := &Result{Name: "compare", Title: fmt.Sprintf("FM against EqF: %d-frame rollouts, %d clips, C=%d H=%d S=%d D=%d", R, B, C, H, S, o.Depth),
		Where: "§3 Fig. 3 (right), §5.2", Figures: map[string]*plots.Figure{}, Files: map[string][]byte{}}
	videos := []plots.Video{{Name: "ground truth", Frames: truth}}
	var curves []plots.Curve
	pix := eqflib.PixelFeatures{Size: 4}
	for _, m := range methods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		res, err := eqflib.Roll(fields[m.Model], ctxFrames, eqflib.RollOptions{RollConfig: o.RollConfig, Sampler: m.Sampler, Frames: R, Conditions: tl, CondDim: d, Seed: o.Seed})
		if err != nil {
			return nil, fmt.Errorf("paper: %s: %w", m.Name, err)
		}
		secs := time.Since(start).Seconds()
		videos = append(videos, plots.Video{Name: shortName(m.Name), Frames: res.Frames})
		gen, err := res.Frames.Subclips(o.ClipFrames)
		if err != nil {
			return nil, err
		}
		fa, err := eqflib.ComputeFVD(feat, gen, truthClips)
		if err != nil {
			return nil, err
		}
		fp, err := eqflib.ComputeFVD(pix, gen, truthClips)
		if err != nil {
			return nil, err
		}
		mse, err := eqflib.FrameMSE(res.Frames, truth)
		if err != nil {
			return nil, err
		}
		psnr, err := eqflib.PSNR([]float64{mean(mse)}, 4) // standardised data: ±2 std as the range
		if err != nil {
			return nil, err
		}
		fl, err := eqflib.Flicker(res.Frames)
		if err != nil {
			return nil, err
		}
		r.Numbers = append(r.Numbers,
			Number{Name: m.Name + ": FVD (maze-I3D)", Ours: fa.Value}, Number{Name: m.Name + ": FVD (pixels-4x4)", Ours: fp.Value},
			Number{Name: m.Name + ": NFE", Ours: float64(res.NFE)}, Number{Name: m.Name + ": NFE per frame", Ours: res.NFEPerFrame()},
			Number{Name: m.Name + ": PSNR (dB)", Ours: psnr[0]}, Number{Name: m.Name + ": flicker", Ours: fl},
			Number{Name: m.Name + ": seconds", Ours: secs})
		if o.ONNX != nil {
			fo, err := eqflib.ComputeFVD(o.ONNX, gen, truthClips)
			if err != nil {
				return nil, err
			}
			r.Numbers = append(r.Numbers, Number{Name: m.Name + ": FVD (" + o.ONNX.Name() + ")", Ours: fo.Value})
		}
		var over []float64
		for s := 0; s+o.TimeChunk <= R; s += o.TimeChunk {
			g, _ := res.Frames.SliceFrames(s, o.TimeChunk)
			t, _ := truth.SliceFrames(s, o.TimeChunk)
			if g, err = g.Subclips(5); err == nil {
				t, err = t.Subclips(5)
			}
			if err != nil {
				return nil, fmt.Errorf("paper: CompareOptions.TimeChunk: %w", err)
			}
			f, err := eqflib.ComputeFVD(feat, g, t)
			if err != nil {
				return nil, err
			}
			over = append(over, f.Value)
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: FVD (maze-I3D), frames %d–%d", m.Name, s+1, s+o.TimeChunk), Ours: f.Value})
		}
		curves = append(curves, plots.Curve{Name: m.Name, Values: over, Color: m.Color})
		logf("%-44s FVD (maze-I3D) %8.2f  FVD (pixels-4x4) %8.2f  NFE %5d (%.1f/frame)  PSNR %5.2f dB  flicker %.3f  (%.0fs)\n",
			m.Name, fa.Value, fp.Value, res.NFE, res.NFEPerFrame(), psnr[0], fl, secs)
		logf("%-44s FVD (maze-I3D) over %d-frame chunks: %.1f\n", "", o.TimeChunk, over)
	}
	fig, err := plots.RolloutFigure(nil, curves, o.TimeChunk, "maze-I3D")
	if err != nil {
		return nil, err
	}
	fig.Title = fmt.Sprintf("FVD over time, %d-frame rollouts (%d clips)", R, B)
	r.Figures["fvd_over_time"] = fig
	vo := plots.VideoOptions{Mean: stats.Mean, Std: stats.Std, Scale: 3}
	if r.Files["rollouts.png"], err = plots.StripPNG(videos, vo); err != nil {
		return nil, err
	}
	if r.Files["rollouts.html"], err = plots.PlayerHTML("Rollouts on the same actions (clip 0)", videos, vo); err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, fmt.Sprintf("FM %s, EqF %s, features %s. FVD over %d-frame clips (%d per side); maze-I3D = the project's maze action-recognition features, not I3D.",
		fmPath, eqPath, o.Features, o.ClipFrames, truthClips.Batch()))
	return r, nil
}

// actionNet loads the feature network, or trains and stores it.
func actionNet(path string, h, w, steps int, seed uint64, logf func(string, ...any)) (*eqflib.ActionNet, error) {
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
	logf("maze-I3D action net: %d steps in %v, validation action accuracy %.3f\n", steps, time.Since(start).Round(time.Second), acc)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return n, n.Save(path)
}
