package paper

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// CompareOptions configure Compare: `eqf compare`'s flags.
type CompareOptions struct {
	FM, EqF string // checkpoints (a file, or the newest in a folder); EqF must carry h_ω
	// Runs, set instead of FM and EqF, are several training runs of the two: an FM and an EqF of
	// one training seed each (see Compare).
	Runs     []ComparePair
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
	// World is the world whose validation clips are rolled out over (nil: the maze). Truth, when
	// set, are the clips instead (the first Clips of them, their first Context + Frames frames):
	// your own. The maze's action net reads only the maze, so for another world or Truth the
	// Features are not used: FVD is in pooled pixels' features (zoo.Clips.ScoreFeatures; ONNX's
	// too when given) and there is no action agreement.
	World data.World
	Truth []*data.Clip
	Log   io.Writer
	// RunDone, when set and Runs holds several runs, is given each run's own result as soon as it
	// is rolled out (run counts from 1), e.g. to save it: its numbers and rollouts alone, kept
	// when a later run fails or is interrupted. An error from it stops Compare.
	RunDone func(run int, r *Result) error
}

// ComparePair is one training run's FM and EqF checkpoints (files, or folders `eqf train` wrote).
type ComparePair struct{ FM, EqF string }

// Compare is `eqf compare`: action-conditioned rolling rollouts of an FM and an EqF checkpoint
// over the same ground-truth clips (same context, same actions) with FM Euler, EqF GD (open
// loop), EqF NAG (closed loop) and budget-adaptive NAG, scored by FVD in the maze-I3D features,
// FVD on pooled pixels (and in ONNX features when given), PSNR, flicker and NFE, with FVD over
// time (Fig. 3 right) and the rollouts of the first clip.
//
// With several training runs (Runs), each run's pair is rolled out over the same clips, actions
// and noise, and every number is the mean ± standard error over the runs with each run's value
// (Number.PerSeed); each EqF sampler's FVD minus FM Euler's is paired by training run, with its
// 95 % Student-t interval over the runs, as the paper's experiments report over training seeds.
// FVD over time is the mean over the runs; the rollouts shown are the first run's.
func Compare(ctx context.Context, o CompareOptions) (*Result, error) {
	runs := o.Runs
	switch {
	case len(runs) > 0 && (o.FM != "" || o.EqF != ""):
		return nil, fmt.Errorf("paper: CompareOptions: FM and EqF are set beside Runs: give one pair (FM, EqF) or the training runs (Runs)")
	case len(runs) == 0:
		runs = []ComparePair{{o.FM, o.EqF}}
	}
	if len(runs) == 1 {
		c, err := compareRun(ctx, o, runs[0])
		if err != nil {
			return nil, err
		}
		return c.r, nil
	}
	if err := checkRuns(runs); err != nil {
		return nil, err
	}
	parts := make([]*comparedRun, len(runs))
	for i, run := range runs {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "training run %d of %d: FM %s, EqF %s\n", i+1, len(runs), run.FM, run.EqF)
		}
		var err error
		if parts[i], err = compareRun(ctx, o, run); err != nil {
			return nil, fmt.Errorf("paper: training run %d of %d (FM %s, EqF %s): %w", i+1, len(runs), run.FM, run.EqF, err)
		}
		if o.RunDone != nil {
			if err := o.RunDone(i+1, parts[i].r); err != nil {
				return nil, err
			}
		}
	}
	r, err := poolCompare(o, parts)
	if err != nil || o.Log == nil {
		return r, err
	}
	fmt.Fprintf(o.Log, "over the %d training runs (mean ± standard error; differences with their 95 %% interval):\n", len(runs))
	for _, n := range r.Numbers {
		if strings.Contains(n.Name, ": FVD (") && !strings.Contains(n.Name, ", frames ") {
			fmt.Fprintf(o.Log, "  %s  %s  %s\n", n.Name, n.ours(), n.Note)
		}
	}
	return r, nil
}

