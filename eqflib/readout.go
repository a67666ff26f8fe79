package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/nn"
)

// The readout h_ω (paper §4.3, App. F.1): it reads a frozen denoiser's activations z (every block,
// already mean-pooled over each frame's spatial tokens by the backbone) and predicts logit(σ)
// per frame: shared LayerNorm + linear projection to ReadoutProj → learned softmax mixing of the
// layers → LayerNorm → Linear → SiLU → Linear → logit σ. σ̂ = sigmoid(logit). (The paper's text
// calls h_ω a 260k-parameter CNN; the authors' release builds this pooled
// readout, which is what is built here.)

// DefaultReadoutProj is the readout's projection width (256 in the authors' release).
const DefaultReadoutProj = 256

const readoutScope = "/readout"

// readoutLogit is h_ω: z (Depth × [B, T, D]) → logit σ [B, T].
func readoutLogit(scope *model.Scope, z []*Node, proj int) *Node {
	g := z[0].Graph()
	dt := z[0].DType()
	d := z[0].Shape().Dimensions[2]
	ad := scope.In("adapter")
	gamma := ad.WithInitializer(initializer.One).VariableWithShape("ln_gamma", shapes.Make(dt, d)).NodeValue(g)
	beta := ad.WithInitializer(initializer.Zero).VariableWithShape("ln_beta", shapes.Make(dt, d)).NodeValue(g)
	mixLogits := scope.WithInitializer(initializer.Zero).VariableWithShape("mix_logits", shapes.Make(dt, len(z))).NodeValue(g)
	mix := Softmax(mixLogits, 0) // [L]
	projScope := ad.In("proj")   // one projection shared by every layer
	var mixed *Node
	for l, zl := range z {
		h := nn.LayerNorm(zl, []int{2}, 1e-5, gamma, beta, nil) // [B, T, D], shared across layers
		h = dense(projScope, h, proj, false)                    // [B, T, proj], shared across layers
		wl := Slice(mix, AxisElem(l))                           // [1]
		h = Mul(h, BroadcastToDims(Reshape(wl, 1, 1, 1), h.Shape().Dimensions...))
		if mixed == nil {
			mixed = h
		} else {
			mixed = Add(mixed, h)
		}
	}
	ms := scope.In("mlp")
	mg := ms.WithInitializer(initializer.One).VariableWithShape("ln_gamma", shapes.Make(dt, proj)).NodeValue(g)
	mb := ms.WithInitializer(initializer.Zero).VariableWithShape("ln_beta", shapes.Make(dt, proj)).NodeValue(g)
	h := nn.LayerNorm(mixed, []int{2}, 1e-5, mg, mb, nil)
	h = activation.Swish(dense(ms.In("fc1"), h, proj, false)) // SiLU
	out := dense(ms.In("fc2"), h, 1, false)                   // [B, T, 1]
	return Reshape(out, out.Shape().Dimensions[0], out.Shape().Dimensions[1])
}

// ProbeConfig trains a noise-level predictor (h_ω or g_φ): AdamW on logit-space MSE.
type ProbeConfig struct {
	Batch  int
	LR     float64
	Warmup int
	Seed   uint64
	Proj   int // h_ω's projection width (0: DefaultReadoutProj)
}

// DefaultProbeConfig is the "paper" training preset's readout setting: batch 8, lr 1e-3, 50
// warm-up steps.
func DefaultProbeConfig() ProbeConfig { return TrainPresets["paper"].Readout }

func (c ProbeConfig) validate() error {
	switch {
	case c.Batch < 1:
		return paramErr("ProbeConfig.Batch", c.Batch, "≥ 1")
	case !(c.LR > 0):
		return paramErr("ProbeConfig.LR", c.LR, "> 0")
	case c.Warmup < 1:
		return paramErr("ProbeConfig.Warmup", c.Warmup, "≥ 1")
	case c.Proj < 0:
		return paramErr("ProbeConfig.Proj", c.Proj, "≥ 0 (0 means DefaultReadoutProj)")
	}
	return nil
}

