package eqflib

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
)

// Training (paper §4.1, §5.1, App. D, Table training_details): one trainer for all five
// objectives. Each step draws a batch, noise ε and per-frame levels on the host from one
// serialisable PCG stream (so a resumed run draws exactly what the uninterrupted one would),
// then runs one compiled graph that computes the objective's loss, its gradients, clips them by
// global norm, and applies AdamW (linear warm-up, decoupled weight decay on matrices only) and
// the EMA update. On the pure-Go backend the graph stops at the gradients and their norm, and
// one fused pass on the host applies the same update (adamw_host.go says why).
//
// Why not GoMLX's train.Trainer and train.Loop (v0.28.16): this trainer draws its own noise and
// levels per frame on the host from a resumable stream (the objectives need per-frame σ and the
// random-length-context masks, and an exact resume needs the stream's state in the checkpoint),
// keeps an EMA copy of every weight beside the live one, and compiles its step graph marked as
// training — a graph GoMLX's Go backend does not mark embeds variables as constants, so their
// updates would be lost (pinned in TestKnownGoMLXGaps). The optimiser (optim.go) and the
// checkpoint format (checkpoint.go) say why they are not GoMLX's either. When an upgrade fixes
// these, train.Trainer with a custom loss is the natural replacement.

// Variable scopes of the optimiser state next to the backbone's /dit variables.
const (
	emaPrefix   = "/ema"
	adamMPrefix = "/adam_m"
	adamVPrefix = "/adam_v"
	stepVarPath = "/train/step"
)

// TrainConfig configures a Trainer; DefaultTrainConfig fills it with the paper's values and
// TrainPreset.Config with a named preset's (trainpreset.go).
type TrainConfig struct {
	Objective Objective
	Batch     int
	LR        float64
	Warmup    int // steps of linear warm-up (≥ 1)
	// CosineSteps > Warmup decays the rate after warm-up along a half cosine to MinLR·LR at step
	// CosineSteps (and keeps it there); 0 keeps it constant, as the paper does.
	CosineSteps int
	MinLR       float64 // the cosine's floor as a fraction of LR, in [0, 1]
	// EMAWarmup uses the EMA decay min(EMADecay, (1+t)/(10+t)) at step t, so that a short run's
	// average is not dominated by the initial weights.
	EMAWarmup   bool
	Beta1       float64
	Beta2       float64
	Eps         float64
	WeightDecay float64 // decoupled, applied to weight matrices only (not biases)
	ClipNorm    float64 // global gradient-norm clip; 0 disables
	EMADecay    float64
	Seed        uint64
	// MaxContext > 0 selects the random-length-context noise strategy (Droid) with context
	// lengths up to MaxContext; 0 draws levels independently per frame.
	MaxContext int
	// CondDropout is the probability that a training window's conditions are all replaced by
	// zeros, the null condition that classifier-free guidance (Guide) contrasts with; 0 never.
	CondDropout float64
	// Devices selects data-parallel training (XLA backend only; see dataparallel.go): 0 (the
	// default) trains on the backend's first device; n ≥ 1 splits every batch evenly over the
	// first n devices with the weights replicated (GoMLX AutoSharding inserts the gradient
	// all-reduce; n = 1 runs that sharded program on one device); −1 uses every device the
	// backend has, data-parallel when there is more than one.
	Devices int
}

// DefaultTrainConfig returns the paper's settings for an objective (the "paper" preset).
func DefaultTrainConfig(obj Objective) TrainConfig { return TrainPresets["paper"].Config(obj, 0) }