// comparedRun is one training run's Compare: its result, and what pooling runs needs of it.
type comparedRun struct {
	r              *Result
	fmPath, eqPath string      // the checkpoints read
	methods        []method    // compareMethods
	spaces         []string    // FVD's feature spaces, the headline's first
	fvd            [][]float64 // [method][space]
	overTime       [][]float64 // [method]: FVD over time in the headline space
	clips          int         // ground-truth clips rolled out over
}

// compareRun is Compare of one training run's pair.
func compareRun(ctx context.Context, o CompareOptions, run ComparePair) (*comparedRun, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, a...)
		}
	}
	fm, fmPath, err := eqflib.LoadEMA(run.FM, false)
	if err != nil {
		return nil, err
	}
	eq, eqPath, err := eqflib.LoadEMA(run.EqF, true)
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
	warp, err := eqflib.ParseWarp(o.Warp)
	if err != nil {
		return nil, err
	}
	C, R, H, S := o.Context, o.Frames, o.Horizon, o.Stride
	if o.TimeChunk < 5 || o.TimeChunk > R || o.TimeChunk%5 != 0 {
		return nil, fmt.Errorf("paper: CompareOptions.TimeChunk = %d out of range: must be a multiple of 5 in [5, Frames = %d]", o.TimeChunk, R)
	}
	var feat *eqflib.ActionNet // the maze's action net: nil for Truth and other worlds
	var cl *zoo.Clips
	world := o.World
	if world == nil {
		world = data.NewMaze(data.DefaultMazeConfig())
	}
	switch {
	case o.Truth != nil:
		truth := o.Truth[:min(max(o.Clips, 0), len(o.Truth))]
		if len(truth) == 0 {
			return nil, fmt.Errorf("paper: CompareOptions: Truth holds %d clips and Clips = %d: both must be ≥ 1", len(o.Truth), o.Clips)
		}
		if c := truth[0]; c.Channels != cfg.Channels || c.Height != cfg.Height || c.Width != cfg.Width || c.CondDim != cfg.CondDim {
			return nil, fmt.Errorf("paper: CompareOptions.Truth: the clips are %dx%d with %d channels and %d actions: the models take %dx%d with %d channels and %d actions",
				c.Width, c.Height, c.Channels, c.CondDim, cfg.Width, cfg.Height, cfg.Channels, cfg.CondDim)
		}
		if cl, err = zoo.NewClipsFrom(truth, stats, C, R); err != nil {
			return nil, fmt.Errorf("paper: CompareOptions.Truth: %w", err)
		}
	case cfg.Height != cfg.Width:
		return nil, fmt.Errorf("paper: Compare: the models' frames are %d×%d: the %s world renders square frames", cfg.Height, cfg.Width, world.Name())
	case world.CondDim() != cfg.CondDim:
		return nil, fmt.Errorf("paper: Compare: world %s has %d actions per frame, the models %d", world.Name(), world.CondDim(), cfg.CondDim)
	default:
		if world.Name() == "maze" {
			if feat, err = actionNet(o.Features, cfg.Height, cfg.Width, o.FeatureSteps, o.Seed, logf); err != nil {
				return nil, err
			}
		}
		if cl, err = zoo.NewClips(world, stats, o.Clips, C, R, cfg.Height, o.Seed); err != nil {
			return nil, err
		}
	}
	pixels := cl.ScoreFeatures()
	space := pixels.Name() // FVD's features: the action net's, else pooled pixels'
	if feat != nil {
		space = feat.Name()
	}
	clips := fmt.Sprintf("%d clips", cl.Truth.Batch())
	if cl.Truth.Batch() == 1 {
		clips = "one clip"
	}
	over := fmt.Sprintf("%s of the %s world's validation set", clips, world.Name())
	if o.Truth != nil {
		over = clips + " of your own"
	}
	logf("rolling out over %s: %d frames after %d of context (H=%d S=%d D=%d), FVD in %s features\n", over, R, C, H, S, o.Depth, space)
	truth, B := cl.Truth, cl.Truth.Batch()
	methods := compareMethods(o, warp)
	c := &comparedRun{fmPath: fmPath, eqPath: eqPath, methods: methods, spaces: []string{space}, clips: B}
	if feat != nil {
		c.spaces = append(c.spaces, pixels.Name())
	}
	if o.ONNX != nil {
		c.spaces = append(c.spaces, o.ONNX.Name())
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
		r.Numbers = append(r.Numbers, Number{Name: m.Name + ": FVD (" + space + ")", Ours: sc.FVD})
		fvd := []float64{sc.FVD}
		line := fmt.Sprintf("%-44s FVD (%s) %8.2f", m.Name, space, sc.FVD)
		if feat != nil { // pooled pixels' FVD beside the action net's
			fp, err := eqflib.ComputeFVD(pixels, gen, truthClips)
			if err != nil {
				return nil, err
			}
			r.Numbers = append(r.Numbers, Number{Name: m.Name + ": FVD (" + pixels.Name() + ")", Ours: fp.Value})
			fvd = append(fvd, fp.Value)
			line += fmt.Sprintf("  FVD (%s) %8.2f", pixels.Name(), fp.Value)
		}
		r.Numbers = append(r.Numbers,
			Number{Name: m.Name + ": NFE", Ours: float64(res.NFE)}, Number{Name: m.Name + ": NFE per frame", Ours: res.NFEPerFrame()},
			Number{Name: m.Name + ": PSNR (dB, standardised frames, peak 4)", Ours: sc.PSNR}, Number{Name: m.Name + ": flicker", Ours: sc.Flicker},
			Number{Name: m.Name + ": seconds", Ours: secs})
		if o.ONNX != nil {
			fo, err := eqflib.ComputeFVD(o.ONNX, gen, truthClips)
			if err != nil {
				return nil, err
			}
			r.Numbers = append(r.Numbers, Number{Name: m.Name + ": FVD (" + o.ONNX.Name() + ")", Ours: fo.Value})
			fvd = append(fvd, fo.Value)
		}
		c.fvd, c.overTime = append(c.fvd, fvd), append(c.overTime, sc.FVDOverTime)
		for i, f := range sc.FVDOverTime {
			r.Numbers = append(r.Numbers, Number{Name: fmt.Sprintf("%s: FVD (%s), frames %d–%d", m.Name, space, i*o.TimeChunk+1, (i+1)*o.TimeChunk), Ours: f})
		}
		curves = append(curves, plots.Curve{Name: m.Name, Values: sc.FVDOverTime, Color: m.Color})
		logf("%s  NFE %5d (%.1f/frame)  PSNR %5.2f dB (standardised)  flicker %.3f  (%.0fs)\n", line, res.NFE, res.NFEPerFrame(), sc.PSNR, sc.Flicker, secs)
		logf("%-44s FVD (%s) over %d-frame chunks: %.1f\n", "", space, o.TimeChunk, sc.FVDOverTime)
	}
	fig, err := plots.RolloutFigure(nil, curves, o.TimeChunk, space)
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
	r.Notes = append(r.Notes, fmt.Sprintf("FM %s, EqF %s.", fmPath, eqPath))
	if feat != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("Features %s. FVD over %d-frame clips (%d per side); maze-I3D = the project's maze action-recognition features, not I3D.",
			o.Features, o.ClipFrames, truthClips.Batch()))
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("Rolled out over %s. FVD over %d-frame clips (%d per side) in %s features: the frames average-pooled to a %dx%d grid, far weaker than I3D's (-onnx adds an exported I3D's).",
			over, o.ClipFrames, truthClips.Batch(), space, pixels.Size, pixels.Size))
	}
	c.r = r
	return c, nil
}

