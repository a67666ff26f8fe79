package eqflib_test

import (
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// The step benchmarks of make bench-peer (bench/peer runs each row in its own process beside
// the PyTorch peer, bench/torch_peer.py). Each row builds and compiles once, outside the timing:
// the testing package calls a benchmark with b.N = 1 and then with the requested N, and both
// calls share the memoised model.

var (
	benchTrainers = map[string]*eqflib.Trainer{}
	benchSamplers = map[string]func(steps int) error{}
)

func benchTrainer(b *testing.B, preset string, frames int) *eqflib.Trainer {
	if tr := benchTrainers[preset]; tr != nil {
		return tr
	}
	cfg := eqflib.DiTPresets[preset]
	train, _, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), frames, cfg.Height, cfg.Width, 64, 8, 1)
	if err != nil {
		b.Fatal(err)
	}
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	m, _ := eqflib.NewDiT(cfg, false, 1, dtypes.Float32)
	tc := eqflib.DefaultTrainConfig(obj)
	tc.Batch = 8
	tr, err := eqflib.NewTrainer(m, train, nil, tc)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tr.TrainStep(); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	benchTrainers[preset] = tr
	return tr
}

// reportStep reports the mean time of one of b.N steps.
func reportStep(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
}

// BenchmarkTrainStep times one EqF training step (batch 8, 4 frames: EqF loss, AdamW, global-norm
// clipping, EMA) and reports steps/s and ms/step.
func BenchmarkTrainStep(b *testing.B) {
	for _, preset := range []string{"tiny", "small", "medium"} {
		b.Run(preset, func(b *testing.B) {
			tr := benchTrainer(b, preset, 4)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tr.TrainStep(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			reportStep(b)
		})
	}
}

// BenchmarkSampleStep times one sampler step (batch 1, 4 frames: a network evaluation and the
// GD update) and reports ms/step.
func BenchmarkSampleStep(b *testing.B) {
	for _, preset := range []string{"tiny", "small", "medium", "paper"} {
		b.Run(preset, func(b *testing.B) {
			run := benchSamplers[preset]
			if run == nil {
				cfg := eqflib.DiTPresets[preset]
				m, _ := eqflib.NewDiT(cfg, false, 1, dtypes.Float32)
				f := m.WithConditions(make([]float64, 4*cfg.CondDim))
				x, _ := eqflib.Randn(eqflib.NewRNG(1), 1, 4, cfg.Channels, cfg.Height, cfg.Width)
				run = func(steps int) error {
					_, err := eqflib.SampleGD(f, x, eqflib.Options{Steps: steps})
					return err
				}
				if err := run(1); err != nil { // compile outside the timing
					b.Fatal(err)
				}
				benchSamplers[preset] = run
			}
			b.ResetTimer()
			if err := run(b.N); err != nil {
				b.Fatal(err)
			}
			reportStep(b)
		})
	}
}