// Validate checks the configuration.
func (c TrainConfig) Validate() error {
	if err := c.Objective.Validate(); err != nil {
		return err
	}
	switch {
	case c.Batch < 1:
		return paramErr("TrainConfig.Batch", c.Batch, "≥ 1")
	case !(c.LR > 0):
		return paramErr("TrainConfig.LR", c.LR, "> 0")
	case c.Warmup < 1:
		return paramErr("TrainConfig.Warmup", c.Warmup, "≥ 1")
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return paramErr("TrainConfig.Beta1", c.Beta1, "in [0, 1)")
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return paramErr("TrainConfig.Beta2", c.Beta2, "in [0, 1)")
	case !(c.Eps > 0):
		return paramErr("TrainConfig.Eps", c.Eps, "> 0")
	case !(c.WeightDecay >= 0):
		return paramErr("TrainConfig.WeightDecay", c.WeightDecay, "≥ 0")
	case !(c.ClipNorm >= 0):
		return paramErr("TrainConfig.ClipNorm", c.ClipNorm, "≥ 0 (0 disables clipping)")
	case !(c.EMADecay >= 0 && c.EMADecay < 1):
		return paramErr("TrainConfig.EMADecay", c.EMADecay, "in [0, 1)")
	case !(c.CondDropout >= 0 && c.CondDropout < 1):
		return paramErr("TrainConfig.CondDropout", c.CondDropout, "in [0, 1)")
	case c.MaxContext < 0:
		return paramErr("TrainConfig.MaxContext", c.MaxContext, "≥ 0")
	case c.CosineSteps != 0 && c.CosineSteps <= c.Warmup:
		return paramErr("TrainConfig.CosineSteps", c.CosineSteps, fmt.Sprintf("0 (constant rate) or > Warmup = %d", c.Warmup))
	case !(c.MinLR >= 0 && c.MinLR <= 1):
		return paramErr("TrainConfig.MinLR", c.MinLR, "in [0, 1]")
	case c.Devices < -1:
		return paramErr("TrainConfig.Devices", c.Devices, "−1 (every device), 0 (one device) or a device count ≥ 1")
	}
	return nil
}

// LossPoint is one entry of the loss history.
type LossPoint struct {
	Step     int     `json:"step"`
	Loss     float64 `json:"loss"`
	GradNorm float64 `json:"grad_norm"`
	ValLoss  float64 `json:"val_loss,omitempty"` // 0 when not evaluated at this step
}

// SaveHistory writes a loss history into dir as history.json and history.csv (step, loss,
// grad_norm, val_loss), each atomically.
func SaveHistory(dir string, h []LossPoint) error {
	js, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, "history.json"), js); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("step,loss,grad_norm,val_loss\n")
	for _, p := range h {
		fmt.Fprintf(&b, "%d,%g,%g,%g\n", p.Step, p.Loss, p.GradNorm, p.ValLoss)
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, "history.csv"), []byte(b.String()))
}

// Trainer trains a DiT on a Dataset with one of the objectives.
type Trainer struct {
	Model      *DiT
	Config     TrainConfig
	Train, Val Dataset
	Step       int         // optimiser steps taken
	History    []LossPoint // one entry per step
	// Seconds is the wall-clock time Run has spent on the steps taken, over every run that a
	// restored checkpoint carries forward (a training stopped and resumed counts all its runs).
	Seconds float64

	pcg      *rand.PCG
	rng      *rand.Rand
	stepExec *model.Exec
	evalExec [2]*model.Exec // live, EMA
	devices  int            // > 0: data-parallel over this many devices (dataparallel.go)
	hostOpt  *hostAdamW     // non-nil: the AdamW step runs on the host (adamw_host.go)
}

