package eqflib

import (
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
)

// The noising process of paper §2.1, Eq. 1, framewise:
//
//	x^σ = (1 − σ) ⊙ x + σ ⊙ ε,   v = ε − x,   x = x^σ − σ ⊙ v.
//
// σ = 1 is pure noise, σ = 0 clean data; σ has one value per frame ([B, T]).

// SigmaClamp bounds σ away from 0 and 1 before taking a logit: σ ∈ [SigmaClamp, 1 − SigmaClamp].
const SigmaClamp = 1e-5

// Noise returns x^σ = (1 − σ) ⊙ x + σ ⊙ ε.
func Noise(x, eps *Window, sigma []float64) (*Window, error) {
	if err := checkNoiseArgs(x, eps, sigma); err != nil {
		return nil, err
	}
	out := NewWindowLike(x)
	n := x.FrameSize()
	for f, s := range sigma {
		for i := f * n; i < (f+1)*n; i++ {
			out.Data[i] = (1-s)*x.Data[i] + s*eps.Data[i]
		}
	}
	return out, nil
}

// VelocityTarget returns the Flow Matching target v = ε − x.
func VelocityTarget(x, eps *Window) (*Window, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if err := sameShape("eps", x, eps); err != nil {
		return nil, err
	}
	out := NewWindowLike(x)
	for i := range out.Data {
		out.Data[i] = eps.Data[i] - x.Data[i]
	}
	return out, nil
}

// CleanEstimate returns the clean-data estimate x̂ = x^σ − σ ⊙ v̂ from a velocity.
func CleanEstimate(xSigma, v *Window, sigma []float64) (*Window, error) {
	if err := checkNoiseArgs(xSigma, v, sigma); err != nil {
		return nil, err
	}
	out := NewWindowLike(xSigma)
	neg := make([]float64, len(sigma))
	for i, s := range sigma {
		neg[i] = -s
	}
	axpyFrames(out, xSigma, neg, v)
	return out, nil
}

func checkNoiseArgs(x, y *Window, sigma []float64) error {
	if err := x.Validate("x"); err != nil {
		return err
	}
	if err := sameShape("eps", x, y); err != nil {
		return err
	}
	if err := perFrame("sigma", x, sigma); err != nil {
		return err
	}
	for _, s := range sigma {
		if !(s >= 0 && s <= 1) {
			return paramErr("sigma", s, "in [0, 1]")
		}
	}
	return nil
}

// ClampSigma clamps σ to [SigmaClamp, 1 − SigmaClamp].
func ClampSigma(sigma float64) float64 {
	return math.Min(math.Max(sigma, SigmaClamp), 1-SigmaClamp)
}

// LogitSigma returns log(σ/(1−σ)) of the clamped σ: the target space of the noise-level predictors.
// LogitSigma(0) = −11.5129, LogitSigma(0.5) = 0, LogitSigma(1) = 11.5129.
func LogitSigma(sigma float64) float64 {
	s := ClampSigma(sigma)
	return math.Log(s / (1 - s))
}

// SigmaFromLogit is the inverse of LogitSigma: σ̂ = 1/(1 + e^−ℓ).
func SigmaFromLogit(l float64) float64 {
	if l >= 0 {
		return 1 / (1 + math.Exp(-l))
	}
	e := math.Exp(l)
	return e / (1 + e)
}

// ---------------------------------------------------------------------------------------------
// Training noise strategies (Table "training_details").

// SampleSigmaIndependent draws σ_t ~ U[0, 1] i.i.d. for every frame (Diffusion Forcing's
// "random independent" strategy). Every frame carries loss.
func SampleSigmaIndependent(rng *rand.Rand, batch, frames int) ([]float64, error) {
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	if err := checkBT(batch, frames); err != nil {
		return nil, err
	}
	sigma := make([]float64, batch*frames)
	for i := range sigma {
		sigma[i] = rng.Float64()
	}
	return sigma, nil
}

