package eqflib

import (
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/model"
)

// BenchmarkSampleStepNAG times, on the zoo's "small" DiT with a readout (batch 1, an 8-frame
// window with actions), one plain network call on backend tensors ("network": the forward pass
// alone, returning v̂ and σ̂) against one closed-loop NAG step with the state on the backend ("nag-backend":
// look-ahead, network, readout, η(σ̂), momentum and update in one executor call) and on the host
// ("nag-host": float64 windows converted every step), interleaved; it reports each in ms and
// the ratios to the network call.
func BenchmarkSampleStepNAG(b *testing.B) {
	cfg := DiTPresets["small"]
	d, err := NewDiT(cfg, false, 1, dtypes.Float32)
	if err != nil {
		b.Fatal(err)
	}
	d.readoutProj = DefaultReadoutProj // a fresh (untrained) h_ω: timing only
	backend, _ := Backend()
	if err := d.buildExec(backend); err != nil {
		b.Fatal(err)
	}
	const B, T = 1, 8
	cond := make([]float64, B*T*cfg.CondDim)
	f := d.WithConditions(cond)
	x, _ := Randn(NewRNG(1), B, T, cfg.Channels, cfg.Height, cfg.Width)
	warp, _ := ParseWarp("c")
	opts := Options{Warp: warp, ClosedLoop: true, Momentum: 0.3}
	// The forward pass alone, returning v̂ and σ̂ (Field.Eval's executor also returns every layer's
	// activations).
	net, err := model.NewExec(backend, d.Store, func(scope *model.Scope, x, level, cond *Node) []*Node {
		keepVariablesAsParameters(scope, x.Graph())
		v, z := cfg.Forward(d.ditScope(scope.Store()), x, level, cond)
		return []*Node{v, Sigmoid(readoutLogit(scope.Store().Scope(readoutScope), z, d.readoutProj))}
	})
	if err != nil {
		b.Fatal(err)
	}
	xt := toTensorAs(d.DType, x.Data, x.Shape[:]...)
	lt := toTensorAs(d.DType, make([]float64, B*T), B, T)
	ct, _ := condTensor(d.DType, cond, B, T, cfg.CondDim)
	network := func() error {
		outs, err := net.Exec(xt, lt, ct)
		if err != nil {
			return err
		}
		_, err = fromTensorAs(d.DType, outs[1]) // σ̂ to the host, as a step does
		for _, o := range outs {
			_ = o.FinalizeAll()
		}
		return err
	}
	// Two engines stepping closed-loop NAG (a depth no frame reaches), state on the backend and on
	// the host.
	// An engine opens its state on its first step and keeps it: HostState is set before each.
	engines := make([]*engine, 2)
	for i := range engines {
		var err error
		fs := FrameSampler{Sampler: NAG, Depth: 1 << 20, Options: opts}
		if engines[i], err = newEngine(f, fs, x.Clone(), make([]bool, T), nil); err != nil {
			b.Fatal(err)
		}
	}
	all := func(int, int) bool { return true }
	runs := []func() error{network,
		func() error { _, err := engines[0].step(all, nil); return err },
		func() error { _, err := engines[1].step(all, nil); return err }}
	for i, r := range runs { // compile and warm up
		d.HostState = i == 2
		if err := r(); err != nil {
			b.Fatal(err)
		}
	}
	d.HostState = false
	if engines[0].backend == nil || engines[1].backend != nil {
		b.Fatal("the engines did not open their state where asked")
	}
	// Interleaved, so that the machine's drift hits the three alike.
	var total [3]time.Duration
	b.ResetTimer()
	for range b.N {
		for i, r := range runs {
			start := time.Now()
			if err := r(); err != nil {
				b.Fatal(err)
			}
			total[i] += time.Since(start)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(total[0]), "ms/network")
	b.ReportMetric(ms(total[1]), "ms/nag-backend")
	b.ReportMetric(ms(total[2]), "ms/nag-host")
	b.ReportMetric(float64(total[1])/float64(total[0]), "backend/network")
	b.ReportMetric(float64(total[2])/float64(total[0]), "host/network")
}

// BenchmarkRolloutStep times one closed-loop NAG step with the readout h_ω (paper App. H: look-ahead,
// network, σ̂ = h_ω(z), η(σ̂) of the c-function, momentum and update) on the zoo's "small" DiT,
// batch 1, an 8-frame window with actions, the state on the backend; bench/peer's rollout row,
// beside the same loop written plainly in PyTorch. Reports ms/step.
func BenchmarkRolloutStep(b *testing.B) { runRolloutBench(b, &benchRollout, 0) }

// BenchmarkGuidedRolloutStep is BenchmarkRolloutStep with classifier-free guidance w = 3 on the
// actions: on the backend path the conditioned and the action-free evaluation run as one batch
// of 2 in the step's executor call.
func BenchmarkGuidedRolloutStep(b *testing.B) { runRolloutBench(b, &benchGuided, 3) }

// The rollout benchmarks' step loops, built once per process (b.N grows over several calls).
var benchRollout, benchGuided func(steps int) error

// runRolloutBench times *loop, building it first (guidance > 0: guided with that weight) and
// compiling its executors outside the timing.
func runRolloutBench(b *testing.B, loop *func(steps int) error, guidance float64) {
	if *loop == nil {
		cfg := DiTPresets["small"]
		d, err := NewDiT(cfg, false, 1, dtypes.Float32)
		if err != nil {
			b.Fatal(err)
		}
		d.readoutProj = DefaultReadoutProj // a fresh (untrained) h_ω: timing only
		const T = 8
		cond := make([]float64, T*cfg.CondDim)
		for i := range cond {
			cond[i] = 1
		}
		// Create the variables first, so that every timed step runs on precomputed modulations.
		if _, err := d.WithConditions(cond).Eval(MustNewWindow(1, T, cfg.Channels, cfg.Height, cfg.Width), nil, EvalOptions{}); err != nil {
			b.Fatal(err)
		}
		var f Field = d
		if guidance > 0 {
			if f, err = Guide(d, guidance); err != nil {
				b.Fatal(err)
			}
		}
		f = f.(Conditioner).WithConditions(cond)
		x, _ := Randn(NewRNG(1), 1, T, cfg.Channels, cfg.Height, cfg.Width)
		warp, _ := ParseWarp("c")
		*loop = func(steps int) error {
			_, err := SampleNAG(f, x, Options{Steps: steps, Warp: warp, ClosedLoop: true, Momentum: 0.3})
			return err
		}
		if err := (*loop)(1); err != nil { // compile outside the timing
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	if err := (*loop)(b.N); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}