// NewTrainer prepares training. The model's variables are initialised (and their EMA copied from
// them) on creation; val may be nil.
func NewTrainer(m *DiT, train, val Dataset, cfg TrainConfig) (t *Trainer, err error) {
	defer catch(&err)
	if m == nil {
		return nil, paramErr("m", "nil", "a *DiT")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if m.NoiseConditional != cfg.Objective.NoiseConditional() {
		return nil, paramErr("m.NoiseConditional", m.NoiseConditional, fmt.Sprintf("%v for the %s objective", cfg.Objective.NoiseConditional(), cfg.Objective.Kind))
	}
	if train == nil {
		return nil, paramErr("train", "nil", "a Dataset")
	}
	if err := checkDatasetShape("train", train, m.Config); err != nil {
		return nil, err
	}
	if val != nil {
		if err := checkDatasetShape("val", val, m.Config); err != nil {
			return nil, err
		}
	}
	if cfg.MaxContext > 0 {
		if frames, _, _, _, _ := train.Shape(); cfg.MaxContext > frames-1 {
			return nil, paramErr("TrainConfig.MaxContext", cfg.MaxContext, fmt.Sprintf("≤ frames − 1 = %d", frames-1))
		}
	}
	m.Diffusion = cfg.Objective.Kind == Diffusion
	t = &Trainer{Model: m, Config: cfg, Train: train, Val: val, pcg: rand.NewPCG(cfg.Seed, 0x7a1e)}
	t.rng = rand.New(t.pcg)
	if err := t.initialise(); err != nil {
		return nil, err
	}
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	if useHostAdamW(backend, m.DType) && cfg.Devices <= 0 {
		t.hostOpt = &hostAdamW{backend: backend, store: m.Store, params: t.params(), cfg: t.optimConfig()}
	}
	if t.stepExec, err = model.NewExec(backend, m.Store, t.stepGraph); err != nil {
		return nil, err
	}
	for i, ema := range []bool{false, true} {
		if t.evalExec[i], err = model.NewExec(backend, m.Store, t.evalGraph(ema)); err != nil {
			return nil, err
		}
	}
	if err := t.setupDataParallel(backend); err != nil {
		return nil, err
	}
	return t, nil
}

func checkDatasetShape(name string, ds Dataset, c DiTConfig) error {
	_, ch, h, w, k := ds.Shape()
	if ch != c.Channels || h != c.Height || w != c.Width || k != c.CondDim {
		return paramErr(name+".Shape", fmt.Sprintf("[T, %d, %d, %d] with %d conditions", ch, h, w, k),
			fmt.Sprintf("[T, %d, %d, %d] with %d conditions (the DiT's)", c.Channels, c.Height, c.Width, c.CondDim))
	}
	if ds.Len() < 1 {
		return paramErr(name+".Len()", ds.Len(), "≥ 1")
	}
	return nil
}

// initialise creates the backbone's variables (one forward pass) and, if absent, their EMA
// copies; optimiser moments are created (zero) by the first step.
func (t *Trainer) initialise() error {
	frames, c, h, w, k := t.Train.Shape()
	x := MustNewWindow(1, frames, c, h, w)
	var err error
	if k > 0 {
		_, err = t.Model.WithConditions(make([]float64, frames*k)).Eval(x, make([]float64, frames), EvalOptions{})
	} else {
		_, err = t.Model.Eval(x, make([]float64, frames), EvalOptions{})
	}
	if err != nil {
		return err
	}
	for _, v := range t.params() {
		if t.Model.Store.GetVariable(emaPrefix+v.Path()) != nil {
			continue
		}
		val, err := v.Value()
		if err != nil {
			return err
		}
		host, err := fromTensorAs(t.Model.DType, val)
		if err != nil {
			return err
		}
		if err := setVariable(t.Model.Store, emaPrefix+v.Path(), toTensorAs(t.Model.DType, host, val.Shape().Dimensions...), false); err != nil {
			return err
		}
	}
	return nil
}

// setVariable gives a store variable a value (a fresh copy is passed by callers), creating it
// with an initializer if needed, and sets whether it is trainable.
func setVariable(store *model.Store, path string, value *tensors.Tensor, trainable bool) error {
	v := store.GetVariable(path)
	if v == nil {
		v = store.VariableWithShape(path, value.Shape(), initializer.Zero)
		backend, err := Backend()
		if err != nil {
			return err
		}
		if err := store.InitializeVariables(backend, nil); err != nil {
			return err
		}
	} else if !v.Shape().Equal(value.Shape()) {
		return fmt.Errorf("variable %s has shape %s, the value %s", path, v.Shape(), value.Shape())
	}
	if err := v.SetValue(value); err != nil {
		return err
	}
	v.Trainable = trainable
	return nil
}

// params lists the backbone's trainable variables, in a fixed order.
func (t *Trainer) params() []*model.Variable {
	var out []*model.Variable
	for v := range t.Model.Store.IterVariables() {
		if strings.HasPrefix(v.Path(), "/dit/") && v.DType().IsFloat() {
			out = append(out, v)
		}
	}
	return out
}

// stepGraph: loss, then one AdamW step with clipping and EMA (applyAdamW). Outputs the loss and
// the gradient norm before clipping; with the host update, the gradients after them instead of
// the update.
func (t *Trainer) stepGraph(scope *model.Scope, x, eps, level, mask, cond *Node) []*Node {
	store := scope.Store()
	keepVariablesAsParameters(scope, x.Graph())
	loss := t.lossGraph(t.Model.ditScope(store), true, x, eps, level, mask, cond)
	if t.hostOpt != nil { // the update is done on the host (adamw_host.go)
		_, grads, norm := gradientsAndNorm(t.params(), loss)
		return append([]*Node{loss, norm}, grads...)
	}
	norm := applyAdamW(store, t.params(), loss, t.optimConfig(), "")
	return []*Node{loss, norm}
}

// optimConfig is the AdamW configuration of the trainer's step.
func (t *Trainer) optimConfig() optimConfig {
	cfg := t.Config
	return optimConfig{LR: cfg.LR, Warmup: cfg.Warmup, CosineSteps: cfg.CosineSteps, MinLR: cfg.MinLR,
		Beta1: cfg.Beta1, Beta2: cfg.Beta2, Eps: cfg.Eps, WeightDecay: cfg.WeightDecay, ClipNorm: cfg.ClipNorm, EMADecay: cfg.EMADecay,
		EMAWarmup: cfg.EMAWarmup, EMAPrefix: emaPrefix}
}

// lossGraph is the objective's masked loss of the backbone in scope ds; backward says the graph
// will be differentiated (the step graph), so the backbone takes its training-graph layouts.
func (t *Trainer) lossGraph(ds *model.Scope, backward bool, x, eps, level, mask, cond *Node) *Node {
	input, lvIn, target, weight := t.Config.Objective.BuildGraph(x, eps, level)
	if t.Model.Config.CondDim == 0 {
		cond = nil
	}
	cfg := t.Model.Config
	cfg.backward = backward
	v, _ := cfg.Forward(ds, input, lvIn, cond)
	return MaskedMSEGraph(v, target, weight, mask)
}

// evalGraph returns the loss graph of the live weights (ema false) or their EMA, without updates.
func (t *Trainer) evalGraph(ema bool) func(scope *model.Scope, x, eps, level, mask, cond *Node) *Node {
	return func(scope *model.Scope, x, eps, level, mask, cond *Node) *Node {
		keepVariablesAsParameters(scope, x.Graph())
		ds := scope.Store().RootScope().In("dit")
		if ema {
			ds = scope.Store().Scope(emaPrefix).In("dit")
		}
		return t.lossGraph(ds, false, x, eps, level, mask, cond)
	}
}

// batch draws the next training (or validation) batch from the trainer's stream; a training
// batch (train) drops each window's conditions with probability CondDropout.
func (t *Trainer) batch(ds Dataset, rng *rand.Rand, train bool) (x, eps *Window, level, mask, cond []float64, err error) {
	idx := make([]int, t.Config.Batch)
	for i := range idx {
		idx[i] = rng.IntN(ds.Len())
	}
	if x, cond, err = LoadBatch(ds, idx); err != nil {
		return
	}
	B, T := x.Shape[0], x.Shape[1]
	if p := t.Config.CondDropout; train && p > 0 && len(cond) > 0 {
		n := len(cond) / B
		for b := 0; b < B; b++ {
			if rng.Float64() < p {
				clear(cond[b*n : (b+1)*n])
			}
		}
	}
	if t.Config.MaxContext > 0 && t.Config.Objective.Kind != Diffusion {
		level, mask, err = SampleSigmaContext(rng, B, T, t.Config.MaxContext)
	} else {
		level, err = t.Config.Objective.SampleLevels(rng, B, T)
		mask = ones(B * T)
	}
	if err != nil {
		return
	}
	eps, err = Randn(rng, B, T, x.Shape[2], x.Shape[3], x.Shape[4])
	return
}

// inputs are the step and evaluation graphs' arguments: x, ε, levels, mask and conditions, or,
// when data-parallel, those of each device in turn (device-major, as GoMLX expects).
func (t *Trainer) inputs(x, eps *Window, level, mask, cond []float64) ([]any, error) {
	B, T := x.Shape[0], x.Shape[1]
	k := t.Model.Config.CondDim
	if len(cond) != B*T*k {
		return nil, paramErr("cond", fmt.Sprintf("len %d", len(cond)), fmt.Sprintf("len %d = B·T·CondDim", B*T*k))
	}
	n := max(t.devices, 1)
	var args []any
	for d := range n { // rows [d·B/n, (d+1)·B/n) of every input
		b0, b1 := d*B/n, (d+1)*B/n
		rows := func(v []float64, perRow int) []float64 { return v[b0*perRow : b1*perRow] }
		xs := append([]int{b1 - b0}, x.Shape[1:]...)
		ct, err := condTensor(t.Model.DType, rows(cond, T*k), b1-b0, T, k)
		if err != nil {
			return nil, err
		}
		args = append(args, toTensorAs(t.Model.DType, rows(x.Data, len(x.Data)/B), xs...), toTensorAs(t.Model.DType, rows(eps.Data, len(x.Data)/B), xs...),
			toTensorAs(t.Model.DType, rows(level, T), b1-b0, T), toTensorAs(t.Model.DType, rows(mask, T), b1-b0, T), ct)
	}
	return args, nil
}

func finalizeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		_ = t.FinalizeAll()
	}
}