// SampleSigmaContext draws the "random-length context" strategy (Droid): for each batch element
// a context length L ~ U{0, …, maxContext} and two levels σ_ctx, σ_rest ~ U[0, 1]; the first L
// frames get σ_ctx and the rest σ_rest. With probability ½ the context is clean (σ_ctx = 0) and
// then carries no loss: the returned lossMask is 0 on those frames and 1 elsewhere.
func SampleSigmaContext(rng *rand.Rand, batch, frames, maxContext int) (sigma, lossMask []float64, err error) {
	if err := checkRNG(rng); err != nil {
		return nil, nil, err
	}
	if err := checkBT(batch, frames); err != nil {
		return nil, nil, err
	}
	if maxContext < 0 || maxContext > frames-1 {
		return nil, nil, paramErr("maxContext", maxContext, "in [0, frames−1] so that at least one frame carries loss")
	}
	sigma = make([]float64, batch*frames)
	lossMask = make([]float64, batch*frames)
	for b := 0; b < batch; b++ {
		l := rng.IntN(maxContext + 1)
		sCtx, sRest := rng.Float64(), rng.Float64()
		clean := rng.Float64() < 0.5
		for t := 0; t < frames; t++ {
			i := b*frames + t
			sigma[i], lossMask[i] = sRest, 1
			if t < l {
				sigma[i] = sCtx
				if clean {
					sigma[i], lossMask[i] = 0, 0
				}
			}
		}
	}
	return sigma, lossMask, nil
}

func checkBT(batch, frames int) error {
	if batch < 1 {
		return paramErr("batch", batch, "≥ 1")
	}
	if frames < 1 {
		return paramErr("frames", frames, "≥ 1")
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Graph versions. x, ε: [B, T, C, H, W]; σ: [B, T].

// frameBroadcast reshapes a per-frame [B, T] node to [B, T, 1, 1, 1] broadcast like x.
func frameBroadcast(perFrame, x *Node) *Node {
	dims := x.Shape().Dimensions
	return BroadcastToDims(Reshape(perFrame, dims[0], dims[1], 1, 1, 1), dims...)
}

// NoiseGraph returns x^σ = (1 − σ) ⊙ x + σ ⊙ ε.
func NoiseGraph(x, eps, sigma *Node) *Node {
	s := frameBroadcast(sigma, x) // [B, T, C, H, W]
	return Add(Mul(OneMinus(s), x), Mul(s, eps))
}

// VelocityTargetGraph returns v = ε − x.
func VelocityTargetGraph(x, eps *Node) *Node { return Sub(eps, x) }

// CleanEstimateGraph returns x^σ − σ ⊙ v̂.
func CleanEstimateGraph(xSigma, v, sigma *Node) *Node {
	return Sub(xSigma, Mul(frameBroadcast(sigma, xSigma), v))
}

// LogitGraph returns log(σ/(1−σ)) after clamping σ to [SigmaClamp, 1 − SigmaClamp].
func LogitGraph(sigma *Node) *Node {
	s := ClipScalar(sigma, SigmaClamp, 1-SigmaClamp)
	return Log(Div(s, OneMinus(s)))
}

// SigmoidGraph returns 1/(1 + e^−ℓ).
func SigmoidGraph(l *Node) *Node { return Sigmoid(l) }

// SampleSigmaIndependentGraph draws σ ~ U[0, 1] per frame inside a graph; rngState comes from
// graph.RNGStateFromSeed and the updated state is returned with the levels ([B, T]).
func SampleSigmaIndependentGraph(rngState *Node, batch, frames int, dtype dtypes.DType) (newState, sigma *Node) {
	return RandomUniform(rngState, shapes.Make(dtype, batch, frames))
}

// SampleSigmaContextGraph is SampleSigmaContext inside a graph: it returns the new RNG state,
// σ [B, T] and the loss mask [B, T].
func SampleSigmaContextGraph(rngState *Node, batch, frames, maxContext int, dtype dtypes.DType) (newState, sigma, lossMask *Node) {
	g := rngState.Graph()
	var u *Node
	newState, u = RandomUniform(rngState, shapes.Make(dtype, batch, 4)) // [B, 4]: L, σ_ctx, σ_rest, clean?
	l := Floor(MulScalar(Slice(u, AxisRange(), AxisElem(0)), float64(maxContext+1)))
	sCtx := Slice(u, AxisRange(), AxisElem(1))
	sRest := Slice(u, AxisRange(), AxisElem(2))
	clean := LessThan(Slice(u, AxisRange(), AxisElem(3)), Scalar(g, dtype, 0.5)) // [B, 1]
	t := Iota(g, shapes.Make(dtype, batch, frames), 1)                           // [B, T]: frame index
	inCtx := LessThan(t, BroadcastToDims(l, batch, frames))
	cleanB := BroadcastToDims(clean, batch, frames)
	zeros, ones := ZerosLike(t), OnesLike(t)
	ctxLevel := Where(cleanB, zeros, BroadcastToDims(sCtx, batch, frames))
	sigma = Where(inCtx, ctxLevel, BroadcastToDims(sRest, batch, frames))
	lossMask = Where(LogicalAnd(inCtx, cleanB), zeros, ones)
	return newState, sigma, lossMask
}
