package eqflib

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
)

// The learning-rate schedule and the EMA warm-up, read off the updates: with β₁ = β₂ = 0 AdamW
// moves a weight by lr(t)·g/(|g| + ε) ≈ lr(t) per step for the loss −w (g = −1), and the EMA
// follows w with the decay the schedule says.
func TestAdamWScheduleAndEMAWarmup(t *testing.T) {
	backend, _ := Backend()
	cfg := optimConfig{LR: 0.1, Warmup: 4, CosineSteps: 12, MinLR: 0.2, Beta1: 0, Beta2: 0, Eps: 1e-12, EMADecay: 0.99,
		EMAWarmup: true, EMAPrefix: "/ema"}
	store := model.NewStore()
	w := store.VariableWithShape("/w", shapes.Make(dtypes.Float64, 1), initializer.Zero)
	ema := store.VariableWithShape("/ema/w", shapes.Make(dtypes.Float64, 1), initializer.Zero)
	ema.Trainable = false
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, x *graph.Node) *graph.Node {
		keepVariablesAsParameters(scope, x.Graph())
		loss := graph.Neg(graph.ReduceAllSum(graph.Mul(w.NodeValue(x.Graph()), x)))
		return applyAdamW(store, []*model.Variable{w}, loss, cfg, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func(v *model.Variable) float64 {
		val, _ := v.Value()
		f, _ := tensors.CopyFlatData[float64](val)
		return f[0]
	}
	prevW, wantEMA := 0.0, 0.0
	for step := 1; step <= 16; step++ {
		if _, err := exec.Call(tensors.FromFlatDataAndDimensions([]float64{1}, 1)); err != nil {
			t.Fatal(err)
		}
		lr := cfg.LR * math.Min(float64(step)/4, 1)
		if step > 4 {
			p := math.Min(float64(step-4)/8, 1)
			lr *= 0.2 + 0.8*(1+math.Cos(math.Pi*p))/2
		}
		cur := read(w)
		if math.Abs(cur-prevW-lr) > 1e-12 {
			t.Errorf("step %d: the weight moved %.12g, want the scheduled rate %.12g", step, cur-prevW, lr)
		}
		decay := math.Min(float64(step+1)/float64(step+10), 0.99)
		wantEMA = decay*wantEMA + (1-decay)*cur
		if got := read(ema); math.Abs(got-wantEMA) > 1e-12 {
			t.Errorf("step %d: EMA %.12g, want %.12g (decay %.4f)", step, got, wantEMA, decay)
		}
		prevW = cur
	}
	obj, _ := NewObjective(EqF)
	c := DefaultTrainConfig(obj)
	c.CosineSteps = c.Warmup
	assertParamErr(t, "cosine ≤ warm-up", c.Validate(), "TrainConfig.CosineSteps")
	c = DefaultTrainConfig(obj)
	c.MinLR = 1.5
	assertParamErr(t, "min lr", c.Validate(), "TrainConfig.MinLR")
}
