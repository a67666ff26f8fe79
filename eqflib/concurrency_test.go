package eqflib_test

import (
	"sync"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

// TestConcurrentSampling: goroutines sampling from one DiT at once (rollouts with the state on
// the backend, a window sampler with it on the host, plain Evals) share its executors and their
// caches; each gets exactly what it gets alone. make test runs it under the race detector.
func TestConcurrentSampling(t *testing.T) {
	cfg := eqflib.DiTPresets["tiny"]
	d, err := eqflib.NewDiT(cfg, false, 7, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := eqflib.Randn(eqflib.NewRNG(1), 1, 2, cfg.Channels, cfg.Height, cfg.Width)
	cond := make([]float64, (2+4+2-1)*cfg.CondDim) // the longest timeline, L = C + R + H − S
	for i := range cond {
		cond[i] = float64(i%3) - 1
	}
	warp, _ := eqflib.ParseWarp("c")
	jobs := []func() (*eqflib.Window, error){
		func() (*eqflib.Window, error) {
			r, err := eqflib.Roll(d, ctx, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 4},
				Frames: 4, Conditions: cond, CondDim: cfg.CondDim, Seed: 1,
				Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, Momentum: 0.3}}})
			if err != nil {
				return nil, err
			}
			return r.Frames, nil
		},
		func() (*eqflib.Window, error) {
			r, err := eqflib.Roll(d, ctx, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 2, Depth: 4},
				Frames: 4, Conditions: cond[:6*cfg.CondDim], CondDim: cfg.CondDim, Seed: 2, Sampler: eqflib.FrameSampler{Sampler: eqflib.GD}})
			if err != nil {
				return nil, err
			}
			return r.Frames, nil
		},
		func() (*eqflib.Window, error) {
			r, err := eqflib.SampleEuler(d.WithConditions(cond[:2*cfg.CondDim]), ctx, eqflib.Options{Steps: 3})
			if err != nil {
				return nil, err
			}
			return r.X, nil
		},
		func() (*eqflib.Window, error) {
			out, err := d.WithConditions(cond[:2*cfg.CondDim]).Eval(ctx, nil, eqflib.EvalOptions{Activations: true})
			if err != nil {
				return nil, err
			}
			return out.V, nil
		},
	}
	alone := make([]*eqflib.Window, len(jobs))
	for i, job := range jobs {
		if alone[i], err = job(); err != nil {
			t.Fatal(err)
		}
	}
	for round := 0; round < 2; round++ {
		got := make([]*eqflib.Window, 2*len(jobs))
		errs := make([]error, len(got))
		var wg sync.WaitGroup
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = jobs[i%len(jobs)]()
			}()
		}
		wg.Wait()
		for i, w := range got {
			if errs[i] != nil {
				t.Fatalf("job %d: %v", i, errs[i])
			}
			for k, v := range w.Data {
				if v != alone[i%len(jobs)].Data[k] {
					t.Fatalf("round %d job %d: entry %d is %v concurrently, %v alone", round, i, k, v, alone[i%len(jobs)].Data[k])
				}
			}
		}
	}
}
