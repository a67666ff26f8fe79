//go:build xla

package eqflib

// The GPU check (`make gpu-check`): one train step and one sample step of the DiT on the XLA
// backend against the same step on the pure-Go backend, from identical weights and inputs, and
// ms/step of both. Build it here (`make gpu-check` → bin/eqflib-xla.test, needs gcc, no GPU) and
// run it on a GPU machine without Go:
//
//	GOMLX_BACKEND=xla:cuda,tf32=false ./eqflib-xla.test -test.run GPUCheck -test.v
//
// The comparison is float32 on both sides with TF32 off (XLA's default on CUDA is TF32 on,
// which rounds matmul inputs to 10 mantissa bits and would make a tight comparison meaningless).

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
)

// Tolerances of the GPU check (relative L2 error against the pure-Go backend, float32, TF32 off).
// The forward pass and the loss differ only by summation order (measured ~1e-6 on an H100); the
// first AdamW update is m/(√v+ε) ≈ ±lr per weight, so a weight whose gradient is at rounding
// level can flip sign: its tolerance is looser.
const (
	gpuTolForward = 1e-4
	gpuTolLoss    = 1e-4
	gpuTolUpdate  = 2e-2
	gpuTolHalf    = 3e-2 // bfloat16 products (EQF_PRECISION=bfloat16) against float32
)

// usePrecisionForTest makes the graphs built until restore is called compute in precision p.
func usePrecisionForTest(p Precision) (restore func()) {
	_, _ = CurrentPrecision()
	old := precisionVal
	precisionVal = p
	return func() { precisionVal = old }
}

// useBackendForTest makes Backend() return b until restore is called (tests only: the DiTs and
// trainers built meanwhile keep b).
func useBackendForTest(b compute.Backend) (restore func()) {
	_, _ = Backend()
	old := backendVal
	backendVal = b
	return func() { backendVal = old }
}

