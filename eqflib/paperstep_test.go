package eqflib

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestPaperPresetStep times the paper preset (95M-class, 32×32×4 latents, patch 2: 256 tokens
// per frame) on whatever backend $GOMLX_BACKEND selects: one sampling step over a 50-frame window
// at batch 1 — the setting of the paper's Table sampling_runtime (App. D.6: 34.41–35.10 ms per
// step on one H200, bfloat16) — and one training step. It is heavy (minutes on a laptop CPU), so
// it runs only with EQF_PAPER_STEP=1; EQF_PAPER_FRAMES (default 50), EQF_PAPER_REPS (default 5;
// 1 on the Go backend stops after the first call) and EQF_PAPER_TRAIN ("BxT" batches to try in turn until one fits, default "8x8,4x8,2x8";
// "none" skips training) change it.
func TestPaperPresetStep(t *testing.T) {
	if os.Getenv("EQF_PAPER_STEP") == "" {
		t.Skip("set EQF_PAPER_STEP=1 to time the paper preset (heavy)")
	}
	b, err := Backend()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := CurrentPrecision()
	on := fmt.Sprintf("%s (%s)", b.Name(), p) // the backend and $EQF_PRECISION
	cfg := DiTPresets["paper"]
	frames, reps := envInt("EQF_PAPER_FRAMES", 50), envInt("EQF_PAPER_REPS", 5)
	d, err := NewDiT(cfg, false, 1, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	f := d.WithConditions(make([]float64, frames*cfg.CondDim))
	x, _ := Randn(NewRNG(1), 1, frames, cfg.Channels, cfg.Height, cfg.Width)
	gflop := forwardGFLOP(cfg, 1, frames)
	start := time.Now()
	if _, err := f.Eval(x, nil, EvalOptions{}); err != nil {
		t.Fatal(err)
	}
	first := time.Since(start)
	fmt.Printf("paper preset on %s: %d params; sampling step, batch 1 × %d frames (%d tokens, %.0f GFLOP): first call "+
		"(graph build, compile and one step) %.1f s\n", on, cfg.NumParams(), frames, frames*cfg.Tokens(), gflop, first.Seconds())
	if reps == 1 && isGoBackend(b) {
		return // on a laptop one step takes many minutes; the Go backend builds its graph in well under a second
	}
	sample := medianMS(reps, func() {
		if _, err := f.Eval(x, nil, EvalOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	// The same step without the host round trip: inputs stay on the device between calls and
	// only the last block's pooled activations ([1, T, D]) are read back, to wait for the result.
	xt := toTensorAs(d.DType, x.Data, x.Shape[:]...)
	lt := toTensorAs(d.DType, make([]float64, frames), 1, frames)
	ct, _ := condTensor(d.DType, make([]float64, frames*cfg.CondDim), 1, frames, cfg.CondDim)
	device := medianMS(reps, func() {
		outs, err := d.exec.Call(xt, lt, ct)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tensors.CopyFlatData[float32](outs[cfg.Depth]); err != nil {
			t.Fatal(err)
		}
		finalizeAll(outs)
	})
	fmt.Printf("paper preset on %s: sampling step %.2f ms/step (%.2f ms with inputs kept on the device; %.0f GFLOP/s)\n",
		on, sample, device, gflop/device*1e3)

	for _, bt := range strings.Split(envString("EQF_PAPER_TRAIN", "8x8,4x8,2x8"), ",") {
		if bt == "none" {
			break
		}
		var B, T int
		if _, err := fmt.Sscanf(bt, "%dx%d", &B, &T); err != nil {
			t.Fatalf("EQF_PAPER_TRAIN: %q is not BxT", bt)
		}
		ms, err := paperTrainStep(cfg, B, T, reps)
		if err != nil {
			t.Logf("training step %dx%d did not run: %v", B, T, firstLine(err.Error()))
			continue
		}
		g := 3 * forwardGFLOP(cfg, B, T)
		fmt.Printf("paper preset on %s: training step, batch %d × %d frames (≈%.0f GFLOP): %.1f ms/step (%.0f GFLOP/s)\n",
			on, B, T, g, ms, g/ms*1e3)
		break
	}
}

func paperTrainStep(cfg DiTConfig, B, T, reps int) (ms float64, err error) {
	defer catch(&err)
	m, err := NewDiT(cfg, false, 2, dtypes.Float32)
	if err != nil {
		return 0, err
	}
	ds := &randomDataset{frames: T, cfg: cfg}
	obj, _ := NewObjective(EqF)
	tc := DefaultTrainConfig(obj)
	tc.Batch = B
	tr, err := NewTrainer(m, ds, nil, tc)
	if err != nil {
		return 0, err
	}
	if _, err := tr.TrainStep(); err != nil { // compile
		return 0, err
	}
	var stepErr error
	ms = medianMS(reps, func() {
		if _, err := tr.TrainStep(); err != nil && stepErr == nil {
			stepErr = err
		}
	})
	return ms, stepErr
}

// forwardGFLOP counts one forward pass's multiply-adds ×2 analytically: the dense layers (2 FLOPs
// per weight per token) and attention's two T·N × T·N products per block.
func forwardGFLOP(c DiTConfig, B, T int) float64 {
	tokens := float64(B * T * c.Tokens())
	d := float64(c.Hidden)
	mlp := c.MLPRatio * d
	perToken := float64(c.Channels*c.Patch*c.Patch)*d + float64(c.Depth)*(4*d*d+2*d*mlp) + d*float64(c.Channels*c.Patch*c.Patch)
	seq := float64(T * c.Tokens())
	attn := float64(B) * float64(c.Depth) * 2 * seq * seq * d
	return 2 * (tokens*perToken + attn) / 1e9
}

// randomDataset is a Dataset of random frames with the DiT's shape (for timing only).
type randomDataset struct {
	frames int
	cfg    DiTConfig
}

func (r *randomDataset) Len() int { return 64 }
func (r *randomDataset) Shape() (frames, c, h, w, cond int) {
	return r.frames, r.cfg.Channels, r.cfg.Height, r.cfg.Width, r.cfg.CondDim
}
func (r *randomDataset) Window(i int, pixels, cond []float64) error {
	rng := NewRNG(uint64(i))
	for j := range pixels {
		pixels[j] = rng.NormFloat64()
	}
	clear(cond)
	return nil
}

// medianMS runs fn n times and returns the median wall time in milliseconds.
func medianMS(n int, fn func()) float64 {
	ts := make([]float64, n)
	for i := range ts {
		start := time.Now()
		fn()
		ts[i] = float64(time.Since(start).Microseconds()) / 1e3
	}
	sort.Float64s(ts)
	return ts[n/2]
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
