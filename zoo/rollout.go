package zoo

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// The rollout protocol every evaluation shares (the zoo's cards, the paper's experiments, `eqf
// compare`, the notebooks): real validation clips give the context and the actions (Clips),
// a model rolls out under those actions (Clips.Roll), and the rollout is measured against the
// clips' real continuation (Clips.Score).

// CondDim is the maze's per-frame condition size (one-hot actions).
const CondDim = 3

// Clips are real validation clips of a world: the first C frames are a rollout's context, the
// next R frames the real continuation, and the clip's actions condition both.
type Clips struct {
	All     *eqflib.Window // [B, C + R, ch, h, w], normalised with the model's statistics
	Context *eqflib.Window // [B, C, …] (C = 0: nil)
	Truth   *eqflib.Window // [B, R, …]
	Cond    []float64      // [B, C + R, CondDim]: the actions taken into each frame
	CondDim int            // actions per frame (the maze's: the package's CondDim)
	C, R    int            // context and continuation lengths
	Stats   data.Stats     // the normalisation (pixels = x·Std + Mean per channel)

	real *realSide // what Score computed of the real side (NewClips makes it; nil: none kept)
}

// Geometry is the rolling geometry of the recipe's models: C context frames, horizon H = the
// window's other frames, stride S (0: H, chunk by chunk; 1: the paper's staircase, App. D) and
// depth D steps per frame.
func (z *Zoo) Geometry(depth, stride int) eqflib.RollConfig {
	r := z.Recipe
	H := r.Frames - r.Context
	if stride == 0 {
		stride = H
	}
	return eqflib.RollConfig{Context: r.Context, Horizon: H, Stride: stride, Depth: depth}
}

// OpenTrained opens the paper recipe's zoo (DefaultRecipe, training seed 1) when it has every
// named model and the action net trained (`make models`), and otherwise the quick zoo, training
// there what it lacks (tiny models: about a minute the first time, instant afterwards). The
// zoo's Recipe.Name says which: what a notebook cell rolls out without asking for a zoo.
func OpenTrained(names ...string) (*Zoo, error) {
	names = append([]string{"action-net"}, names...)
	z, err := Open(DefaultRecipe)
	if err != nil {
		return nil, err
	}
	trained := true
	for _, n := range names {
		if _, err := SpecByName(n); err != nil {
			return nil, err
		}
		if _, err := z.Card(n); err != nil {
			trained = false
		}
	}
	if trained {
		return z, nil
	}
	if z, err = Open("quick"); err != nil {
		return nil, err
	}
	if err := z.Build(names...); err != nil {
		return nil, err
	}
	return z, nil
}

// Clips renders n validation clips of the recipe's world, each Context + frames long,
// normalised with st (NewClips).
func (z *Zoo) Clips(st data.Stats, n, frames int, seed uint64) (*Clips, error) {
	r := z.Recipe
	return NewClips(data.NewMaze(r.World), st, n, r.Context, frames, r.Size, seed)
}

// NewClips renders n validation clips of world (seeded seed·1000 + 2i + 1, never a training
// clip's seed), each context + frames long at size×size pixels, normalised with st.
func NewClips(world data.World, st data.Stats, n, context, frames, size int, seed uint64) (*Clips, error) {
	switch {
	case world == nil:
		return nil, fmt.Errorf("zoo: NewClips: world is nil")
	case n < 1 || frames < 1:
		return nil, fmt.Errorf("zoo: NewClips(n = %d, frames = %d): both must be ≥ 1", n, frames)
	case context < 0:
		return nil, fmt.Errorf("zoo: NewClips: context = %d out of range: must be ≥ 0", context)
	}
	clips := make([]*data.Clip, n)
	var err error
	for i := range clips {
		if clips[i], err = data.RenderClip(world, seed*1000+uint64(2*i+1), context+frames, size, size); err != nil {
			return nil, err
		}
	}
	return NewClipsFrom(clips, st, context, frames)
}

// NewClipsFrom makes Clips of the first context + frames frames of each of your clips (a clip
// shorter is an error naming it), normalised with st: rollouts over clips of your own data.
func NewClipsFrom(clips []*data.Clip, st data.Stats, context, frames int) (*Clips, error) {
	switch {
	case len(clips) < 1 || frames < 1:
		return nil, fmt.Errorf("zoo: NewClipsFrom(%d clips, frames = %d): both must be ≥ 1", len(clips), frames)
	case context < 0:
		return nil, fmt.Errorf("zoo: NewClipsFrom: context = %d out of range: must be ≥ 0", context)
	}
	T := context + frames
	heads := make([]*data.Clip, len(clips))
	for i, c := range clips {
		if c == nil || c.Frames < T {
			n := 0
			if c != nil {
				n = c.Frames
			}
			return nil, fmt.Errorf("zoo: NewClipsFrom: clip %d has %d frames: must have context + frames = %d", i, n, T)
		}
		heads[i] = c.Head(T)
	}
	ds, err := data.NewClipDataset(heads, T, T, &st)
	if err != nil {
		return nil, fmt.Errorf("zoo: NewClipsFrom: %w", err)
	}
	idx := make([]int, len(heads))
	for i := range idx {
		idx[i] = i
	}
	gt, cond, err := eqflib.LoadBatch(ds, idx)
	if err != nil {
		return nil, err
	}
	c := &Clips{All: gt, Cond: cond, CondDim: heads[0].CondDim, C: context, R: frames, Stats: st, real: newRealSide()}
	if context > 0 {
		c.Context, _ = gt.SliceFrames(0, context)
	}
	c.Truth, _ = gt.SliceFrames(context, frames)
	return c, nil
}

