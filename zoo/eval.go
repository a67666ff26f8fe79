package zoo

import (
	"fmt"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// EvalConfig configures Evaluate: rolling rollouts of a model over validation clips' actions.
// Zero fields take the defaults in brackets.
type EvalConfig struct {
	Clips  int    `json:"clips"`  // rollouts, one per validation clip [8]
	Frames int    `json:"frames"` // generated frames per rollout [100]
	Depth  int    `json:"depth"`  // steps per frame D [20]
	Stride int    `json:"stride"` // frames emitted at a time S [the horizon: chunk by chunk]
	Chunk  int    `json:"chunk"`  // frames per drift chunk [25]
	Seed   uint64 `json:"seed"`   // clips and noise [7]
	// Sampler is the per-frame rule [DefaultSampler of the model's objective]; its Depth is
	// set from Depth.
	Sampler *eqflib.FrameSampler `json:"-"`
	// Name labels the sampler in the results [the sampler's name].
	Name string `json:"-"`
	// Guidance > 0 samples with classifier-free guidance of this weight on the actions
	// (eqflib.Guide: two network evaluations per step) [0: none].
	Guidance float64 `json:"guidance,omitempty"`
}

// WithDefaults is c with its zero fields set to the defaults in brackets.
func (c EvalConfig) WithDefaults() EvalConfig {
	if c.Clips == 0 {
		c.Clips = 8
	}
	if c.Frames == 0 {
		c.Frames = 100
	}
	if c.Depth == 0 {
		c.Depth = 20
	}
	if c.Chunk == 0 {
		c.Chunk = 25
	}
	if c.Seed == 0 {
		c.Seed = 7
	}
	return c
}

// DefaultSampler is the sampler a zoo model is evaluated with: closed-loop NAG (μ = 0.3, the
// c-function warp) for a model with h_ω, open-loop NAG for EqM without one, FM Euler for FM and
// DDIM for Diffusion.
func DefaultSampler(m *Model) (eqflib.FrameSampler, string) {
	c, _ := eqflib.ParseWarp("c:0.8:0.001")
	switch {
	case m == nil || m.DiT == nil:
		return eqflib.FrameSampler{}, "no model"
	case m.DiT.Info().Diffusion:
		return eqflib.FrameSampler{Sampler: eqflib.DDIM}, "DDIM"
	case m.DiT.NoiseConditional:
		return eqflib.FrameSampler{Sampler: eqflib.Euler}, "FM Euler"
	case m.DiT.HasReadout():
		return eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: c, ClosedLoop: true, Momentum: 0.3}}, "NAG μ=0.3 closed loop"
	default:
		return eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: c, Momentum: 0.3}}, "NAG μ=0.3 open loop"
	}
}

// EvalSampler is a sampler a zoo model is evaluated with: Key names it in card metrics.
type EvalSampler struct {
	Key, Name string
	Sampler   eqflib.FrameSampler
	Guidance  float64 // classifier-free guidance weight (EvalConfig.Guidance; 0: none)
}

// Samplers are the samplers a zoo model's card reports: the default one and, for a model with
// h_ω, also open-loop GD on the c-function warp (the paper's "EqF GD"); with guidance > 0,
// each of them again with classifier-free guidance of that weight (key suffix "_w" and the
// weight, e.g. "nag_closed_w3").
func Samplers(m *Model, guidance float64) []EvalSampler {
	fs, name := DefaultSampler(m)
	key := map[string]string{"ddim": "ddim", "euler": "euler", "nag": "nag"}[fs.Sampler.Name()]
	if fs.ClosedLoop {
		key += "_closed"
	}
	out := []EvalSampler{{Key: key, Name: name, Sampler: fs}}
	if m != nil && m.DiT != nil && m.DiT.HasReadout() {
		c, _ := eqflib.ParseWarp("c:0.8:0.001")
		out = append(out, EvalSampler{Key: "gd_open", Name: "GD open loop", Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: c}}})
	}
	if guidance > 0 {
		for _, es := range out {
			es.Key += fmt.Sprintf("_w%g", guidance)
			es.Guidance = guidance
			out = append(out, es)
		}
	}
	return out
}