// TrainStep takes one optimiser step on the next batch of the training stream and returns its
// loss.
func (t *Trainer) TrainStep() (loss float64, err error) {
	defer catch(&err)
	x, eps, level, mask, cond, err := t.batch(t.Train, t.rng, true)
	if err != nil {
		return 0, err
	}
	return t.TrainStepOn(x, eps, level, mask, cond)
}

// TrainStepOn takes one optimiser step on exactly this batch: clean x [B, T, C, H, W], noise ε,
// per-frame levels and loss mask [B·T], conditions [B·T·CondDim] (nil when CondDim = 0).
func (t *Trainer) TrainStepOn(x, eps *Window, level, mask, cond []float64) (loss float64, err error) {
	defer catch(&err)
	if err := x.Validate("x"); err != nil {
		return 0, err
	}
	if err := sameShape("eps", x, eps); err != nil {
		return 0, err
	}
	if err := perFrame("level", x, level); err != nil {
		return 0, err
	}
	if mask == nil {
		mask = ones(x.NumFrames())
	}
	if err := perFrame("mask", x, mask); err != nil {
		return 0, err
	}
	in, err := t.inputs(x, eps, level, mask, cond)
	if err != nil {
		return 0, err
	}
	outs, err := t.stepExec.Call(in...)
	if err != nil {
		return 0, err
	}
	defer finalizeAll(outs)
	vals := make([]float64, 2) // loss and gradient norm (device 0's copy when data-parallel)
	for i := range vals {
		v, err := fromTensorAs(t.Model.DType, outs[i])
		if err != nil {
			return 0, err
		}
		vals[i] = v[0]
	}
	if t.hostOpt != nil && !math.IsNaN(vals[0]) && !math.IsInf(vals[0], 0) {
		if err := t.hostOpt.step(outs[2:], vals[1]); err != nil {
			return 0, err
		}
	}
	t.Step++
	t.History = append(t.History, LossPoint{Step: t.Step, Loss: vals[0], GradNorm: vals[1]})
	if math.IsNaN(vals[0]) || math.IsInf(vals[0], 0) {
		return vals[0], fmt.Errorf("eqflib: training diverged at step %d: loss = %g", t.Step, vals[0])
	}
	return vals[0], nil
}

