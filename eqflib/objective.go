package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
)

// The five training objectives (paper §2.1 Eq. 2, §4.1 Eq. 4, §5.1, App. A.1). One backbone serves all of
// them; only the network's level input, the target and the weighting change:
//
//	FM        f(x^σ, σ)  → v = ε − x
//	EqF       f(x^σ)     → v          (the level input is zero)
//	EqM       f(x^σ)     → c_{λ,α}(σ)·v,  c = λ·min(1, σ/(1−α))
//	NU-FM     f(x^σ)     → v          (trained like EqF; sampled open loop with GD, no warp)
//	Diffusion f(z_t, t)  → √ᾱ ε − √(1−ᾱ) x, weighted by sigmoid(b − λ)·sigmoid(λ)
//
// The loss is the mean squared error over the elements of the frames that carry loss, each
// frame's squared error multiplied by its weight.

// ObjectiveKind names an objective.
type ObjectiveKind int

const (
	EqF ObjectiveKind = iota
	FM
	EqM
	NUFM
	Diffusion
)

var objectiveNames = [...]string{"eqf", "fm", "eqm", "nufm", "diffusion"}

func (k ObjectiveKind) String() string {
	if k < 0 || int(k) >= len(objectiveNames) {
		return fmt.Sprintf("ObjectiveKind(%d)", int(k))
	}
	return objectiveNames[k]
}

// EqM defaults (EqM's release).
const (
	DefaultEqMLambda = 4.0
	DefaultEqMAlpha  = 0.8
)

// Objective is a training objective. Build one with NewObjective or ParseObjective.
type Objective struct {
	Kind                ObjectiveKind
	EqMLambda, EqMAlpha float64            // EqM's c_{λ,α}
	Schedule            *DiffusionSchedule // Diffusion's schedule
	SigmoidBias         float64            // Diffusion's loss-weighting bias b
}

// NewObjective returns an objective of the given kind with the paper's defaults.
func NewObjective(kind ObjectiveKind) (Objective, error) {
	o := Objective{Kind: kind, EqMLambda: DefaultEqMLambda, EqMAlpha: DefaultEqMAlpha, SigmoidBias: DefaultSigmoidBias}
	if kind == Diffusion {
		o.Schedule = DefaultDiffusion()
	}
	return o, o.Validate()
}

// ParseObjective accepts "eqf", "fm", "eqm", "nufm" (or "nu-fm") and "diffusion".
func ParseObjective(name string) (Objective, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "")
	for i, s := range objectiveNames {
		if n == s {
			return NewObjective(ObjectiveKind(i))
		}
	}
	return Objective{}, paramErr("objective", name, `one of "eqf", "fm", "eqm", "nufm", "diffusion"`)
}

// Validate checks the objective's parameters.
func (o Objective) Validate() error {
	if o.Kind < EqF || o.Kind > Diffusion {
		return paramErr("Objective.Kind", int(o.Kind), "one of EqF, FM, EqM, NUFM, Diffusion")
	}
	if o.Kind == EqM {
		if !(o.EqMLambda > 0) {
			return paramErr("Objective.EqMLambda", o.EqMLambda, "> 0")
		}
		if !(o.EqMAlpha > 0 && o.EqMAlpha < 1) {
			return paramErr("Objective.EqMAlpha", o.EqMAlpha, "in (0, 1)")
		}
	}
	if o.Kind == Diffusion && o.Schedule == nil {
		return paramErr("Objective.Schedule", "nil", "a *DiffusionSchedule for the Diffusion objective")
	}
	if o.Kind == Diffusion && (math.IsNaN(o.SigmoidBias) || math.IsInf(o.SigmoidBias, 0)) {
		return paramErr("Objective.SigmoidBias", o.SigmoidBias, "finite")
	}
	return nil
}

// NoiseConditional reports whether the network sees the level (FM, Diffusion).
func (o Objective) NoiseConditional() bool { return o.Kind == FM || o.Kind == Diffusion }

// EqMScale is EqM's target modulation c_{λ,α}(σ) = λ·min(1, σ/(1−α)).
// With λ = 4, α = 0.8: c(1) = c(.5) = c(.2) = 4, c(.1) = 2, c(.01) = 0.2, c(0) = 0.
func EqMScale(sigma, lambda, alpha float64) float64 {
	return lambda * math.Min(1, sigma/(1-alpha))
}

// XPredWeightEqF is the x-prediction weight induced by the EqF velocity loss (Prop. A.1): 1/σ².
func XPredWeightEqF(sigma float64) float64 { return 1 / (sigma * sigma) }

// XPredWeightEqM is the x-prediction weight induced by the EqM loss (Prop. A.1): c(σ)²/σ².
func XPredWeightEqM(sigma, lambda, alpha float64) float64 {
	c := EqMScale(sigma, lambda, alpha)
	return c * c / (sigma * sigma)
}

// SampleLevels draws per-frame training levels for the objective: σ ~ U[0, 1] for the flow
// objectives, t = k/(Steps−1) with k ~ U{0, …, Steps−1} for Diffusion.
func (o Objective) SampleLevels(rng *rand.Rand, batch, frames int) ([]float64, error) {
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Kind != Diffusion {
		return SampleSigmaIndependent(rng, batch, frames)
	}
	if err := checkBT(batch, frames); err != nil {
		return nil, err
	}
	out := make([]float64, batch*frames)
	for i := range out {
		out[i] = o.Schedule.Time(rng.IntN(o.Schedule.Steps))
	}
	return out, nil
}

// Example is one training example: what the network sees and what it must predict.
type Example struct {
	Input  *Window   // x^σ (flows) or z_t (Diffusion)
	Cond   []float64 // the network's per-frame level input: σ (FM), t (Diffusion), 0 (others)
	Target *Window
	Weight []float64 // per-frame loss weight
}

