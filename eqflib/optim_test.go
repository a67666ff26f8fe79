package eqflib

import (
	"math"
	"strings"
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

// The host AdamW (adamw_host.go) gives the weights, both moments, the EMA and the step count of
// the graph form (applyAdamW) on the same batches: warm-up, cosine decay, clipping (the clip is
// set below the gradient norm, so every step scales) and weight decay on matrices all take part.
// The two differ by float32 rounding only (the graph computes the schedule in float32 and
// divides where the host multiplies by reciprocals).
func TestHostAdamWMatchesGraph(t *testing.T) {
	backend, _ := Backend()
	if !useHostAdamW(backend, dtypes.Float32) {
		t.Skip("the host AdamW runs on the pure-Go backend only")
	}
	obj, _ := NewObjective(EqF)
	train := func(host bool) map[string][]float32 {
		hostAdamWEnabled = host
		defer func() { hostAdamWEnabled = true }()
		m, err := NewDiT(DiTPresets["tiny"], false, 1, dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultTrainConfig(obj)
		c.Batch, c.Warmup, c.CosineSteps, c.MinLR, c.EMAWarmup, c.ClipNorm = 4, 3, 8, 0.1, true, 0.05
		c.LR, c.WeightDecay = 3e-3, 0.1
		tr, err := NewTrainer(m, &randomDataset{frames: 4, cfg: m.Config}, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if (tr.hostOpt != nil) != host {
			t.Fatalf("host update %v, want %v", tr.hostOpt != nil, host)
		}
		for range 10 {
			if _, err := tr.TrainStep(); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range tr.History {
			if p.GradNorm <= c.ClipNorm {
				t.Fatalf("step %d: gradient norm %g ≤ the clip %g: the test needs clipping on every step", p.Step, p.GradNorm, c.ClipNorm)
			}
		}
		out := map[string][]float32{}
		for v := range m.Store.IterVariables() {
			if val, err := v.Value(); err == nil && v.DType() == dtypes.Float32 {
				out[v.Path()], _ = tensors.CopyFlatData[float32](val)
			}
		}
		return out
	}
	graphVars, hostVars := train(false), train(true)
	if len(graphVars) != len(hostVars) {
		t.Fatalf("%d variables with the graph update, %d with the host one", len(graphVars), len(hostVars))
	}
	kinds := map[string]int{}
	for path, want := range graphVars {
		got, ok := hostVars[path]
		if !ok || len(got) != len(want) {
			t.Fatalf("%s: missing or resized with the host update", path)
		}
		scale := 0.0
		for _, w := range want {
			scale = math.Max(scale, math.Abs(float64(w)))
		}
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 2e-5*scale+1e-9 {
				t.Fatalf("%s[%d] = %g with the host update, %g with the graph's (|Δ| %.2g, tensor max %.3g)", path, i, got[i], want[i], d, scale)
			}
		}
		kinds[strings.SplitN(path, "/", 3)[1]]++
	}
	for _, k := range []string{"dit", "adam_m", "adam_v", "ema", "train"} {
		if kinds[k] == 0 {
			t.Errorf("no %q variables compared (%v)", k, kinds)
		}
	}
}

// The SIMD kernels of the host AdamW equal the scalar loop bit for bit (same operations, same
// order), on lengths that leave a tail, with and without the EMA.
func TestAdamWKernelMatchesScalar(t *testing.T) {
	rng := NewRNG(3)
	k := adamwScalars{scale: 0.7, b1: 0.9, c1: 0.1, b2: 0.999, c2: 0.001, invBC1: 1 / 0.19, invBC2: 1 / 0.002,
		eps: 1e-8, lr: 1e-3, wd: 0.01, decay: 0.99, ema1: 0.01}
	for _, n := range []int{1, 15, 16, 37, 1029} {
		for _, withEMA := range []bool{false, true} {
			arrays := func() [5][]float32 {
				var a [5][]float32
				for j := range a {
					a[j] = make([]float32, n)
					for i := range a[j] {
						a[j][i] = float32(rng.NormFloat64())
					}
				}
				for i := range a[2] {
					a[2][i] *= a[2][i] // v ≥ 0
				}
				return a
			}
			a := arrays()
			theta0 := append([]float32(nil), a[0]...)
			var b [5][]float32
			for j := range a {
				b[j] = append([]float32(nil), a[j]...)
			}
			emaA, emaB := a[3], b[3]
			if !withEMA {
				emaA, emaB = nil, nil
			}
			adamwKernel(a[0], a[1], a[2], emaA, a[4], k)
			adamwScalar(b[0], b[1], b[2], emaB, b[4], k)
			for j := range 4 {
				for i := range a[j] {
					if a[j][i] != b[j][i] {
						t.Fatalf("n = %d, EMA %v: array %d [%d]: kernel %g, scalar %g", n, withEMA, j, i, a[j][i], b[j][i])
					}
				}
			}
			if a[0][0] == theta0[0] {
				t.Fatalf("n = %d: the kernel left θ unchanged", n)
			}
		}
	}
}