// Quality is how well a model rolls out: the measures of eqflib's quality.go and FVD.
type Quality struct {
	Model     string                       `json:"model"`
	Sampler   string                       `json:"sampler"`
	Agreement eqflib.ActionAgreementResult `json:"action_agreement"`
	Drift     []float64                    `json:"colour_drift"` // per Chunk frames
	// RealDrift is the colour drift of real clips of another seed (EvalConfig.Seed + 1) against
	// the same real continuation: what a model that draws the world's frames, but not these
	// clips', would score (the scale that Drift reads against).
	RealDrift  []float64         `json:"colour_drift_real,omitempty"`
	DriftRatio float64           `json:"drift_ratio"`  // largest chunk's drift / the first chunk's
	NextChunk  eqflib.ChunkError `json:"next_chunk"`   // teacher-forced, one horizon
	FVD        float64           `json:"fvd_maze_i3d"` // over 10-frame clips
	// Seams is eqflib.PatchSeams of the rollout on the backbone's patch grid (≈ 1: no grid shows),
	// RealSeams the same of the real continuation (both 0 when the frame has fewer than two
	// patches a side, or the patch is one pixel).
	Seams       float64        `json:"patch_seams,omitempty"`
	RealSeams   float64        `json:"patch_seams_real,omitempty"`
	NFEPerFrame float64        `json:"nfe_per_frame"`
	Seconds     float64        `json:"seconds"`
	Rollout     *eqflib.Window `json:"-"` // generated frames [Clips, Frames, …], normalised
	Truth       *eqflib.Window `json:"-"` // the real continuation
}

func (q *Quality) String() string {
	if len(q.Drift) == 0 {
		return fmt.Sprintf("%s, %s: not scored", q.Model, q.Sampler)
	}
	seams := ""
	if q.Seams > 0 {
		seams = fmt.Sprintf(", patch seams %.2f (real %.2f)", q.Seams, q.RealSeams)
	}
	other := ""
	if len(q.RealDrift) > 0 {
		other = fmt.Sprintf(", other real clips %.3f→%.3f", q.RealDrift[0], q.RealDrift[len(q.RealDrift)-1])
	}
	return fmt.Sprintf("%s, %s: agreement %.2f (balanced acc. %.3f / %.3f), drift %.3f→%.3f (max/first %.2f%s)%s, next-chunk PSNR %.2f dB, FVD %.1f, %.1f NFE/frame, %.0f s",
		q.Model, q.Sampler, q.Agreement.Ratio, q.Agreement.Generated, q.Agreement.Real, q.Drift[0], q.Drift[len(q.Drift)-1], q.DriftRatio, other, seams,
		q.NextChunk.PSNR, q.FVD, q.NFEPerFrame, q.Seconds)
}