// compareMethods are Compare's samplers, FM Euler first (the reference of the paired
// differences).
func compareMethods(o CompareOptions, warp eqflib.Warp) []method {
	return []method{
		{Name: "FM Euler", Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler}, Model: "fm", Color: 1},
		{Name: "EqF GD (open loop, " + o.Warp + ")", Model: "eqf", Color: 3, Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: warp}}},
		{Name: fmt.Sprintf("EqF NAG μ=%.2g (closed loop, %s)", o.Momentum, o.Warp), Model: "eqf", Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, ClosedLoop: true, Momentum: o.Momentum}}},
		{Name: fmt.Sprintf("EqF budget-adaptive NAG μ=%.2g", o.Momentum), Model: "eqf", Color: 4,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Budget, Options: eqflib.Options{Momentum: o.Momentum}}},
	}
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

// checkRuns checks every training run's checkpoints before any is rolled out (a bad one found
// after the others' rollouts would waste them): each loads, the EqF with h_ω, all of one
// configuration; and none is given for two runs (the same file, or the same bytes under two
// names), whose differences would count twice and narrow the interval. Each model is loaded
// here and again for its run's rollouts, so that one run's models at most are held at once.
func checkRuns(runs []ComparePair) error {
	var cfg eqflib.DiTConfig
	seen := map[string]string{} // model and checkpoint digest → the checkpoint
	for i, run := range runs {
		for _, m := range []struct {
			model, path string
			readout     bool
		}{{"FM", run.FM, false}, {"EqF", run.EqF, true}} {
			d, path, err := eqflib.LoadEMA(m.path, m.readout)
			if err != nil {
				return fmt.Errorf("paper: CompareOptions.Runs: training run %d's %s: %w", i+1, m.model, err)
			}
			if i == 0 && m.model == "FM" {
				cfg = d.Config
			} else if d.Config != cfg {
				return fmt.Errorf("paper: CompareOptions.Runs: training run %d's %s (%s) is another model than run 1's FM: %+v against %+v", i+1, m.model, path, d.Config, cfg)
			}
			sum, err := fileDigest(path)
			if err != nil {
				return fmt.Errorf("paper: CompareOptions.Runs: training run %d's %s: %w", i+1, m.model, err)
			}
			if other, ok := seen[m.model+sum]; ok {
				return fmt.Errorf("paper: CompareOptions.Runs: training run %d's %s checkpoint %s is %s, an earlier run's: give each training seed's run once, or its differences count twice",
					i+1, m.model, path, other)
			}
			seen[m.model+sum] = path
		}
	}
	return nil
}