// Timeline is the conditions of a rollout with horizon H and stride S over these clips:
// [B, C + R + H − S, CondDim], the clip's actions with the last one repeated past its end.
func (c *Clips) Timeline(H, S int) []float64 {
	if c.All == nil {
		return nil // the zero Clips (Zoo.Clips builds them)
	}
	if c.CondDim == 0 {
		return nil // clips without actions
	}
	out, _ := eqflib.ExtendConditions(c.Cond, c.All.Batch(), c.C+c.R, c.C+c.R+H-S, c.CondDim) // nil when C + R + H − S < 1
	return out
}

// Roll rolls f out over the clips: their context frames as context, their actions as
// conditions (o.Conditions, o.CondDim and o.Frames are set here: R frames), o's geometry,
// sampler, seed and trace as given.
func (c *Clips) Roll(f eqflib.Field, o eqflib.RollOptions) (*eqflib.Rollout, error) {
	if c == nil || c.All == nil {
		return nil, fmt.Errorf("zoo: Clips.Roll: no clips (build them with Zoo.Clips or NewClips)")
	}
	o.Frames, o.Conditions, o.CondDim = c.R, c.Timeline(o.Horizon, o.Stride), c.CondDim
	ctx := c.Context
	if c.C == 0 {
		ctx, _ = c.All.SliceFrames(0, 1) // no context: a template of the batch and frame shape
	}
	return eqflib.Roll(f, ctx, o)
}

// Transitions returns the generated frames preceded by the last context frame, and the
// conditions of those C − 1 … C + R − 1 frames: what ActionAgreement reads for R transitions.
func (c *Clips) Transitions(gen *eqflib.Window) (*eqflib.Window, []float64) {
	if c.All == nil || c.Context == nil || gen == nil || gen.Batch() != c.All.Batch() {
		return nil, nil // the zero Clips, clips without context, or frames of another batch
	}
	B, C, R, d := c.All.Batch(), c.C, c.R, c.CondDim
	last, _ := c.Context.SliceFrames(C-1, 1)
	cond := make([]float64, 0, B*(R+1)*d)
	for b := 0; b < B; b++ {
		cond = append(cond, c.Cond[(b*(C+R)+C-1)*d:(b+1)*(C+R)*d]...)
	}
	return concatFrames(last, gen), cond
}

// ScoreConfig says how Score measures a rollout; zero fields take the defaults in brackets.
type ScoreConfig struct {
	FVDClip int // FVD over non-overlapping subclips of this many frames [10]
	// Chunk is the frames per chunk of FVD over time (each chunk cut into 5-frame subclips, so
	// a chunk's FVD rests on B·Chunk/5 clips per side; the paper's Fig. 3 right) and of colour
	// drift [25].
	Chunk int
}

func (sc ScoreConfig) withDefaults() ScoreConfig {
	if sc.FVDClip == 0 {
		sc.FVDClip = 10
	}
	if sc.Chunk == 0 {
		sc.Chunk = 25
	}
	return sc
}

// Scores are one rollout's measures against the clips' real continuation.
type Scores struct {
	FVD         float64                      `json:"fvd"`           // in the action net's features (without one, ScoreFeatures'), over ScoreConfig.FVDClip-frame subclips
	FVDOverTime []float64                    `json:"fvd_over_time"` // per Chunk frames (only whole chunks)
	Agreement   eqflib.ActionAgreementResult `json:"action_agreement"`
	Drift       []float64                    `json:"colour_drift,omitempty"` // colour drift per Chunk frames (eqflib.ColourDrift; none when R < Chunk)
	DriftRatio  float64                      `json:"drift_ratio,omitempty"`  // largest chunk's drift / the first chunk's
	PSNR        float64                      `json:"psnr"`                   // dB over every frame, on standardised values (±2 as the range)
	Flicker     float64                      `json:"flicker"`
}

