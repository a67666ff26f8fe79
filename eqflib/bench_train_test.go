package eqflib_test

import (
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

func benchTrainer(b *testing.B, preset string, frames int) *eqflib.Trainer {
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
	return tr
}

// BenchmarkTrainStep times one EqF training step (batch 8, 4 frames) and reports steps/s.
func BenchmarkTrainStep(b *testing.B) {
	for _, preset := range []string{"tiny", "small"} {
		b.Run(preset, func(b *testing.B) {
			tr := benchTrainer(b, preset, 4)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tr.TrainStep(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkSampleStep times one network evaluation of a sampler step (batch 1, 4 frames) and
// reports ms/step.
func BenchmarkSampleStep(b *testing.B) {
	for _, preset := range []string{"tiny", "small"} {
		b.Run(preset, func(b *testing.B) {
			cfg := eqflib.DiTPresets[preset]
			m, _ := eqflib.NewDiT(cfg, false, 1, dtypes.Float32)
			f := m.WithConditions(make([]float64, 4*cfg.CondDim))
			x, _ := eqflib.Randn(eqflib.NewRNG(1), 1, 4, cfg.Channels, cfg.Height, cfg.Width)
			if _, err := eqflib.SampleGD(f, x, eqflib.Options{Steps: 1}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			if _, err := eqflib.SampleGD(f, x, eqflib.Options{Steps: b.N}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/step")
		})
	}
}