// noisyFrames draws a batch of windows and noises every frame with its own σ ~ U[0, 1].
func noisyFrames(ds Dataset, rng *rand.Rand, batch int) (xs *Window, sigma, cond []float64, err error) {
	idx := make([]int, batch)
	for i := range idx {
		idx[i] = rng.IntN(ds.Len())
	}
	x, cond, err := LoadBatch(ds, idx)
	if err != nil {
		return nil, nil, nil, err
	}
	if sigma, err = SampleSigmaIndependent(rng, x.Shape[0], x.Shape[1]); err != nil {
		return nil, nil, nil, err
	}
	eps, err := Randn(rng, x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4])
	if err != nil {
		return nil, nil, nil, err
	}
	xs, err = Noise(x, eps, sigma)
	return xs, sigma, cond, err
}

// ReadoutTrainer trains h_ω on a frozen DiT: the backbone's EMA weights (so train it after the
// backbone) with a fresh optimiser; only the readout's variables change.
type ReadoutTrainer struct {
	Model   *DiT
	Data    Dataset
	Config  ProbeConfig
	Step    int
	History []float64 // logit-space MSE per step

	rng  *rand.Rand
	exec *model.Exec
}

// NewReadoutTrainer prepares h_ω training on m (which must have EMA weights, i.e. have been
// trained by a Trainer or loaded from its checkpoint).
func NewReadoutTrainer(m *DiT, ds Dataset, cfg ProbeConfig) (rt *ReadoutTrainer, err error) {
	defer catch(&err)
	if m == nil {
		return nil, paramErr("m", "nil", "a *DiT")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Proj == 0 {
		cfg.Proj = DefaultReadoutProj
	}
	if ds == nil {
		return nil, paramErr("ds", "nil", "a Dataset")
	}
	if err := checkDatasetShape("ds", ds, m.Config); err != nil {
		return nil, err
	}
	if m.Store.GetVariable(emaPrefix+"/dit/head/weights") == nil {
		return nil, paramErr("m", "no EMA weights", "a DiT trained by a Trainer (or loaded from its checkpoint)")
	}
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	rt = &ReadoutTrainer{Model: m, Data: ds, Config: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x4ead))}
	rt.exec, err = model.NewExec(backend, m.Store, func(scope *model.Scope, xs, sigma, cond *Node) *Node {
		keepVariablesAsParameters(scope, xs.Graph())
		store := scope.Store()
		c := cond
		if m.Config.CondDim == 0 {
			c = nil
		}
		_, z := m.Config.Forward(store.Scope(emaPrefix).In("dit"), xs, ZerosLike(sigma), c)
		for i := range z {
			z[i] = StopGradient(z[i]) // the backbone stays frozen
		}
		logit := readoutLogit(store.Scope(readoutScope), z, cfg.Proj)
		loss := ReduceAllMean(Square(Sub(logit, LogitGraph(sigma))))
		applyAdamW(store, variablesUnder(store, readoutScope+"/"), loss, optimConfig{LR: cfg.LR, Warmup: cfg.Warmup,
			Beta1: DefaultBeta1, Beta2: DefaultBeta2, Eps: DefaultAdamEps, ClipNorm: DefaultClipNorm}, "/readout_opt")
		return loss
	})
	return rt, err
}

// variablesUnder lists the float variables whose path starts with prefix, excluding optimiser
// state (the readout's variables are created during the first graph build, before this runs).
func variablesUnder(store *model.Store, prefix string) []*model.Variable {
	var out []*model.Variable
	for v := range store.IterVariables() {
		if strings.HasPrefix(v.Path(), prefix) && v.DType().IsFloat() {
			out = append(out, v)
		}
	}
	return out
}

// Train takes `steps` optimiser steps and returns the last loss.
func (rt *ReadoutTrainer) Train(steps int) (loss float64, err error) {
	defer catch(&err)
	for i := 0; i < steps; i++ {
		xs, sigma, cond, err := noisyFrames(rt.Data, rt.rng, rt.Config.Batch)
		if err != nil {
			return 0, err
		}
		B, T := xs.Shape[0], xs.Shape[1]
		dt := rt.Model.DType
		ct, err := condTensor(dt, cond, B, T, rt.Model.Config.CondDim)
		if err != nil {
			return 0, err
		}
		v, err := callFloats(rt.exec, dt, toTensorAs(dt, xs.Data, xs.Shape[:]...), toTensorAs(dt, sigma, B, T), ct)
		if err != nil {
			return 0, err
		}
		loss = v[0]
		rt.Step++
		rt.History = append(rt.History, loss)
	}
	return loss, nil
}