// Score measures generated frames gen [B, R, …] (normalised like the clips) against the clips'
// real continuation: FVD and FVD over time in the action net's features, action agreement
// (the action net reading the generated transitions against the real ones), colour drift,
// PSNR and flicker. Clips made by NewClips keep what it computes of their real side for the
// next rollout scored against them (the same numbers, about half the network work; realSide).
//
// Without an action net (net nil: clips of your own data or of another world, which the maze's
// net does not read) FVD is in pooled pixels' features (ScoreFeatures) and there is no action
// agreement.
func (c *Clips) Score(net *eqflib.ActionNet, gen *eqflib.Window, sc ScoreConfig) (*Scores, error) {
	switch {
	case c == nil || c.All == nil:
		return nil, fmt.Errorf("zoo: Clips.Score: no clips (build them with Zoo.Clips or NewClips)")
	case gen == nil || gen.Batch() != c.Truth.Batch() || gen.Frames() != c.R:
		return nil, fmt.Errorf("zoo: Clips.Score: gen must be [%d, %d, …] (the clips' batch and continuation)", c.Truth.Batch(), c.R)
	}
	sc = sc.withDefaults()
	switch {
	case sc.FVDClip < 1 || sc.FVDClip > c.R:
		return nil, fmt.Errorf("zoo: ScoreConfig.FVDClip = %d out of range: must be in [1, %d] (the rollout's frames)", sc.FVDClip, c.R)
	case sc.Chunk < 5:
		return nil, fmt.Errorf("zoo: ScoreConfig.Chunk = %d out of range: must be ≥ 5 (each chunk is cut into 5-frame clips)", sc.Chunk)
	}
	s := &Scores{}
	rs := c.real.of(c, net) // the real side: computed once per action net and clips
	g, err := gen.Subclips(sc.FVDClip)
	if err != nil {
		return nil, fmt.Errorf("zoo: ScoreConfig.FVDClip: %w", err)
	}
	if s.FVD, err = rs.fvd(g, 0, c.R, sc.FVDClip); err != nil {
		return nil, err
	}
	for c0 := 0; c0+sc.Chunk <= c.R; c0 += sc.Chunk {
		g, _ := gen.SliceFrames(c0, sc.Chunk)
		if g, err = g.Subclips(5); err != nil {
			return nil, fmt.Errorf("zoo: ScoreConfig.Chunk: %w", err)
		}
		f, err := rs.fvd(g, c0, sc.Chunk, 5)
		if err != nil {
			return nil, err
		}
		s.FVDOverTime = append(s.FVDOverTime, f)
	}
	if s.Flicker, err = eqflib.Flicker(gen); err != nil {
		return nil, err
	}
	if gx, gc := c.Transitions(gen); gx != nil && net != nil {
		r, err := rs.accuracy()
		if err != nil {
			return nil, fmt.Errorf("real: %w", err)
		}
		if s.Agreement, err = eqflib.ActionAgreementAgainst(net, gx, gc, r); err != nil {
			return nil, err
		}
	}
	if c.R >= sc.Chunk {
		if s.Drift, err = eqflib.ColourDrift(denormalise(gen, c.Stats), denormalise(c.Truth, c.Stats), sc.Chunk, 0, 1); err != nil {
			return nil, err
		}
		worst := 0.0
		for _, v := range s.Drift {
			worst = math.Max(worst, v)
		}
		s.DriftRatio = worst / math.Max(s.Drift[0], 1e-9)
	}
	mse, err := eqflib.FrameMSE(gen, c.Truth)
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, v := range mse {
		sum += v
	}
	psnr, err := eqflib.PSNR([]float64{sum / float64(len(mse))}, 4) // standardised data: ±2 std as the range
	if err != nil {
		return nil, err
	}
	s.PSNR = psnr[0]
	return s, nil
}

// realSide keeps what Score computes of the clips' real side, the same for every rollout
// scored against them: the action net's features of the real continuation's subclips (FVD and
// FVD over time) and its balanced accuracy on the real transitions (action agreement), about
// half of scoring's network work. It keeps them for one action net, at its training step, and
// for the clips' frames and actions as they were (a hash), and starts afresh when any of them
// changes: another net, a net trained further, clips changed in place. The numbers are those
// computed without it, bit for bit (the same network on the same inputs).
type realSide struct {
	mu      sync.Mutex
	seed    maphash.Seed
	id      realID // whose entries these are
	entries map[realSpan]realEntry
}

// realID is what the kept entries were computed for.
type realID struct {
	net  *eqflib.ActionNet
	step int    // net.Step
	sum  uint64 // a hash of the real frames, the context and the actions
}

// realSpan names an entry: frames [from, from + frames) of the real continuation cut into
// clip-frame subclips (features), or clip = 0: the real transitions (balanced accuracy).
type realSpan struct{ from, frames, clip int }

type realEntry struct {
	feats [][]float64
	acc   float64
}

func newRealSide() *realSide { return &realSide{seed: maphash.MakeSeed()} }

