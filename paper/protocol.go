package paper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// The rollout protocol every model-based experiment shares (paper §5.1 and App. D, on the maze
// world in place of Minecraft): real validation clips give the clean context and the actions;
// each method rolls out the continuation under those actions; the rollouts are scored against
// the real continuation by FVD in the maze-I3D features (the zoo's action net), flicker, action
// agreement and NFE per frame. Evaluation seeds change the clips and the noise; training seeds
// (the zoo's independent training runs) change the models. Numbers are means over training seeds
// of each seed's mean over evaluation seeds, ± the standard error over training seeds
// (stats.go).

// Protocol is the size of a rollout evaluation.
type Protocol struct {
	Clips  int // rollouts per seed, one per validation clip
	Frames int // frames generated per rollout (R)
	Depth  int // steps per frame D
	// Stride is the frames emitted at a time S (0: the horizon, chunk by chunk). The paper
	// slides by one frame over a 25-frame horizon; on the zoo's 2-frame horizon denoising the
	// chunk together rolls out clearly better (docs/zoo.md), so that is the default.
	Stride  int
	FVDClip int // FVD over non-overlapping clips of this many frames
	Chunk   int // FVD over time: consecutive chunks of this many frames (paper Fig. 3: 25)
}

// DefaultRollouts is the full protocol's rollouts per method, training seed and evaluation seed
// (one per validation clip): 64 rollouts of 100 frames give FVD 640 ten-frame clips per side,
// and each 25-frame chunk of FVD over time 320 five-frame clips, both above the 128 dimensions
// of the maze-I3D features, so the feature covariances have full rank.
const DefaultRollouts = 64

// protocol is the evaluation size of a mode: full on the paper recipe's zoo, quick on the quick
// zoo; Config.Clips overrides the rollouts per evaluation seed.
func (c Config) protocol() Protocol {
	p := Protocol{Clips: DefaultRollouts, Frames: 100, Depth: 20, FVDClip: 10, Chunk: 25}
	if c.Quick {
		p = Protocol{Clips: 2, Frames: 20, Depth: 4, FVDClip: 5, Chunk: 10}
	}
	if c.Clips > 0 {
		p.Clips = c.Clips
	}
	return p
}