// AttachReadout makes the DiT (and views built from it afterwards, such as EMA()) return σ̂ =
// sigmoid(h_ω(z)) per frame when asked (EvalOptions.Readout), from the same forward pass. proj
// is h_ω's projection width; 0 takes it from the stored variables (a loaded checkpoint records
// it), and a non-zero width must match them.
func (d *DiT) AttachReadout(proj int) error {
	if proj < 0 {
		return paramErr("proj", proj, "≥ 0 (the readout's projection width; 0: the stored one)")
	}
	if d.Store == nil {
		return paramErr("DiT", "without weights", "a DiT from NewDiT or LoadDiT")
	}
	if !d.storesReadout() {
		return fmt.Errorf("eqflib: AttachReadout: this DiT has no h_ω variables: train one (NewReadoutTrainer) or load a checkpoint saved after training it")
	}
	if v := d.Store.GetVariable(readoutScope + "/mlp/ln_gamma"); v != nil {
		stored := v.Shape().Dimensions[0]
		if proj == 0 {
			proj = stored
		} else if proj != stored {
			return paramErr("proj", proj, fmt.Sprintf("%d, the width of the stored h_ω (or 0)", stored))
		}
	} else if proj == 0 {
		proj = DefaultReadoutProj
	}
	d.readoutProj = proj
	backend, err := Backend()
	if err != nil {
		return err
	}
	return d.buildExec(backend)
}

// DropReadout removes h_ω from the DiT: its variables and optimiser state are deleted and no
// readout is attached, so NewReadoutTrainer starts a fresh one (e.g. to measure how fast h_ω
// learns on a zoo backbone that already carries one, App. F.2). Views built earlier (EMA())
// keep the executors they compiled; build new ones afterwards.
func (d *DiT) DropReadout() (err error) {
	defer catch(&err)
	for _, scope := range []string{readoutScope, readoutScope + "_opt"} {
		if err := d.Store.DeleteVariablesInScope(scope); err != nil {
			return err
		}
	}
	if d.readoutProj == 0 {
		return nil
	}
	d.readoutProj = 0
	backend, err := Backend()
	if err != nil {
		return err
	}
	return d.buildExec(backend)
}

// HasReadout reports whether a readout is attached.
func (d *DiT) HasReadout() bool { return d.readoutProj > 0 }

// storesReadout reports whether the DiT's weights hold an h_ω (a checkpoint saved after
// training one), which AttachReadout(0) attaches.
func (d *DiT) storesReadout() bool {
	return d.Store != nil && d.Store.GetVariable(readoutScope+"/mix_logits") != nil
}

// ---------------------------------------------------------------------------------------------
// g_φ: the framewise noise-level predictor on noisy frames (paper §3, App. F.1): a small CNN with
// odd 3×3 kernels (stride 2) → global average pool → MLP → logit σ. It implements NoiseEstimator.

// NoisePredictor is g_φ with its own variables.
type NoisePredictor struct {
	Channels, Height, Width int
	Widths                  []int // conv channels per stage
	Store                   *model.Store
	DType                   dtypes.DType

	predict *model.Exec
	train   *model.Exec
	rng     *rand.Rand
	Config  ProbeConfig
	Step    int
	History []float64
}

