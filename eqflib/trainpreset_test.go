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
