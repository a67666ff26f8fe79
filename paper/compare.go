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
	"github.com/equilibriumforcing/eqf/zoo"
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
	if o.TimeChunk < 5 || o.TimeChunk > R || o.TimeChunk%5 != 0 {
		return nil, fmt.Errorf("paper: CompareOptions.TimeChunk = %d out of range: must be a multiple of 5 in [5, Frames = %d]", o.TimeChunk, R)
	}
	if cfg.Height != cfg.Width {
		return nil, fmt.Errorf("paper: Compare: the models' frames are %d×%d: the maze renders square frames", cfg.Height, cfg.Width)
	}
	cl, err := zoo.NewClips(world, stats, o.Clips, C, R, cfg.Height, o.Seed)
	if err != nil {
		return nil, err
	}
	truth, B := cl.Truth, cl.Truth.Batch()
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
	for _, m := range methods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		res, err := cl.Roll(fields[m.Model], eqflib.RollOptions{RollConfig: o.RollConfig, Sampler: m.Sampler, Seed: o.Seed})
		if err != nil {
			return nil, fmt.Errorf("paper: %s: %w", m.Name, err)
		}
		secs := time.Since(start).Seconds()
		videos = append(videos, plots.Video{Name: shortName(m.Name), Frames: res.Frames})
		sc, err := cl.Score(feat, res.Frames, zoo.ScoreConfig{FVDClip: o.ClipFrames, Chunk: o.TimeChunk})
		if err != nil {
			return nil, fmt.Errorf("paper: CompareOptions: %w", err)
		}
		gen, _ := res.Frames.Subclips(o.ClipFrames)
		fp, err := eqflib.ComputeFVD(eqflib.PixelFeatures{Size: 4}, gen, truthClips) // beside the action net's features
		if err != nil {
			return nil, err
		}
		r.Numbers = append(r.Numbers,
			Number{Name: m.Name + ": FVD (maze-I3D)", Ours: sc.FVD}, Number{Name: m.Name + ": FVD (pixels-4x4)", Ours: fp.Value},
			Number{Name: m.Name + ": NFE", Ours: float64(res.NFE)}, Number{Name: m.Name + ": NFE per frame", Ours: res.NFEPerFrame()},
			Number{Name: m.Name + ": PSNR (dB)", Ours: sc.PSNR}, Number{Name: m.Name + ": flicker", Ours: sc.Flicker},
			Number{Name: m.Name + ": seconds", Ours: secs})
		if o.ONNX != nil {
			fo, err := eqflib.ComputeFVD(o.ONNX, gen, truthClips)
			if err != nil {
				return nil, err
			}
			r.Numbers = append(r.Numbers, Number{Name: m.Name + ": FVD (" + o.ONNX.Name() + ")", Ours: fo.Value})
		}
		for i, f := range sc.FVDOverTime {
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: FVD (maze-I3D), frames %d–%d", m.Name, i*o.TimeChunk+1, (i+1)*o.TimeChunk), Ours: f})
		}
		curves = append(curves, plots.Curve{Name: m.Name, Values: sc.FVDOverTime, Color: m.Color})
		logf("%-44s FVD (maze-I3D) %8.2f  FVD (pixels-4x4) %8.2f  NFE %5d (%.1f/frame)  PSNR %5.2f dB  flicker %.3f  (%.0fs)\n",
			m.Name, sc.FVD, fp.Value, res.NFE, res.NFEPerFrame(), sc.PSNR, sc.Flicker, secs)
		logf("%-44s FVD (maze-I3D) over %d-frame chunks: %.1f\n", "", o.TimeChunk, sc.FVDOverTime)
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