// NewNoisePredictor builds g_φ for frames [C, H, W] with conv stages of the given widths
// (default {16, 32, 32}, chosen over {32, 64, 64}: docs/performance.md "Measurements").
func NewNoisePredictor(channels, height, width int, widths []int, cfg ProbeConfig, seed uint64) (p *NoisePredictor, err error) {
	defer catch(&err)
	if channels < 1 || height < 4 || width < 4 {
		return nil, paramErr("frame shape", fmt.Sprintf("[%d, %d, %d]", channels, height, width), "channels ≥ 1, height and width ≥ 4")
	}
	if len(widths) == 0 {
		widths = []int{16, 32, 32}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p = &NoisePredictor{Channels: channels, Height: height, Width: width, Widths: widths, Store: model.NewStore(), DType: dtypes.Float32,
		Config: cfg}
	if err := p.Store.SetRNGStateFromSeed(int64(seed)); err != nil {
		return nil, err
	}
	return p, p.compile()
}

func (p *NoisePredictor) compile() (err error) {
	backend, err := Backend()
	if err != nil {
		return err
	}
	cfg := p.Config
	p.rng = rand.New(rand.NewPCG(cfg.Seed, 0x9fee))
	if p.predict, err = model.NewExec(backend, p.Store, func(scope *model.Scope, frames *Node) *Node {
		keepVariablesAsParameters(scope, frames.Graph())
		return p.logit(scope.In("g"), frames)
	}); err != nil {
		return err
	}
	p.train, err = model.NewExec(backend, p.Store, func(scope *model.Scope, frames, sigma *Node) *Node {
		keepVariablesAsParameters(scope, frames.Graph())
		loss := ReduceAllMean(Square(Sub(p.logit(scope.In("g"), frames), LogitGraph(sigma))))
		applyAdamW(scope.Store(), variablesUnder(scope.Store(), "/g/"), loss, optimConfig{LR: cfg.LR, Warmup: cfg.Warmup,
			Beta1: DefaultBeta1, Beta2: DefaultBeta2, Eps: DefaultAdamEps, ClipNorm: DefaultClipNorm}, "/g_opt")
		return loss
	})
	return err
}

// Save writes g_φ atomically (the checkpoint format of checkpoint.go).
func (p *NoisePredictor) Save(path string) (err error) {
	defer catch(&err)
	net := NetConfig{Kind: "g-phi", Channels: p.Channels, Height: p.Height, Width: p.Width, Widths: p.Widths}
	file, err := encodeStore(ckptHeader{Step: p.Step, Objective: "g-phi", DType: p.DType.String(), Net: &net}, p.Store)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, file)
}

// LoadNoisePredictor reads a g_φ written by Save; a corrupt or truncated file is an error.
func LoadNoisePredictor(path string) (p *NoisePredictor, err error) {
	defer catch(&err)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("eqflib: g_φ %s: %w", path, err)
	}
	h, payload, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if h.Net == nil || h.Net.Kind != "g-phi" {
		return nil, fmt.Errorf("eqflib: %s is not a g_φ checkpoint", path)
	}
	p = &NoisePredictor{Channels: h.Net.Channels, Height: h.Net.Height, Width: h.Net.Width, Widths: h.Net.Widths, Store: model.NewStore(),
		DType: dtypes.Float32, Config: DefaultProbeConfig(), Step: h.Step}
	if err := restoreStore(p.Store, h, payload); err != nil {
		return nil, fmt.Errorf("eqflib: %s: %w", path, err)
	}
	return p, p.compile()
}

// SigmaMAE is the mean absolute error of a noise-level estimate on `batches` batches of two
// windows of ds, every frame noised with its own σ ~ U[0, 1] from a seeded stream: the readout
// quality the paper's closed loop relies on (h_ω or g_φ; App. F.2). estimate receives the noisy
// frames and their conditions and returns σ̂ per frame.
func SigmaMAE(ds Dataset, batches int, seed uint64, estimate func(x *Window, cond []float64) ([]float64, error)) (mae float64, err error) {
	sigma, got, err := SigmaResiduals(ds, batches, seed, estimate)
	if err != nil {
		return 0, err
	}
	for i, s := range sigma {
		mae += math.Abs(got[i] - s)
	}
	return mae / float64(len(sigma)), nil
}

// SigmaResiduals is SigmaMAE's measurement frame by frame: the true levels σ and the estimates
// σ̂ of every noised frame (App. F.2's marginalised residuals bin σ̂ − σ by σ).
func SigmaResiduals(ds Dataset, batches int, seed uint64, estimate func(x *Window, cond []float64) ([]float64, error)) (sigma, got []float64, err error) {
	defer catch(&err)
	if ds == nil {
		return nil, nil, paramErr("ds", "nil", "a Dataset")
	}
	if batches < 1 {
		return nil, nil, paramErr("batches", batches, "≥ 1")
	}
	if estimate == nil {
		return nil, nil, paramErr("estimate", "nil", "a function returning σ̂ per frame")
	}
	rng := NewRNG(seed)
	for b := 0; b < batches; b++ {
		xs, s, cond, err := noisyFrames(ds, rng, 2)
		if err != nil {
			return nil, nil, err
		}
		g, err := estimate(xs, cond)
		if err != nil {
			return nil, nil, err
		}
		if len(g) != len(s) {
			return nil, nil, fmt.Errorf("eqflib: the estimate returned %d values for %d frames", len(g), len(s))
		}
		sigma, got = append(sigma, s...), append(got, g...)
	}
	return sigma, got, nil
}