// Evaluate rolls the model out over real validation clips of the recipe's world (Clips.Roll:
// the clip's first Context frames as context, its actions as conditions) and scores the
// rollouts (Clips.Score: action agreement with the action net, colour drift per chunk against
// the real continuation, FVD in the action net's features over 10-frame clips) and the
// teacher-forced next-chunk error.
func (z *Zoo) Evaluate(m *Model, net *eqflib.ActionNet, c EvalConfig) (*Quality, error) {
	if m == nil || m.DiT == nil {
		return nil, fmt.Errorf("zoo: Evaluate: m is nil: load a model (Zoo.Load)")
	}
	if net == nil {
		return nil, fmt.Errorf("zoo: Evaluate: net is nil: the action net scores agreement (Zoo.LoadActionNet)")
	}
	if err := z.Recipe.Validate(); err != nil {
		return nil, err
	}
	c = c.WithDefaults()
	r := z.Recipe
	C, H := r.Context, r.Frames-r.Context
	if c.Stride == 0 {
		// Chunk by chunk: every horizon frame is denoised together from noise. On the cpu
		// recipe's models this beats the rolling staircase (S = 1) clearly — action agreement
		// 0.58 against 0.48 for closed-loop NAG (docs/zoo.md).
		c.Stride = H
	}
	R := c.Frames
	if R < c.Chunk || R%c.Stride != 0 {
		return nil, fmt.Errorf("zoo: EvalConfig.Frames = %d out of range: must be ≥ Chunk = %d and a multiple of Stride = %d", R, c.Chunk, c.Stride)
	}
	var f eqflib.Field = m.DiT
	evals := 1.0 // network evaluations per sampler step
	if c.Guidance != 0 {
		var err error
		if f, err = eqflib.Guide(m.DiT, c.Guidance); err != nil {
			return nil, fmt.Errorf("zoo: EvalConfig.Guidance = %g: %w", c.Guidance, err)
		}
		evals = 2
	}
	fs, name := DefaultSampler(m)
	if c.Sampler != nil {
		fs, name = *c.Sampler, c.Sampler.String()
	}
	if c.Name != "" {
		name = c.Name
	}
	cl, err := z.Clips(m.Stats, c.Clips, R, c.Seed)
	if err != nil {
		return nil, err
	}
	geom := z.Geometry(c.Depth, c.Stride)
	if c.Guidance != 0 {
		name = fmt.Sprintf("%s, guidance %g", name, c.Guidance)
	}
	start := time.Now()
	res, err := cl.Roll(f, eqflib.RollOptions{RollConfig: geom, Sampler: fs, Seed: c.Seed})
	if err != nil {
		return nil, err
	}
	q := &Quality{Model: m.Spec.Name, Sampler: name, NFEPerFrame: evals * res.NFEPerFrame(), Rollout: res.Frames, Truth: cl.Truth}
	s, err := cl.Score(net, res.Frames, ScoreConfig{FVDClip: 10, Chunk: c.Chunk})
	if err != nil {
		return nil, err
	}
	q.Agreement, q.Drift, q.DriftRatio, q.FVD = s.Agreement, s.Drift, s.DriftRatio, s.FVD
	if len(q.Drift) > 0 { // the drift's scale: real clips of the next seed
		other, err := z.Clips(m.Stats, c.Clips, R, c.Seed+1)
		if err != nil {
			return nil, err
		}
		if q.RealDrift, err = eqflib.ColourDrift(denormalise(other.Truth, other.Stats), denormalise(cl.Truth, cl.Stats), c.Chunk, 0, 1); err != nil {
			return nil, err
		}
	}
	if seams, err := eqflib.PatchSeams(res.Frames, m.DiT.Config.Patch); err == nil { // no grid to measure below two patches a side
		q.Seams = seams
		q.RealSeams, _ = eqflib.PatchSeams(cl.Truth, m.DiT.Config.Patch)
	}

	// Teacher-forced next chunk: real context, one horizon generated.
	const d = CondDim
	first, _ := cl.All.SliceFrames(0, C+H)
	fcond := make([]float64, 0, c.Clips*(C+H)*d)
	for b := 0; b < c.Clips; b++ {
		fcond = append(fcond, cl.Cond[b*(C+R)*d:(b*(C+R)+C+H)*d]...)
	}
	nc := geom
	nc.Stride = H // one chunk: the whole horizon at once, each frame in Depth steps
	if q.NextChunk, err = eqflib.NextChunkError(f, first, fcond, eqflib.RollOptions{RollConfig: nc, Sampler: fs, CondDim: d, Seed: c.Seed + 1}, 4); err != nil {
		return nil, err
	}
	q.Seconds = time.Since(start).Seconds()
	return q, nil
}