func (r *realSide) get(id realID, s realSpan) (realEntry, bool) {
	if r == nil {
		return realEntry{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id != id {
		return realEntry{}, false
	}
	e, ok := r.entries[s]
	return e, ok
}

func (r *realSide) put(id realID, s realSpan, e realEntry) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.id != id || r.entries == nil {
		r.id, r.entries = id, map[realSpan]realEntry{}
	}
	r.entries[s] = e
}

// realScorer is the real side of one Score call: clips c scored in feat's features, those of
// net id.net or, without one, ScoreFeatures.
type realScorer struct {
	side *realSide // nil: nothing kept
	c    *Clips
	id   realID
	feat eqflib.FeatureExtractor
}

// of returns the real side of clips c for net (r nil: computed on every call).
func (r *realSide) of(c *Clips, net *eqflib.ActionNet) realScorer {
	rs := realScorer{side: r, c: c, id: realID{net: net}, feat: net}
	if net != nil {
		rs.id.step = net.Step
	} else {
		rs.feat = c.ScoreFeatures()
	}
	if r == nil {
		return rs
	}
	var h maphash.Hash
	h.SetSeed(r.seed)
	buf := make([]byte, 0, 8<<10)
	write := func(v []float64) {
		for _, x := range v {
			if buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x)); len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
	}
	write(c.Truth.Data)
	if c.Context != nil {
		write(c.Context.Data)
	}
	write(c.Cond)
	h.Write(buf)
	for _, d := range c.Truth.Shape {
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(d)))
	}
	rs.id.sum = h.Sum64()
	return rs
}

// fvd is the Fréchet distance between the features of gen (subclips) and of frames
// [from, from + frames) of the real continuation cut into clip-frame subclips (eqflib.ComputeFVD's
// value).
func (rs realScorer) fvd(gen *eqflib.Window, from, frames, clip int) (float64, error) {
	a, err := rs.feat.Features(gen)
	if err != nil {
		return 0, err
	}
	s := realSpan{from, frames, clip}
	e, ok := rs.side.get(rs.id, s)
	if !ok {
		t, err := rs.c.Truth.SliceFrames(from, frames)
		if err == nil {
			t, err = t.Subclips(clip)
		}
		if err != nil {
			return 0, err
		}
		if e.feats, err = rs.feat.Features(t); err != nil {
			return 0, err
		}
		rs.side.put(rs.id, s, e)
	}
	return eqflib.FrechetFeatures(a, e.feats)
}

// accuracy is the action net's balanced accuracy on the real transitions (the last context
// frame, then the real continuation).
func (rs realScorer) accuracy() (float64, error) {
	s := realSpan{0, rs.c.R, 0}
	if e, ok := rs.side.get(rs.id, s); ok {
		return e.acc, nil
	}
	rx, rc := rs.c.Transitions(rs.c.Truth)
	a, err := eqflib.BalancedActionAccuracy(rs.id.net, rx, rc)
	if err != nil {
		return 0, err
	}
	rs.side.put(rs.id, s, realEntry{acc: a})
	return a, nil
}

// ScoreFeatures are the features Score computes FVD in without an action net: the frames
// average-pooled to 4×4 (eqflib.PixelFeatures), or to 2×2 or 1×1 where 4 does not divide their
// size.
func (c *Clips) ScoreFeatures() eqflib.PixelFeatures {
	if c == nil || c.All == nil {
		return eqflib.PixelFeatures{Size: 4}
	}
	h, w := c.All.Shape[3], c.All.Shape[4]
	for _, s := range []int{4, 2} {
		if h%s == 0 && w%s == 0 {
			return eqflib.PixelFeatures{Size: s}
		}
	}
	return eqflib.PixelFeatures{Size: 1}
}

// concatFrames joins a [B, Ta, …] and b [B, Tb, …] along time.
func concatFrames(a, b *eqflib.Window) *eqflib.Window {
	B, Ta, Tb, fs := a.Batch(), a.Frames(), b.Frames(), a.FrameSize()
	out := eqflib.MustNewWindow(B, Ta+Tb, a.Shape[2], a.Shape[3], a.Shape[4])
	for i := 0; i < B; i++ {
		copy(out.Data[i*(Ta+Tb)*fs:], a.Data[i*Ta*fs:(i+1)*Ta*fs])
		copy(out.Data[(i*(Ta+Tb)+Ta)*fs:], b.Data[i*Tb*fs:(i+1)*Tb*fs])
	}
	return out
}

// denormalise maps a normalised window back to pixels in [0, 1].
func denormalise(x *eqflib.Window, st data.Stats) *eqflib.Window {
	hw := x.Shape[3] * x.Shape[4]
	return &eqflib.Window{Shape: x.Shape, Data: st.Denormalise(x.Data, hw)}
}