// frameEncoder is the framewise CNN shared by g_φ and the action net: stride-2 convolutions with
// odd 3×3 kernels (even ones have wrong input gradients in GoMLX v0.28.16) and SiLU, one stage
// per width, then a global average pool: frames [N, C, H, W] → [N, widths[last]].
func frameEncoder(scope *model.Scope, frames *Node, widths []int) *Node {
	h := TransposeAllAxes(frames, 0, 2, 3, 1) // [N, H, W, C]: channels last
	in := frames.Shape().Dimensions[1]
	for i, w := range widths {
		s := scope.In("conv_%d", i)
		k := s.WithInitializer(initializer.XavierUniformFn(s)).VariableWithShape("kernel", shapes.Make(h.DType(), 3, 3, in, w)).NodeValue(h.Graph())
		b := s.WithInitializer(initializer.Zero).VariableWithShape("bias", shapes.Make(h.DType(), w)).NodeValue(h.Graph())
		h = Convolve(h, k).Strides(2).PadSame().Done() // [N, H', W', w]
		h = activation.Swish(Add(h, BroadcastToDims(Reshape(b, 1, 1, 1, w), h.Shape().Dimensions...)))
		in = w
	}
	return ReduceMean(h, 1, 2) // [N, w]: global average pool
}

// logit is g_φ on frames [N, C, H, W] → [N].
func (p *NoisePredictor) logit(scope *model.Scope, frames *Node) *Node {
	h := frameEncoder(scope, frames, p.Widths)                                        // [N, w]
	h = activation.Swish(dense(scope.In("fc1"), h, p.Widths[len(p.Widths)-1], false)) // [N, w]
	out := dense(scope.In("fc2"), h, 1, false)                                        // [N, 1]
	return Reshape(out, out.Shape().Dimensions[0])
}

// Train takes `steps` steps on frames drawn from ds, each noised with its own σ ~ U[0, 1].
func (p *NoisePredictor) Train(ds Dataset, steps int) (loss float64, err error) {
	defer catch(&err)
	if ds == nil {
		return 0, paramErr("ds", "nil", "a Dataset")
	}
	if _, c, h, w, _ := ds.Shape(); c != p.Channels || h != p.Height || w != p.Width {
		return 0, paramErr("ds.Shape", fmt.Sprintf("[T, %d, %d, %d]", c, h, w), fmt.Sprintf("[T, %d, %d, %d] (g_φ's frames)", p.Channels, p.Height, p.Width))
	}
	for i := 0; i < steps; i++ {
		xs, sigma, _, err := noisyFrames(ds, p.rng, p.Config.Batch)
		if err != nil {
			return 0, err
		}
		n := xs.NumFrames()
		v, err := callFloats(p.train, p.DType, toTensorAs(p.DType, xs.Data, n, p.Channels, p.Height, p.Width), toTensorAs(p.DType, sigma, n))
		if err != nil {
			return 0, err
		}
		loss = v[0]
		p.Step++
		p.History = append(p.History, loss)
	}
	return loss, nil
}

// EstimateSigma implements NoiseEstimator: σ̂ = sigmoid(g_φ(frame)) for every frame of x.
func (p *NoisePredictor) EstimateSigma(x *Window) (sigma []float64, err error) {
	defer catch(&err)
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if x.Shape[2] != p.Channels || x.Shape[3] != p.Height || x.Shape[4] != p.Width {
		return nil, paramErr("x.Shape", x.Shape, fmt.Sprintf("[B, T, %d, %d, %d] (g_φ's frames)", p.Channels, p.Height, p.Width))
	}
	n := x.NumFrames()
	l, err := callFloats(p.predict, p.DType, toTensorAs(p.DType, x.Data, n, p.Channels, p.Height, p.Width))
	if err != nil {
		return nil, err
	}
	for i := range l {
		l[i] = SigmaFromLogit(l[i])
	}
	return l, nil
}