func (c Config) seeds() []uint64 {
	n := c.Seeds
	if n == 0 {
		n = 3
		if c.Quick {
			n = 1
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = 7 + uint64(i)
	}
	return out
}

// setup is an experiment's set-up: the zoo, its action net, the protocol and the models of
// every training seed; models and gphi are those of the training seed in use (use).
type setup struct {
	ctx     context.Context
	cfg     Config
	z       *zoo.Zoo
	net     *eqflib.ActionNet
	p       Protocol
	runs    []int              // training seeds, in order
	byRun   map[int]*runModels // each training seed's models
	ranAll  bool               // runAll or eachRun ran every training seed (else only the first's models were used)
	run     int                // the training seed in use
	netHash string             // the action net's configuration hash and finish time (cardID)
	models  map[string]*zoo.Model
	gphi    *eqflib.NoisePredictor
	clips   map[uint64]*zoo.Clips
	disk    disk // the rollout cache on disk (Config.CacheDir, Config.RolloutsOf)
	// rolled counts the rollouts asked for, borrowed those whose scores another build's disk
	// cache gave (Config.RolloutsOf; protocolNote says so).
	rolled, borrowed int
	spent            *Spent // where the time went (Result.Spent)
}

// runModels are the models of one training seed.
type runModels struct {
	models   map[string]*zoo.Model
	gphi     *eqflib.NoisePredictor
	gphiHash string // g_φ's configuration hash and finish time (cardID: the rollout cache's key)
}

// newSetup opens the zoo of the mode and loads the named models of every training seed
// (Config.TrainSeeds). In quick mode missing quick models are trained (minutes); in full mode a
// missing model is an error naming `make models`.
func newSetup(ctx context.Context, c Config, models ...string) (*setup, error) {
	start := time.Now()
	z, err := c.zoo()
	if err != nil {
		return nil, err
	}
	H := z.Recipe.Frames - z.Recipe.Context
	if c.TrainSeed < 0 || c.TrainSeed > zoo.MaxTrainSeeds {
		return nil, fmt.Errorf("paper: Config.TrainSeed = %d out of range: must be in [0, %d] (0: training seeds 1…Config.TrainSeeds)", c.TrainSeed, zoo.MaxTrainSeeds)
	}
	if c.Clips < 0 {
		return nil, fmt.Errorf("paper: Config.Clips = %d out of range: must be ≥ 0 (0: %d rollouts per seed in full mode)", c.Clips, DefaultRollouts)
	}
	for _, s := range append([]int{c.Stride}, c.Strides...) {
		if s < 0 || s > H {
			return nil, fmt.Errorf("paper: Config.Stride = %d out of range: must be in [0, %d] (0: the horizon H = %d, chunk by chunk; 1: the paper's staircase)", s, H, H)
		}
	}
	if err := c.checkModels(models); err != nil {
		return nil, err
	}
	d, err := c.disk()
	if err != nil {
		return nil, err
	}
	runs := c.trainSeeds(z, models)
	if c.Quick {
		z.Log = c.Log
		for _, k := range runs {
			if err := z.WithTrainSeed(k).Build(append([]string{"action-net"}, models...)...); err != nil {
				return nil, err
			}
		}
	}
	p := c.protocol()
	p.Stride = c.Stride
	if len(c.Strides) > 0 {
		p.Stride = c.Strides[0]
	}
	l := &setup{ctx: ctx, cfg: c, z: z, p: p, runs: runs, byRun: map[int]*runModels{}, clips: map[uint64]*zoo.Clips{}, disk: d}
	if l.net, err = z.LoadActionNet(); err != nil {
		return nil, err
	}
	if c, err := z.Card("action-net"); err == nil {
		l.netHash = cardID(c)
	}
	for _, k := range runs {
		rz, rm := z.WithTrainSeed(k), &runModels{models: map[string]*zoo.Model{}}
		for _, name := range models {
			if name == "gphi" {
				if rm.gphi, err = rz.LoadGPhi(); err != nil {
					return nil, err
				}
				if c, err := rz.Card("gphi"); err == nil {
					rm.gphiHash = cardID(c)
				}
				continue
			}
			if rm.models[name], err = rz.Load(name); err != nil {
				return nil, err
			}
		}
		l.byRun[k] = rm
	}
	l.use(runs[0])
	l.spent = &Spent{Load: time.Since(start)}
	l.logf("  loaded %s (training %s %s) in %v\n", strings.Join(models, ", "), plural(len(runs), "seed"), seedList(runs), roughly(l.spent.Load))
	return l, nil
}

// disk is the rollout cache on disk that Config.CacheDir and Config.RolloutsOf ask for.
func (c Config) disk() (disk, error) {
	d := disk{dir: c.CacheDir, exe: executableDigest()}
	if len(c.RolloutsOf) > 0 && c.CacheDir == "" {
		return d, fmt.Errorf("paper: Config.RolloutsOf = %q needs Config.CacheDir: the folder whose rollouts it reads", c.RolloutsOf)
	}
	for _, path := range c.RolloutsOf {
		other, err := fileDigest(path)
		if err != nil {
			return d, fmt.Errorf("paper: Config.RolloutsOf: %w", err)
		}
		if other != d.exe && !slices.Contains(d.also, other) {
			d.also = append(d.also, other)
		}
	}
	return d, nil
}

// newPartialSetup is newSetup for an experiment that can run a subset of its methods: it loads
// the backbones among models that Config.Models names (all of them when it names none), the
// other models (g_φ) as they are; setup.only then leaves out the methods on the others.
func newPartialSetup(ctx context.Context, c Config, models ...string) (*setup, error) {
	if err := c.checkModels(nil); err != nil {
		return nil, err
	}
	var kept []string
	for _, m := range models {
		if !isBackbone(m) || len(c.Models) == 0 || slices.Contains(c.Models, m) {
			kept = append(kept, m)
		}
	}
	if !slices.ContainsFunc(kept, isBackbone) {
		return nil, fmt.Errorf("paper: Config.Models = %v leaves none of this experiment's backbones (%s)", c.Models, strings.Join(slices.DeleteFunc(slices.Clone(models), func(m string) bool { return !isBackbone(m) }), ", "))
	}
	return newSetup(ctx, c, kept...)
}

// isBackbone is whether a zoo model is a DiT that methods roll out (Config.Models' range).
func isBackbone(name string) bool { return slices.Contains(zoo.Backbones(), name) }

// checkModels checks Config.Models: zoo backbones only, and every backbone of models (what an
// experiment loads) among them unless it names none.
func (c Config) checkModels(models []string) error {
	for _, m := range c.Models {
		if !isBackbone(m) {
			return fmt.Errorf("paper: Config.Models: %q is out of range: must be zoo backbones among %s", m, strings.Join(zoo.Backbones(), ", "))
		}
	}
	for _, m := range models {
		if len(c.Models) > 0 && isBackbone(m) && !slices.Contains(c.Models, m) {
			return fmt.Errorf("paper: Config.Models = %v leaves out %q, which this experiment needs (only minecraft_main and fixed_compute_scaling run a subset of their methods)", c.Models, m)
		}
	}
	return nil
}

// only is the methods whose backbone the setup loaded (newPartialSetup); note says which were
// left out and why, "" when none was.
func (l *setup) only(ms []method) (kept []method, note string) {
	var left []string
	for _, m := range ms {
		if l.models[m.Model] != nil {
			kept = append(kept, m)
		} else {
			left = append(left, m.Name)
		}
	}
	if len(left) > 0 {
		note = fmt.Sprintf("Run with Config.Models (-models) = %s: %s left out.", strings.Join(l.cfg.Models, ", "), strings.Join(left, "; "))
	}
	return kept, note
}

// use makes training seed k's models the ones rollouts and analyses take.
func (l *setup) use(k int) { l.run, l.models, l.gphi = k, l.byRun[k].models, l.byRun[k].gphi }

// trainSeeds are the training seeds an experiment averages over: Config.TrainSeed alone, or
// 1…Config.TrainSeeds, or when that is 0, every seed from 1 on for which the zoo has the
// experiment's first model (always at least seed 1, whose absence newSetup reports).
func (c Config) trainSeeds(z *zoo.Zoo, models []string) []int {
	if c.TrainSeed > 0 {
		return []int{c.TrainSeed}
	}
	n := c.TrainSeeds
	if n == 0 {
		n = 1
		for len(models) > 0 && n < zoo.MaxTrainSeeds {
			if _, err := z.WithTrainSeed(n + 1).Card(models[0]); err != nil {
				break
			}
			n++
		}
	}
	runs := make([]int, n)
	for i := range runs {
		runs[i] = i + 1
	}
	return runs
}

// withProvenance gives r what the setup knows about where its numbers come from: the models
// (provenance), the training seeds used and the zoo's recipe.
func (l *setup) withProvenance(r *Result) *Result {
	r.Models, r.TrainSeeds, r.Recipe, r.Spent = l.provenance(), l.usedRuns(), l.z.Recipe.Name, l.spent
	return r
}

// provenance says which zoo models a result was computed with (Result.Models): for each model
// the setup loaded and each training seed, its recipe, steps, configuration hash and training
// date from its card, and for the action net the digest of its weights.
func (l *setup) provenance() map[string]string {
	out := map[string]string{}
	if c, err := l.z.Card("action-net"); err == nil {
		out["action-net"] = cardLine(c)
		if d, err := l.z.ActionNetDigest(); err == nil {
			out["action-net"] += weightsTag + d // FVD's features (CompareRuns reads it: digestOf)
		}
	}
	for _, k := range l.usedRuns() {
		rz, rm := l.z.WithTrainSeed(k), l.byRun[k]
		names := make([]string, 0, len(rm.models)+1)
		for n := range rm.models {
			names = append(names, n)
		}
		if rm.gphi != nil {
			names = append(names, "gphi")
		}
		for _, n := range names {
			c, err := rz.Card(n)
			if err != nil {
				continue
			}
			key := n
			if len(l.runs) > 1 || k != 1 { // a run of one seed but the first names it
				key = fmt.Sprintf("%s, training seed %d", n, k)
			}
			out[key] = cardLine(c)
		}
	}
	return out
}

// usedRuns are the training seeds a result's numbers come from (Result.TrainSeeds): every one
// once runAll or eachRun has run, else the first (forward_compute's FLOPs and sampling_runtime's
// timings, the same for every training seed).
func (l *setup) usedRuns() []int {
	if l.ranAll {
		return l.runs
	}
	return l.runs[:1]
}

func cardLine(c *zoo.Card) string {
	return fmt.Sprintf("%s recipe, %d steps, config %s, trained %s", c.Recipe, c.Steps, c.Hash, c.Finished.Format("2006-01-02 15:04"))
}

func (c Config) zoo() (*zoo.Zoo, error) {
	if c.Zoo != nil {
		return c.Zoo, nil
	}
	if c.Quick {
		return zoo.Open("quick")
	}
	if c.Recipe == "" {
		return zoo.Open(zoo.DefaultRecipe) // the paper recipe, whatever $EQF_ZOO says
	}
	if zoo.IsPaperRecipe(c.Recipe) {
		return zoo.Open(c.Recipe)
	}
	return nil, fmt.Errorf("paper: Config.Recipe = %q: must be one of %s (the paper's recipe, on 8-frame windows or trained for other lengths; the guided recipes never reach the paper's experiments)", c.Recipe, strings.Join(zoo.PaperRecipes, ", "))
}

func (l *setup) logf(format string, a ...any) {
	if l.cfg.Log != nil {
		fmt.Fprintf(l.cfg.Log, format, a...)
	}
}

// geometry is the rolling window of the zoo (C context and H = Frames − C horizon frames), the
// protocol's stride, and depth steps per frame (0: the protocol's D).
func (l *setup) geometry(depth int) eqflib.RollConfig {
	if depth == 0 {
		depth = l.p.Depth
	}
	return l.z.Geometry(depth, l.p.Stride)
}

// clipsFor returns the seed's validation clips (every model of the zoo shares the statistics of
// the recipe's training data, so one normalisation serves them all).
func (l *setup) clipsFor(seed uint64, m *zoo.Model) (*zoo.Clips, error) {
	if c, ok := l.clips[seed]; ok {
		return c, nil
	}
	start := time.Now()
	c, err := l.z.Clips(m.Stats, l.p.Clips, l.p.Frames, seed)
	if err != nil {
		return nil, err
	}
	l.clips[seed] = c
	d := time.Since(start)
	l.spent.Clips += d
	l.logf("  validation clips of seed %d: %d in %v\n", seed, l.p.Clips, roughly(d))
	return c, nil
}

// method is one row of a results table: a zoo model and how it is sampled.
type method struct {
	Name    string // as in the paper's table, e.g. "EqF NAG μ=0.3 (closed, c)"
	Model   string // zoo DiT
	Sampler eqflib.FrameSampler
	GPhi    bool    // give the sampler the zoo's g_φ as Options.Estimator (or Probe)
	Probe   bool    // record g_φ's estimate without steering (Fig. 3's divergence)
	Depth   int     // steps per frame (0: the protocol's)
	Paper   string  // the paper's FVD for this row, as printed ("" where it has none)
	Color   int     // palette colour, kept across figures
	Stride  int     // the rollout's stride S (0: the protocol's; set per row by runAll)
	tau     float64 // replanning threshold (planning_threshold only)
	eqmStep bool    // EqM's fixed step, recomputed at the rollout's depth (eqmStep)
}

// scores are one rollout's measures.
type scores struct {
	FVD, Flicker, Agreement, NFEPerFrame, Seconds float64
	FVDOverTime                                   []float64
	Divergence                                    []float64      // |σ_sched − g_φ(x)| per frame, with Probe or closed-loop Euler
	Replanned                                     float64        // fraction of replanning rounds that regenerated the plan
	WindowNFE                                     float64        // replanning: window evaluations per frame (NFEPerFrame counts frame evaluations)
	Compat                                        []float64      // replanning: the plan's compatibility scores seen (calibrate τ)
	Frames                                        *eqflib.Window // the first clip only (firstClip): what the rollout strip shows
	from                                          string         // the digest of the other build whose disk cache gave these scores (Config.RolloutsOf); "": this one's
}

// rollout runs a method on one seed's clips and scores it.
func (l *setup) rollout(m method, seed uint64) (*scores, error) {
	if err := l.ctx.Err(); err != nil {
		return nil, err
	}
	zm, ok := l.models[m.Model]
	if !ok {
		return nil, fmt.Errorf("paper: method %q: model %q not loaded", m.Name, m.Model)
	}
	cl, err := l.clipsFor(seed, zm)
	if err != nil {
		return nil, err
	}
	geom := l.geometry(m.Depth)
	if m.Stride > 0 {
		geom.Stride = m.Stride
	}
	fs := m.Sampler
	if m.eqmStep {
		fs.StepSize = eqmStep(geom.Depth)
	}
	if m.GPhi || m.Probe {
		if l.gphi == nil {
			return nil, fmt.Errorf("paper: method %q needs g_φ: load \"gphi\"", m.Name)
		}
		if m.GPhi {
			fs.Estimator = l.gphi
		}
		if m.Probe {
			fs.Probe = l.gphi
		}
	}
	keepTrace := m.Probe || (m.GPhi && fs.Sampler == eqflib.Euler)
	key, cacheable := l.rolloutKey(m, fs, geom, seed, keepTrace)
	d := l.disk
	if fs.Schedule != nil {
		d.dir = "" // a custom diffusion schedule is known to the key by its address only
	}
	if s, ok := l.fromCache(key, cacheable, d); ok {
		l.logf("  %-40s seed %d: FVD %7.2f  agreement %.2f  flicker %.3f  %.1f NFE/frame  (computed earlier)\n", m.Name, seed, s.FVD, s.Agreement, s.Flicker, s.NFEPerFrame)
		return s, nil
	}
	start := time.Now()
	res, err := cl.Roll(zm.DiT, eqflib.RollOptions{RollConfig: geom, Sampler: fs, Seed: seed, KeepTrace: keepTrace, Done: l.ctx.Done()})
	if err != nil {
		if errors.Is(err, eqflib.ErrRollStopped) && l.ctx.Err() != nil {
			return nil, l.ctx.Err()
		}
		return nil, fmt.Errorf("paper: %s: %w", m.Name, err)
	}
	took := time.Since(start)
	s := &scores{NFEPerFrame: res.NFEPerFrame(), Seconds: took.Seconds(), Frames: res.Frames}
	l.rolledIn(took)
	scoring, err := l.score(s, cl, res.Frames)
	if err != nil {
		return nil, fmt.Errorf("paper: %s: %w", m.Name, err)
	}
	if res.Trace != nil {
		if s.Divergence, err = eqflib.NoiseDivergence(res.Trace, l.p.Frames); err != nil {
			return nil, err
		}
	}
	l.logf("  %-40s seed %d: FVD %7.2f  agreement %.2f  flicker %.3f  %.1f NFE/frame  %.0f s + %.0f s scoring\n", m.Name, seed, s.FVD, s.Agreement, s.Flicker, s.NFEPerFrame, s.Seconds, scoring.Seconds())
	s.Frames = firstClip(res.Frames) // the strip's clip: all 64 would keep ~0.3 GB per rollout alive
	if cacheable {
		if err := rollouts.put(key, s, d); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// fromCache counts a rollout (or replan) of the run and returns its scores when the cache has
// them under key (cacheable false: never), counting those another build computed
// (Config.RolloutsOf) for the protocol note.
func (l *setup) fromCache(key string, cacheable bool, d disk) (*scores, bool) {
	l.rolled++
	if !cacheable {
		return nil, false
	}
	s, ok := rollouts.get(key, d)
	if ok {
		l.spent.Cached++
	}
	if ok && s.from != "" {
		l.borrowed++
	}
	return s, ok
}

// score fills FVD, FVD over time, flicker and action agreement of generated frames gen
// [B, R, …] against the clips' real continuation (zoo's Clips.Score: the protocol every
// evaluation shares), and says how long that took (Spent.Scoring).
func (l *setup) score(s *scores, cl *zoo.Clips, gen *eqflib.Window) (time.Duration, error) {
	start := time.Now()
	sc, err := cl.Score(l.net, gen, zoo.ScoreConfig{FVDClip: l.p.FVDClip, Chunk: l.p.Chunk})
	if err != nil {
		return 0, err
	}
	s.FVD, s.FVDOverTime, s.Flicker, s.Agreement = sc.FVD, sc.FVDOverTime, sc.Flicker, sc.Agreement.Ratio
	d := time.Since(start)
	l.spent.Scoring += d
	return d, nil
}

// methodScores is a method's scores over every training seed and evaluation seed: per[i] was
// rolled out by training seed run[i].
type methodScores struct {
	m   method
	per []*scores
	run []int
}

// strides are the strides S every rollout experiment runs its methods at (Config.Strides, or
// the protocol's one), resolved: 0 is the horizon.
func (l *setup) strides() []int {
	ss := l.cfg.Strides
	if len(ss) == 0 {
		ss = []int{l.p.Stride}
	}
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = s
		if s == 0 {
			out[i] = l.z.Recipe.Frames - l.z.Recipe.Context
		}
	}
	return out
}

// atStrides is every method at every stride (strides): with one stride the methods as they
// are, their Stride set; with several, a copy per stride named "S=k: …". A method that has its
// own stride runs once, as it is.
func (l *setup) atStrides(ms []method) []method {
	ss := l.strides()
	var out []method
	for i, s := range ss {
		for _, m := range ms {
			if m.Stride != 0 {
				if i == 0 {
					out = append(out, m)
				}
				continue
			}
			m.Stride = s
			if len(ss) > 1 {
				m.Name = fmt.Sprintf("S=%d: %s", s, m.Name)
			}
			out = append(out, m)
		}
	}
	return out
}

// eachRun calls f once per training seed with that seed's models in use (setup.use), so that an
// analysis averages over training seeds as runAll's rollouts do (runStat); the result's
// TrainSeeds and Models then list every seed.
func (l *setup) eachRun(f func(k int) error) error {
	l.ranAll = true
	defer l.use(l.runs[0])
	for _, k := range l.runs {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		l.use(k)
		if len(l.runs) > 1 {
			l.logf(" training seed %d\n", k)
		}
		if err := f(k); err != nil {
			return err
		}
	}
	return nil
}

// eachSeed calls f with each evaluation seed's clips for model m (setup.clipsFor), stopping when
// the run is cancelled.
func (l *setup) eachSeed(m *zoo.Model, f func(seed uint64, cl *zoo.Clips) error) error {
	for _, seed := range l.cfg.seeds() {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		cl, err := l.clipsFor(seed, m)
		if err != nil {
			return err
		}
		if err := f(seed, cl); err != nil {
			return err
		}
	}
	return nil
}

// runAll rolls every method (at every stride, atStrides) out with every training seed's models
// on every evaluation seed.
func (l *setup) runAll(ms []method) ([]methodScores, error) {
	ms = l.atStrides(ms)
	out := make([]methodScores, len(ms))
	err := l.eachRun(func(k int) error {
		for i, m := range ms {
			out[i].m = m
			for _, seed := range l.cfg.seeds() {
				s, err := l.rollout(m, seed)
				if err != nil {
					return err
				}
				out[i].per, out[i].run = append(out[i].per, s), append(out[i].run, k)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// strip is the first clip of every method's first-seed rollout beside the ground truth.
func (l *setup) strip(rows []methodScores) []plots.Video {
	cl := l.clips[l.cfg.seeds()[0]]
	vids := []plots.Video{{Name: "ground truth", Frames: cl.Truth}}
	for _, r := range rows {
		vids = append(vids, plots.Video{Name: shortName(r.m.Name), Frames: r.per[0].Frames})
	}
	return vids
}

// warp parses a warp spec that is known to be valid.
func warp(spec string) eqflib.Warp {
	w, err := eqflib.ParseWarp(spec)
	if err != nil {
		panic(fmt.Sprintf("paper: warp %q: %v", spec, err))
	}
	return w
}

// The paper's η warps (App. G), in the specs ParseWarp reads.
const (
	warpC      = "c:0.8:0.001"
	warpLogSNR = "logsnr"
	warpSD3    = "sd3:3"
)

// table builds the Result of a results-table experiment: every method's numbers, the FVD
// summary, FVD over time, and the rollout strip of the first clip.
func (l *setup) table(name, title, where string, rows []methodScores) (*Result, error) {
	r := l.withProvenance(&Result{Name: name, Title: title, Where: where, Numbers: numbers(rows), Figures: map[string]*plots.Figure{}, Files: map[string][]byte{}})
	fig, err := fvdBars(title, rows)
	if err != nil {
		return nil, err
	}
	r.Figures["fvd"] = fig
	over, err := rolloutFigure(rows, false, l.p.Chunk)
	if err != nil {
		return nil, err
	}
	over.Title = fmt.Sprintf("FVD over time, %d-frame rollouts", l.p.Frames)
	r.Figures["fvd_over_time"] = over
	if r.Files["rollouts.png"], err = l.stripPNG(rows); err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, l.protocolNote())
	l.stampStride(r)
	return r, nil
}

// stampStride records the rollout stride on every number of a rollout result that has none
// (numbers computed from rows carry their row's).
func (l *setup) stampStride(r *Result) {
	for i := range r.Numbers {
		if r.Numbers[i].Stride == 0 {
			r.Numbers[i].Stride = l.geometry(0).Stride
		}
	}
}

// stripPNG draws the first clip of each method's first-seed rollout under the ground truth.
func (l *setup) stripPNG(rows []methodScores) ([]byte, error) {
	var st *zoo.Model
	for _, m := range l.models {
		st = m
		break
	}
	return plots.StripPNG(l.strip(rows), plots.VideoOptions{Mean: st.Stats.Mean, Std: st.Stats.Std, Scale: 3})
}

// protocolNote states the protocol the numbers come from.
func (l *setup) protocolNote() string {
	g := l.geometry(0)
	return fmt.Sprintf("Protocol: %s zoo, training seeds %v, %d rollouts per evaluation seed × %d evaluation seed(s), %d frames each from %d real context frames under the clips' actions; "+
		"window C = %d, H = %d, S = %s, D = %d steps per frame; FVD in the maze-I3D features (the zoo's action net) over %d-frame clips "+
		"(paper: I3D features, 256 Minecraft videos of 275 frames, 25-frame horizon, S = 1). %s %s%s",
		l.z.Recipe.Name, l.runs, l.p.Clips, len(l.cfg.seeds()), l.p.Frames, g.Context, g.Context, g.Horizon, andList(l.strides()), l.p.Depth, l.p.FVDClip, overSeeds(len(l.runs)), l.fvdNote(), l.borrowedNote())
}

// overSeeds says, in the protocol note, what a rollout result's means, errors and intervals are
// taken over with n training seeds.
func overSeeds(n int) string {
	if n == 1 {
		return "One training seed: means ± standard error over evaluation seeds, which says nothing of training variance; every comparison is inconclusive."
	}
	return fmt.Sprintf("Means over %d training seeds (each the mean over its evaluation seeds) ± standard error over training seeds; "+
		"paired differences with 95 %% t-intervals over training seeds.", n)
}

// borrowedNote says how many rollouts' scores came from another build's disk cache
// (Config.RolloutsOf), "" when none did.
func (l *setup) borrowedNote() string {
	if l.borrowed == 0 {
		return ""
	}
	var builds []string
	for _, d := range l.disk.also {
		builds = append(builds, d[:16]+"…")
	}
	return fmt.Sprintf(" %d of the %d rollouts' scores were read from the disk cache of other eqf builds (executable SHA-256 %s, Config.RolloutsOf), "+
		"taken as this build's because the changes since decide no rollout.", l.borrowed, l.rolled, strings.Join(builds, ", "))
}

// fvdNote says on how many clips per side FVD and each chunk of FVD over time rest (none where
// the rollouts are shorter than a chunk), against the features' dimension: with no more clips
// than dimensions the feature covariances are singular and FVD is not well posed (Config.Clips
// below DefaultRollouts, quick mode, or rollouts too short for their number).
func (l *setup) fvdNote() string {
	d := 2 * l.net.Hidden
	n := l.p.Clips * (l.p.Frames / l.p.FVDClip)
	on, nt := fmt.Sprintf("%d clips per side", n), 0
	if l.p.Frames >= l.p.Chunk { // FVD over time: each chunk cut into 5-frame clips
		nt = l.p.Clips * (l.p.Chunk / 5)
	}
	if nt > 0 {
		on += fmt.Sprintf(" (each chunk of FVD over time on %d)", nt)
	}
	more := fmt.Sprintf("the full protocol has %d rollouts per seed", DefaultRollouts)
	if l.p.Clips >= DefaultRollouts {
		more = fmt.Sprintf("more than %d clips need more rollouts per seed, Config.Clips, or longer ones", d)
	}
	switch {
	case n > d && (nt == 0 || nt > d):
		return fmt.Sprintf("FVD rests on %s, above the features' %d dimensions.", on, d)
	case n > d:
		return fmt.Sprintf("FVD rests on %d clips per side, above the features' %d dimensions; each chunk of FVD over time on %d, no more than the dimensions: "+
			"their feature covariances are singular, so FVD over time is not well posed (%s).", n, d, nt, more)
	}
	return fmt.Sprintf("FVD rests on %s in %d feature dimensions: no more clips than dimensions make the feature covariances singular, "+
		"so these FVDs are not well posed (%s).", on, d, more)
}

// andList is "2", "2 and 1", or "10, 20 and 40".
func andList(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
