package eqflib

import (
	"math"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
)

// The optimiser: AdamW with global-norm gradient clipping, warm-up and cosine decay, and the EMA.
// Why not GoMLX's optimizer.Adam (v0.28.16): it clips only by value (ParamClipStepByValue), not
// by the global norm the paper uses (clip 1.0); its weight decay applies to every variable,
// biases and LayerNorm gains included (its own TODO), where AdamW as the paper trains it decays
// weight matrices only; and it keeps no EMA. Drop this file when upstream has all three.
// Trainer on the pure-Go backend applies the same step on the host instead (adamw_host.go).

// optimConfig configures applyAdamW.
type optimConfig struct {
	LR          float64
	Warmup      int
	CosineSteps int     // > 0: after warm-up, cosine decay of the rate to MinLR·LR at this step
	MinLR       float64 // the cosine's floor, as a fraction of LR
	EMAWarmup   bool    // EMA decay min(EMADecay, (1+t)/(10+t)) at step t
	Beta1       float64
	Beta2       float64
	Eps         float64
	WeightDecay float64 // decoupled, on weight matrices (rank ≥ 2) only
	ClipNorm    float64 // global-norm clip; 0 disables
	EMADecay    float64 // used when EMAPrefix is set
	EMAPrefix   string  // where EMA copies live ("" for none); they must exist
}

// gradientsAndNorm returns the params' values in the graph, the gradients of loss with respect
// to them and the gradients' global norm.
func gradientsAndNorm(params []*model.Variable, loss *Node) (nodes, grads []*Node, norm *Node) {
	g := loss.Graph()
	nodes = make([]*Node, len(params))
	for i, v := range params {
		nodes[i] = v.NodeValue(g)
	}
	grads = Gradient(loss, nodes...)
	sq := ScalarZero(g, loss.DType())
	for _, gr := range grads {
		sq = Add(sq, ReduceAllSum(Square(gr)))
	}
	return nodes, grads, Sqrt(sq)
}

// applyAdamW adds to the graph one AdamW step on params for loss: gradients clipped by their
// global norm, bias-corrected moments (kept under <ns>/adam_m and <ns>/adam_v), linear warm-up,
// decoupled weight decay on matrices, and the EMA update. ns namespaces the optimiser state so
// that several optimisers can share a store. It returns the gradient norm before clipping.
func applyAdamW(store *model.Store, params []*model.Variable, loss *Node, cfg optimConfig, ns string) *Node {
	g := loss.Graph()
	dt := loss.DType()
	nodes, grads, norm := gradientsAndNorm(params, loss)
	scale := ScalarOne(g, dt)
	if cfg.ClipNorm > 0 {
		scale = MinScalar(Div(Scalar(g, dt, cfg.ClipNorm), AddScalar(norm, 1e-6)), 1.0)
	}
	stepVar := store.VariableWithShape(ns+stepVarPath, shapes.Make(dt), initializer.Zero)
	stepVar.Trainable = false
	step := AddScalar(stepVar.NodeValue(g), 1) // t = 1, 2, …
	lr := MulScalar(MinScalar(DivScalar(step, float64(cfg.Warmup)), 1.0), cfg.LR)
	if cfg.CosineSteps > cfg.Warmup {
		// progress p ∈ [0, 1] after warm-up; rate factor MinLR + (1 − MinLR)·(1 + cos πp)/2
		p := MinScalar(MaxScalar(DivScalar(AddScalar(step, -float64(cfg.Warmup)), float64(cfg.CosineSteps-cfg.Warmup)), 0), 1)
		f := AddScalar(MulScalar(AddScalar(Cos(MulScalar(p, math.Pi)), 1), (1-cfg.MinLR)/2), cfg.MinLR)
		lr = Mul(lr, f)
	}
	bc1 := OneMinus(Exp(MulScalar(step, math.Log(cfg.Beta1+1e-300))))
	bc2 := OneMinus(Exp(MulScalar(step, math.Log(cfg.Beta2))))
	for i, v := range params {
		gr := Mul(grads[i], scale)
		mVar := store.VariableWithShape(ns+adamMPrefix+v.Path(), v.Shape(), initializer.Zero)
		vVar := store.VariableWithShape(ns+adamVPrefix+v.Path(), v.Shape(), initializer.Zero)
		mVar.Trainable, vVar.Trainable = false, false
		m := Add(MulScalar(mVar.NodeValue(g), cfg.Beta1), MulScalar(gr, 1-cfg.Beta1))
		s := Add(MulScalar(vVar.NodeValue(g), cfg.Beta2), MulScalar(Square(gr), 1-cfg.Beta2))
		upd := Div(Div(m, bc1), AddScalar(Sqrt(Div(s, bc2)), cfg.Eps))
		theta := nodes[i]
		if v.Shape().Rank() >= 2 && cfg.WeightDecay > 0 {
			upd = Add(upd, MulScalar(theta, cfg.WeightDecay))
		}
		newTheta := Sub(theta, Mul(lr, upd))
		mVar.SetNodeValue(m)
		vVar.SetNodeValue(s)
		v.SetNodeValue(newTheta)
		if cfg.EMAPrefix != "" {
			ema := store.GetVariable(cfg.EMAPrefix + v.Path())
			decay := Scalar(g, dt, cfg.EMADecay)
			if cfg.EMAWarmup { // short runs: the average forgets the initialisation early on
				decay = MinScalar(Div(AddScalar(step, 1), AddScalar(step, 10)), cfg.EMADecay)
			}
			ema.SetNodeValue(Add(Mul(ema.NodeValue(g), decay), Mul(newTheta, OneMinus(decay))))
		}
	}
	stepVar.SetNodeValue(step)
	return norm
}