// ValLoss is the objective's loss on `batches` validation batches drawn from a fixed seed (the
// same batches every call), with the EMA weights (useEMA) or the live ones.
func (t *Trainer) ValLoss(batches int, useEMA bool) (loss float64, err error) {
	defer catch(&err)
	ds := t.Val
	if ds == nil {
		return 0, paramErr("Trainer.Val", "nil", "a validation Dataset")
	}
	if batches < 1 {
		return 0, paramErr("batches", batches, "≥ 1")
	}
	rng := rand.New(rand.NewPCG(t.Config.Seed^0x5eed, 0xe7a1))
	exec := t.evalExec[0]
	if useEMA {
		exec = t.evalExec[1]
	}
	for b := 0; b < batches; b++ {
		x, eps, level, mask, cond, err := t.batch(ds, rng, false)
		if err != nil {
			return 0, err
		}
		in, err := t.inputs(x, eps, level, mask, cond)
		if err != nil {
			return 0, err
		}
		v, err := callFloats(exec, t.Model.DType, in...)
		if err != nil {
			return 0, err
		}
		loss += v[0] / float64(batches)
	}
	return loss, nil
}

// RunOptions configures Trainer.Run.
type RunOptions struct {
	EvalEvery   int       // validation every this many steps (0: never); recorded in History
	EvalBatches int       // validation batches (default 4)
	Progress    io.Writer // a progress line with loss and steps/s (nil: quiet)
	// Checkpoints: every CheckpointEvery steps and at the end into CheckpointDir, keeping the
	// newest KeepCheckpoints (default 3). Empty CheckpointDir disables them.
	CheckpointDir   string
	CheckpointEvery int
	KeepCheckpoints int
	// CheckpointAfter, when positive, also saves a checkpoint once this much wall time has
	// passed since the last one (or since Run began), so that a run killed with no chance to
	// save (SIGKILL, a machine switched off) loses at most about that much. Where the checkpoints
	// fall changes no number: a run resumed from any step continues bit for bit.
	CheckpointAfter time.Duration
	// Stop, when closed (or when its context is done: see StopOnSignal), ends Run after the
	// current step with a final checkpoint; Run then returns ErrStopped.
	Stop <-chan struct{}
	// AfterStep, when set, is called after every step (its validation and checkpoint included)
	// with the step reached and the training time so far, the runs this one resumed included
	// (Trainer.Seconds as a checkpoint now would hold it): where a long run has got between its
	// checkpoints (the zoo's progress.json).
	AfterStep func(step int, seconds float64)
}