func TestGPUCheck(t *testing.T) {
	xb, err := Backend()
	if err != nil {
		t.Fatal(err)
	}
	if isGoBackend(xb) {
		t.Skip("set GOMLX_BACKEND=xla:cuda,tf32=false (or an xla:/abs/plugin.so) to compare XLA with the Go backend")
	}
	if cfg := os.Getenv(BackendEnv); !strings.Contains(cfg, "tf32=false") {
		t.Logf("note: %s=%q keeps TF32 on; the comparison's tolerances assume tf32=false", BackendEnv, cfg)
	}
	gb, err := newGoBackend("parallelism=-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("XLA backend: %s", xb.Description())
	t.Logf("Go backend:  %s", gb.Description())
	fmt.Printf("%-8s %-14s %14s %14s %10s %12s\n", "preset", "step", "Go ms/step", "XLA ms/step", "speed-up", "rel. error")
	for _, preset := range []string{"tiny", "small"} {
		t.Run(preset, func(t *testing.T) { gpuCheckPreset(t, preset, gb, xb) })
	}
}

type gpuSide struct {
	name     string
	backend  compute.Backend
	dit      *DiT
	trainer  *Trainer
	v        []float64            // sample-step output
	before   map[string][]float64 // weights before the train step
	after    map[string][]float64
	loss     float64
	norm     float64
	sampleMS float64 // host window in, host output out (what a sampler pays per step today)
	deviceMS float64 // inputs kept on the device, only the last block's pooled activations read back
	trainMS  float64
}

func gpuCheckPreset(t *testing.T, preset string, gb, xb compute.Backend) {
	cfg := DiTPresets[preset]
	const B, T = 8, 4
	rng := NewRNG(7)
	x, _ := Randn(rng, B, T, cfg.Channels, cfg.Height, cfg.Width)
	eps, _ := Randn(rng, B, T, cfg.Channels, cfg.Height, cfg.Width)
	level, mask, cond := make([]float64, B*T), make([]float64, B*T), make([]float64, B*T*cfg.CondDim)
	for i := range level {
		level[i], mask[i] = rng.Float64(), 1
	}
	for i := range cond {
		cond[i] = float64(rng.IntN(2))
	}
	train, _, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), T, cfg.Height, cfg.Width, 16, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := NewObjective(EqF)
	tc := DefaultTrainConfig(obj)
	tc.Batch, tc.LR, tc.Warmup, tc.EMADecay = B, 1e-3, 1, 0.99

	var weights map[string][]float64
	build := func(name string, b compute.Backend, devices int, p Precision) *gpuSide {
		restore := useBackendForTest(b)
		defer restore()
		defer usePrecisionForTest(p)()
		s := &gpuSide{name: name, backend: b}
		if s.dit, err = NewDiT(cfg, false, 1, dtypes.Float32); err != nil {
			t.Fatal(err)
		}
		f := s.dit.WithConditions(cond[:T*cfg.CondDim])
		x1 := &Window{Shape: [5]int{1, T, cfg.Channels, cfg.Height, cfg.Width}, Data: x.Data[:T*x.FrameSize()]} // batch 1
		if _, err := f.Eval(x1, nil, EvalOptions{}); err != nil {                                               // creates the variables
			t.Fatal(err)
		}
		if weights == nil {
			weights = randomWeights(s.dit, NewRNG(11))
		}
		setWeights(t, s.dit, weights)
		// Sample step: one network evaluation of the window (batch 1), host in, host out.
		for i := 0; i < 3; i++ { // compile + warm up
			out, err := f.Eval(x1, nil, EvalOptions{})
			if err != nil {
				t.Fatalf("%s sample step: %v", name, err)
			}
			s.v = out.V.Data
		}
		s.sampleMS = medianMS(10, func() {
			if _, err := f.Eval(x1, nil, EvalOptions{}); err != nil {
				t.Fatal(err)
			}
		})
		xt := toTensorAs(s.dit.DType, x1.Data, x1.Shape[:]...)
		lt := toTensorAs(s.dit.DType, make([]float64, T), 1, T)
		ct, _ := condTensor(s.dit.DType, cond[:T*cfg.CondDim], 1, T, cfg.CondDim)
		s.deviceMS = medianMS(10, func() {
			outs, err := s.dit.exec.Call(xt, lt, ct)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fromTensorAs(s.dit.DType, outs[cfg.Depth]); err != nil {
				t.Fatal(err)
			}
			finalizeAll(outs)
		})
		// Train step: one AdamW step on the fixed batch.
		c := tc
		c.Devices = devices
		if s.trainer, err = NewTrainer(s.dit, train, nil, c); err != nil {
			t.Fatalf("%s trainer: %v", name, err)
		}
		s.before = ditWeights(t, s.dit)
		if s.loss, err = s.trainer.TrainStepOn(x, eps, level, mask, cond); err != nil {
			t.Fatalf("%s train step: %v", name, err)
		}
		s.norm = s.trainer.History[0].GradNorm
		s.after = ditWeights(t, s.dit)
		s.trainMS = medianMS(5, func() {
			if _, err := s.trainer.TrainStepOn(x, eps, level, mask, cond); err != nil {
				t.Fatal(err)
			}
		})
		return s
	}
	ref := build("go", gb, 0, Float32)
	got := build("xla", xb, 0, Float32)
	dp := build("xla data-parallel (1 device)", xb, 1, Float32)
	half := build("xla bfloat16", xb, 0, BFloat16)

	fwd := relL2(got.v, ref.v)
	upd := relL2(delta(got), delta(ref))
	fmt.Printf("%-8s %-14s %14.2f %14.2f %9.1fx %12.2e\n", preset, "sample", ref.sampleMS, got.sampleMS, ref.sampleMS/got.sampleMS, fwd)
	fmt.Printf("%-8s %-14s %14.2f %14.2f %9.1fx %12s\n", preset, "sample, device", ref.deviceMS, got.deviceMS, ref.deviceMS/got.deviceMS, "")
	fmt.Printf("%-8s %-14s %14.2f %14.2f %9.1fx %12.2e\n", preset, "train", ref.trainMS, got.trainMS, ref.trainMS/got.trainMS, upd)
	halfFwd, halfUpd := relL2(half.v, ref.v), relL2(delta(half), delta(ref))
	fmt.Printf("%-8s %-14s %14.2f %14.2f %9.1fx %12.2e\n", preset, "sample bf16", ref.sampleMS, half.sampleMS, ref.sampleMS/half.sampleMS, halfFwd)
	fmt.Printf("%-8s %-14s %14.2f %14.2f %9.1fx %12.2e\n", preset, "train bf16", ref.trainMS, half.trainMS, ref.trainMS/half.trainMS, halfUpd)
	t.Logf("%s bfloat16: loss %.7f (float32 %.7f), grad norm %.6f (%.6f)", preset, half.loss, ref.loss, half.norm, ref.norm)
	// bfloat16 keeps 8 significant bits (relative rounding 2⁻⁹ ≈ 2e-3 per operand): the
	// output must differ from float32 by more than float32's summation-order noise (else the
	// products did not run in bfloat16) and by less than a few percent.
	if halfFwd < 10*gpuTolForward || halfFwd > gpuTolHalf {
		t.Errorf("%s bfloat16 sample step: relative L2 error %.2e from float32, want in [%.0e, %.0e]", preset, halfFwd, 10*gpuTolForward, gpuTolHalf)
	}
	if e := math.Abs(half.loss-ref.loss) / ref.loss; e > gpuTolHalf {
		t.Errorf("%s bfloat16 train step: loss %.7f, float32 %.7f (rel. %.2e > %.0e)", preset, half.loss, ref.loss, e, gpuTolHalf)
	}
	t.Logf("%s: loss go %.7f xla %.7f; grad norm go %.6f xla %.6f; data-parallel loss %.7f, update rel. error vs xla %.2e",
		preset, ref.loss, got.loss, ref.norm, got.norm, dp.loss, relL2(delta(dp), delta(got)))
	if fwd > gpuTolForward {
		t.Errorf("%s sample step: XLA output differs from the Go backend's by %.2e (relative L2), want ≤ %.0e", preset, fwd, gpuTolForward)
	}
	if e := math.Abs(got.loss-ref.loss) / ref.loss; e > gpuTolLoss {
		t.Errorf("%s train step: loss %.7f on XLA, %.7f on Go (rel. %.2e > %.0e)", preset, got.loss, ref.loss, e, gpuTolLoss)
	}
	if e := math.Abs(got.norm-ref.norm) / ref.norm; e > gpuTolLoss {
		t.Errorf("%s train step: gradient norm %.6f on XLA, %.6f on Go (rel. %.2e > %.0e)", preset, got.norm, ref.norm, e, gpuTolLoss)
	}
	if upd > gpuTolUpdate {
		t.Errorf("%s train step: the weight update differs by %.2e (relative L2), want ≤ %.0e", preset, upd, gpuTolUpdate)
	}
	if e := math.Abs(dp.loss-got.loss) / got.loss; e > gpuTolLoss || relL2(delta(dp), delta(got)) > gpuTolUpdate {
		t.Errorf("%s data-parallel step (1 device): loss %.7f vs %.7f, update rel. error %.2e", preset, dp.loss, got.loss, relL2(delta(dp), delta(got)))
	}
}

func ditWeights(t *testing.T, d *DiT) map[string][]float64 {
	t.Helper()
	out := map[string][]float64{}
	for v := range d.Store.IterVariables() {
		if !strings.HasPrefix(v.Path(), "/dit/") || !v.DType().IsFloat() {
			continue
		}
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		if out[v.Path()], err = fromTensorAs(d.DType, val); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// delta is the first step's update of every weight, concatenated in path order.
func delta(s *gpuSide) []float64 {
	paths := make([]string, 0, len(s.before))
	for p := range s.before {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var d []float64
	for _, p := range paths {
		for i, b := range s.before[p] {
			d = append(d, s.after[p][i]-b)
		}
	}
	return d
}

func relL2(a, b []float64) float64 {
	var num, den float64
	for i := range b {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}