// Build makes the training example for clean data x, noise ε and per-frame levels (σ for the
// flow objectives, diffusion time t for Diffusion).
func (o Objective) Build(x, eps *Window, level []float64) (*Example, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := checkNoiseArgs(x, eps, level); err != nil {
		return nil, err
	}
	ex := &Example{Input: NewWindowLike(x), Cond: make([]float64, len(level)), Target: NewWindowLike(x), Weight: make([]float64, len(level))}
	n := x.FrameSize()
	for f, l := range level {
		var a, s, ta, te float64 // input = a·x + s·ε; target = ta·x + te·ε
		w := 1.0
		switch o.Kind {
		case Diffusion:
			a, s = o.Schedule.AlphaSigma(l)
			ta, te = -s, a
			w = o.Schedule.VLossWeight(l, o.SigmoidBias)
			ex.Cond[f] = l
		default:
			a, s = 1-l, l
			ta, te = -1, 1
			if o.Kind == EqM {
				c := EqMScale(l, o.EqMLambda, o.EqMAlpha)
				ta, te = -c, c
			}
			if o.Kind == FM {
				ex.Cond[f] = l
			}
		}
		ex.Weight[f] = w
		for i := f * n; i < (f+1)*n; i++ {
			ex.Input.Data[i] = a*x.Data[i] + s*eps.Data[i]
			ex.Target.Data[i] = ta*x.Data[i] + te*eps.Data[i]
		}
	}
	return ex, nil
}

// MaskedMSE is the loss of a prediction: Σ_f mask_f·w_f·Σ_i (pred − target)² / (Σ_f mask_f · C·H·W).
// mask may be nil (every frame carries loss).
func MaskedMSE(pred *Window, ex *Example, mask []float64) (float64, error) {
	if ex == nil || ex.Target == nil {
		return 0, paramErr("ex", "nil", "an *Example from Objective.Build")
	}
	if pred == nil {
		return 0, paramErr("pred", "nil", "a *Window shaped like ex.Target")
	}
	if err := sameShape("pred", ex.Target, pred); err != nil {
		return 0, err
	}
	if mask == nil {
		mask = ones(len(ex.Weight))
	}
	if err := perFrame("mask", pred, mask); err != nil {
		return 0, err
	}
	n := pred.FrameSize()
	var num, den float64
	for f, m := range mask {
		if m == 0 {
			continue
		}
		var se float64
		for i := f * n; i < (f+1)*n; i++ {
			d := pred.Data[i] - ex.Target.Data[i]
			se += d * d
		}
		num += m * ex.Weight[f] * se
		den += m * float64(n)
	}
	if den == 0 {
		return 0, paramErr("mask", "all zero", "at least one frame with loss")
	}
	return num / den, nil
}

// Loss evaluates the objective's loss of a Field on one batch (validation, oracle checks).
func (o Objective) Loss(f Field, x, eps *Window, level, mask []float64) (float64, error) {
	if f == nil {
		return 0, paramErr("f", "nil", "a Field")
	}
	ex, err := o.Build(x, eps, level)
	if err != nil {
		return 0, err
	}
	out, err := evalChecked(f, ex.Input, ex.Cond, EvalOptions{})
	if err != nil {
		return 0, err
	}
	return MaskedMSE(out.V, ex, mask)
}

func ones(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// BuildGraph is Build inside a graph: x, ε [B, T, C, H, W] and level [B, T] give the network
// input, its level input [B, T], the target and the per-frame weight [B, T].
func (o Objective) BuildGraph(x, eps, level *Node) (input, cond, target, weight *Node) {
	if err := o.Validate(); err != nil {
		panic(err)
	}
	switch o.Kind {
	case Diffusion:
		d := o.Schedule
		theta := AddScalar(MulScalar(level, d.tMax-d.tMin), d.tMin)
		// λ = −2 log tan θ; ᾱ = sigmoid(λ) = cos²θ, so √ᾱ = cos θ and √(1−ᾱ) = sin θ.
		a, s := Cos(theta), Sin(theta)
		lambda := MulScalar(Log(Div(s, a)), -2)
		input = Add(Mul(frameBroadcast(a, x), x), Mul(frameBroadcast(s, x), eps))
		target = Sub(Mul(frameBroadcast(a, x), eps), Mul(frameBroadcast(s, x), x))
		weight = Mul(Sigmoid(Sub(Scalar(x.Graph(), x.DType(), o.SigmoidBias), lambda)), Sigmoid(lambda))
		return input, level, target, weight
	default:
		input = NoiseGraph(x, eps, level)
		target = VelocityTargetGraph(x, eps)
		weight = OnesLike(level)
		cond = ZerosLike(level)
		if o.Kind == FM {
			cond = level
		}
		if o.Kind == EqM {
			c := MulScalar(MinScalar(MulScalar(level, 1/(1-o.EqMAlpha)), 1.0), o.EqMLambda)
			target = Mul(frameBroadcast(c, x), target)
		}
		return input, cond, target, weight
	}
}

// MaskedMSEGraph is MaskedMSE inside a graph; pred, target [B, T, C, H, W]; weight, mask [B, T]
// (mask may be nil).
func MaskedMSEGraph(pred, target, weight, mask *Node) *Node {
	dims := pred.Shape().Dimensions
	perFrameSE := ReduceSum(Square(Sub(pred, target)), 2, 3, 4) // [B, T]
	if mask == nil {
		mask = OnesLike(weight)
	}
	n := float64(dims[2] * dims[3] * dims[4])
	num := ReduceAllSum(Mul(Mul(mask, weight), perFrameSE))
	den := MulScalar(ReduceAllSum(mask), n)
	return Div(num, den)
}
