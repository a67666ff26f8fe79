package eqflib

import (
	"math"
	"strings"
	"testing"
)

// TrainPreset.Set changes a setting by its JSON name, the keys `eqf train -set` takes.
func TestTrainPresetSet(t *testing.T) {
	want := []string{"batch", "clip_norm", "cond_dropout", "ema", "lr", "max_context", "min_lr", "warmup", "weight_decay"}
	if got := TrainPresetKeys(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("keys %v, want %v", got, want)
	}
	p := TrainPresets["cpu"]
	if err := p.Set("weight_decay", 0.05); err != nil || p.WeightDecay != 0.05 {
		t.Errorf("weight_decay: %v, %g", err, p.WeightDecay)
	}
	if err := p.Set("batch", 4); err != nil || p.Batch != 4 {
		t.Errorf("batch: %v, %d", err, p.Batch)
	}
	if TrainPresets["cpu"].Batch == 4 {
		t.Error("Set changed the registered preset")
	}
	assertParamErr(t, "fraction", p.Set("batch", 2.5), "batch")
	assertParamErr(t, "NaN", p.Set("lr", math.NaN()), "lr")
	assertParamErr(t, "unknown", p.Set("wd", 0.1), "key")
}

// The paper preset scaled to a run keeps the paper's warm-up and EMA horizon as shares of the
// run (App. D: 2,000 warm-up steps and EMA 0.9999 over 580k steps) and nothing of the cpu
// recipes' guidance settings.
func TestScalePaperPreset(t *testing.T) {
	full := ScalePaperPreset(DefaultPaperSteps)
	if full.Warmup != DefaultWarmup || math.Abs(full.EMADecay-DefaultEMADecay) > 1e-12 {
		t.Errorf("580k steps: warm-up %d, EMA %v; want the paper's %d and %v", full.Warmup, full.EMADecay, DefaultWarmup, DefaultEMADecay)
	}
	p := TrainPresets["paper-maze"]
	if p.Warmup != 24 || math.Abs(p.EMADecay-(1-1/(10000*7000.0/580000))) > 1e-12 {
		t.Errorf("7,000 steps: warm-up %d, EMA %v; want 24 and 1 − 1/120.7", p.Warmup, p.EMADecay)
	}
	if p.CondDropout != 0 || p.MaxContext != 0 || p.Cosine || p.EMAWarmup || p.Batch != 8 || p.WeightDecay != 1e-3 || p.ClipNorm != 1 {
		t.Errorf("paper-maze = %s: want no condition dropout, independent levels, a constant rate after warm-up, batch 8, weight decay 1e-3, clip 1", p)
	}
	tc := p.Config(Objective{Kind: FM}, PaperMazeSteps)
	if tc.CosineSteps != 0 || tc.Beta1 != 0.9 || tc.Beta2 != 0.99 {
		t.Errorf("paper-maze's TrainConfig: cosine %d, β = (%v, %v); want constant, (0.9, 0.99)", tc.CosineSteps, tc.Beta1, tc.Beta2)
	}
	if small := ScalePaperPreset(1); small.Warmup < 1 || small.EMADecay < 0 {
		t.Errorf("1 step: warm-up %d, EMA %v", small.Warmup, small.EMADecay)
	}
}