// poolCompare is the result of several training runs' Compare (see Compare): their numbers'
// mean ± standard error over the runs with each run's value, each EqF sampler's FVD minus FM
// Euler's paired by training run with its 95 % t-interval, FVD over time averaged over the runs,
// and the first run's rollouts.
func poolCompare(o CompareOptions, parts []*comparedRun) (*Result, error) {
	first := parts[0]
	n := len(parts)
	r := &Result{Name: first.r.Name, Where: first.r.Where, Figures: map[string]*plots.Figure{}, Files: first.r.Files,
		Title: fmt.Sprintf("FM against EqF over %d training runs: %d-frame rollouts, %d clips, C=%d H=%d S=%d D=%d", n, o.Frames, first.clips, o.Context, o.Horizon, o.Stride, o.Depth)}
	for i, num := range first.r.Numbers {
		v := make([]float64, n)
		for k, p := range parts {
			if len(p.r.Numbers) != len(first.r.Numbers) || p.r.Numbers[i].Name != num.Name {
				return nil, fmt.Errorf("paper: training run %d's numbers are not run 1's (%q): the runs must be rolled out alike", k+1, num.Name)
			}
			v[k] = p.r.Numbers[i].Ours
		}
		m, se := stat(v)
		r.Numbers = append(r.Numbers, Number{Name: num.Name, Ours: m, Err: se, PerSeed: v})
	}
	ref := first.methods[0]
	for s, space := range first.spaces {
		for j, m := range first.methods[1:] {
			d := make([]float64, n)
			for k, p := range parts {
				d[k] = p.fvd[j+1][s] - p.fvd[0][s]
			}
			diff := pairedDiff(Number{Name: fmt.Sprintf("%s: FVD (%s) − %s's, paired by training run", m.Name, space, ref.Name)}, d, math.NaN())
			diff.Note = direction(diff.Lo, diff.Hi, ref.Name) + runsNeeded(d)
			r.Numbers = append(r.Numbers, diff)
		}
	}
	var curves []plots.Curve
	for j, m := range first.methods {
		mean := make([]float64, len(first.overTime[j]))
		for _, p := range parts {
			for i, f := range p.overTime[j] {
				mean[i] += f / float64(n)
			}
		}
		curves = append(curves, plots.Curve{Name: m.Name, Values: mean, Color: m.Color})
	}
	fig, err := plots.RolloutFigure(nil, curves, o.TimeChunk, first.spaces[0])
	if err != nil {
		return nil, err
	}
	fig.Title = fmt.Sprintf("FVD over time, mean of %d training runs", n) // the rollouts' length and clips in the result's title: the figure's is one line
	r.Figures["fvd_over_time"] = fig
	r.Figures["fvd"] = compareRunsFigure(parts)
	runs := make([]string, n)
	for k, p := range parts {
		runs[k] = fmt.Sprintf("%d. FM %s, EqF %s", k+1, p.fmPath, p.eqPath)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d training runs, one FM and one EqF each, rolled out over the same clips, actions and noise: %s.", n, strings.Join(runs, "; ")),
		fmt.Sprintf("Each number is the mean ± standard error over the training runs (per run: per_seed in results.json); \"− %s's\" is an EqF sampler's FVD minus %s's, paired by training run, "+
			"with its 95 %% Student-t interval over the runs: lower or higher where the interval excludes 0, else inconclusive, "+
			"with the smallest difference the runs detect at their spread and the runs a difference of its own size needs (80 %% power of the paired t-test). "+
			"This is eqf compare's protocol, not one of the paper's experiments: there is no verdict against the paper. The rollouts shown are training run 1's.", ref.Name, ref.Name))
	r.Notes = append(r.Notes, first.r.Notes[1:]...)
	return r, nil
}