// ErrStopped is returned by Run when RunOptions.Stop ended it; the final checkpoint was saved.
var ErrStopped = errors.New("eqflib: training stopped (checkpoint saved)")

// Run trains until Step reaches `until`. Progress goes to o.Progress (see progressLog: a live
// bar on a terminal or in a notebook, a line every few percent elsewhere).
func (t *Trainer) Run(until int, o RunOptions) error {
	if o.EvalBatches == 0 {
		o.EvalBatches = 4
	}
	if o.KeepCheckpoints == 0 {
		o.KeepCheckpoints = 3
	}
	startStep := t.Step
	began, before := time.Now(), t.Seconds
	clock := func() { t.Seconds = before + time.Since(began).Seconds() } // before each checkpoint
	defer clock()
	saved := began // the last checkpoint, for CheckpointAfter
	progress := newProgressLog(o.Progress, t.Step)
	defer progress.endLine() // an error, or a stop, starts on its own line
	for t.Step < until {
		select {
		case <-o.Stop:
			progress.endLine()
			clock()
			if o.CheckpointDir != "" && t.Step > startStep {
				if _, err := t.SaveCheckpoint(o.CheckpointDir, o.KeepCheckpoints); err != nil {
					return err
				}
			}
			return ErrStopped
		default:
		}
		loss, err := t.TrainStep()
		if err != nil {
			return err
		}
		if o.EvalEvery > 0 && t.Val != nil && (t.Step%o.EvalEvery == 0 || t.Step == until) {
			vl, err := t.ValLoss(o.EvalBatches, true)
			if err != nil {
				return err
			}
			t.History[len(t.History)-1].ValLoss = vl
		}
		every := o.CheckpointEvery > 0 && t.Step%o.CheckpointEvery == 0
		late := o.CheckpointAfter > 0 && time.Since(saved) >= o.CheckpointAfter
		if o.CheckpointDir != "" && (every || late || t.Step == until) {
			clock()
			if _, err := t.SaveCheckpoint(o.CheckpointDir, o.KeepCheckpoints); err != nil {
				return err
			}
			saved = time.Now()
		}
		if o.AfterStep != nil {
			o.AfterStep(t.Step, before+time.Since(began).Seconds())
		}
		progress.step(t.Step, until, loss)
	}
	return nil
}

// EquilibriumFinetune prepares equilibrium finetuning (App. E) from a Flow Matching checkpoint:
// it loads the DiT, starts from its EMA weights, switches its noise-level input off (dropout
// p = 1: the level is always zero from now on) and drops the FM optimiser state, so that a
// Trainer with the EqF objective continues from there with a fresh optimiser. Train h_ω on the
// result afterwards (NewReadoutTrainer).
func EquilibriumFinetune(fmCheckpoint string) (d *DiT, err error) {
	defer catch(&err)
	h, _, err := readCheckpoint(fmCheckpoint)
	if err != nil {
		return nil, err
	}
	if h.Objective != FM.String() {
		return nil, paramErr("fmCheckpoint objective", h.Objective, `"fm" (equilibrium finetuning starts from Flow Matching)`)
	}
	src, err := LoadDiT(fmCheckpoint)
	if err != nil {
		return nil, err
	}
	dt := src.DType
	if d, err = NewDiT(src.Config, false, 0, dt); err != nil {
		return nil, err
	}
	for v := range src.Store.IterVariables() {
		if !strings.HasPrefix(v.Path(), emaPrefix+"/dit/") {
			continue
		}
		val, err := v.Value()
		if err != nil {
			return nil, err
		}
		host, err := fromTensorAs(dt, val)
		if err != nil {
			return nil, err
		}
		if err := setVariable(d.Store, strings.TrimPrefix(v.Path(), emaPrefix), toTensorAs(dt, host, val.Shape().Dimensions...), true); err != nil {
			return nil, err
		}
	}
	return d, nil
}