// compareRunsFigure draws each sampler's FVD (the headline features) over the training runs:
// every run's value beside the mean with its standard error.
func compareRunsFigure(parts []*comparedRun) *plots.Figure {
	first, n := parts[0], len(parts)
	p := plots.Panel{XLabel: "sampler", YLabel: "FVD (" + first.spaces[0] + " features)"}
	runs := plots.Series{Name: "each training run", Style: plots.Points, Color: 8}
	mean := plots.Series{Name: "mean ± standard error", Style: plots.Points, Color: 1}
	for j, m := range first.methods {
		p.XTicks = append(p.XTicks, shortName(m.Name))
		v := make([]float64, n)
		for k, c := range parts {
			v[k] = c.fvd[j][0]
			runs.X, runs.Y = append(runs.X, float64(j+1)+0.06*(float64(k)-float64(n-1)/2)-0.15), append(runs.Y, v[k])
		}
		mu, se := stat(v)
		mean.X, mean.Y, mean.Lo, mean.Hi = append(mean.X, float64(j+1)), append(mean.Y, mu), append(mean.Lo, mu-se), append(mean.Hi, mu+se)
		mean.Labels = append(mean.Labels, fmt.Sprintf("%.1f", mu))
	}
	p.Series = []plots.Series{runs, mean}
	return &plots.Figure{Title: fmt.Sprintf("FVD per sampler over %d training runs", n), Panels: []plots.Panel{p}, Width: 7, Height: 4.2}
}

// runsNeeded is what an inconclusive paired difference d (one per training run) asks for: the
// smallest difference its runs detect (their 95 % interval excluding 0) with probability
// planningPower at their spread, and how many runs would detect one of its own size so (power.go);
// "" for a conclusive one or no spread.
func runsNeeded(d []float64) string {
	mean, lo, hi := MeanInterval(d)
	sd := sampleSD(d)
	if hi < 0 || lo > 0 || !(sd > 0) {
		return ""
	}
	s := fmt.Sprintf("; at the runs' spread (SD %.3g), %d runs detect a difference of %.3g or more with probability %.0f %%", sd, len(d), detectable(len(d), sd, planningPower), 100*planningPower)
	if need := seedsFor(mean, sd, planningPower); need > 0 {
		s += fmt.Sprintf(", one of this size (%.3g) needs %s runs", mean, seedsWord(need))
	}
	return s
}

// direction says what a paired difference's 95 % interval [lo, hi] shows against ref.
func direction(lo, hi float64, ref string) string {
	switch {
	case hi < 0:
		return "lower than " + ref + "'s (the 95 % interval excludes 0)"
	case lo > 0:
		return "higher than " + ref + "'s (the 95 % interval excludes 0)"
	}
	return "inconclusive (the 95 % interval holds 0)"
}
