package eqflib

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Training presets: the one place where training hyperparameters get their values, beside
// DiTPresets for the backbone. "paper" is the paper's Minecraft setting (App. D, Table
// training_details), "paper-maze" the same scaled to a 7,000-step maze run (ScalePaperPreset:
// what the paper's experiments in eqf's paper package train with); "cpu" is what trains the small maze models best on two cores (measured by
// the zoo's recipe sweep, docs/zoo.md); "cpu-guided" is "cpu" with a slower EMA and the
// actions dropped from a tenth of the windows, so that the models can be sampled with
// classifier-free guidance (the model zoo's preset); "quick" is for tests and CI. The command line
// (`eqf train -train cpu`), the Makefile, the demo and the model zoo only pick a name.

// TrainPreset is a named set of training settings; Config turns it into a TrainConfig.
type TrainPreset struct {
	Batch  int     `json:"batch"`
	LR     float64 `json:"lr"`
	Warmup int     `json:"warmup"` // linear warm-up steps
	// Cosine decays the rate after warm-up along a half cosine over the run to MinLR·LR.
	Cosine      bool    `json:"cosine"`
	MinLR       float64 `json:"min_lr"`
	WeightDecay float64 `json:"weight_decay"`
	ClipNorm    float64 `json:"clip_norm"`
	EMADecay    float64 `json:"ema"`
	EMAWarmup   bool    `json:"ema_warmup"` // decay min(EMADecay, (1+t)/(10+t))
	// MaxContext > 0 trains with the random-length-context noise strategy; 0 draws every
	// frame's level independently (Diffusion Forcing), as the paper's Minecraft models do.
	MaxContext int `json:"max_context"`
	// CondDropout trains with the conditions of a window dropped (zeroed) with this probability,
	// so that the model can be sampled with classifier-free guidance (Guide).
	CondDropout float64 `json:"cond_dropout,omitempty"`
	// Readout trains h_ω on the frozen backbone, GPhi the framewise predictor g_φ, ActionNet the
	// maze action net whose features are "maze-I3D".
	Readout   ProbeConfig `json:"readout"`
	GPhi      ProbeConfig `json:"gphi"`
	ActionNet ProbeConfig `json:"action_net"`
}

// Default training values: the paper's Minecraft settings (App. D, Table training_details).
const (
	DefaultLR          = 2e-4
	DefaultWarmup      = 2000
	DefaultBeta1       = 0.9
	DefaultBeta2       = 0.99
	DefaultAdamEps     = 1e-8
	DefaultWeightDecay = 1e-3
	DefaultClipNorm    = 1.0
	DefaultEMADecay    = 0.9999
	DefaultBatch       = 8
	DefaultPaperSteps  = 580_000 // the paper's Minecraft training length
)

// PaperMazeSteps is the backbone run length of the "paper-maze" preset (and of the zoo's
// "paper" recipe): what two CPU cores train in about a quarter of an hour per backbone.
const PaperMazeSteps = 7000

// TrainPresets are the named training presets. "cpu-guided" and "quick" are "cpu" with the
// values that differ changed (derive), so that what sets them apart reads at a glance.
var TrainPresets = map[string]TrainPreset{
	"paper": {Batch: DefaultBatch, LR: DefaultLR, Warmup: DefaultWarmup, WeightDecay: DefaultWeightDecay,
		ClipNorm: DefaultClipNorm, EMADecay: DefaultEMADecay,
		Readout: ProbeConfig{Batch: 8, LR: 1e-3, Warmup: 50, Proj: DefaultReadoutProj},
		GPhi:    ProbeConfig{Batch: 8, LR: 1e-3, Warmup: 50}, ActionNet: ProbeConfig{Batch: 16, LR: 3e-3, Warmup: 50}},
	"paper-maze": ScalePaperPreset(PaperMazeSteps),
	"cpu":        cpuPreset,
	"cpu-guided": derive(cpuPreset, func(p *TrainPreset) {
		p.EMADecay, p.CondDropout = 0.9995, 0.1
	}),
	"quick": derive(cpuPreset, func(p *TrainPreset) {
		p.Warmup, p.EMADecay = 20, 0.99
		p.Readout.Warmup, p.GPhi.Warmup, p.ActionNet.Warmup = 20, 20, 20
	}),
}

var cpuPreset = TrainPreset{Batch: 8, LR: 2e-3, Warmup: 100, Cosine: true, MinLR: 0.1, WeightDecay: DefaultWeightDecay,
	ClipNorm: DefaultClipNorm, EMADecay: 0.999, EMAWarmup: true,
	Readout: ProbeConfig{Batch: 16, LR: 2e-3, Warmup: 50, Proj: DefaultReadoutProj},
	GPhi:    ProbeConfig{Batch: 8, LR: 3e-3, Warmup: 50}, ActionNet: ProbeConfig{Batch: 16, LR: 3e-3, Warmup: 50}}

// ScalePaperPreset is the paper's Minecraft training (App. D, Table training_details) scaled
// to a run of `steps` backbone steps on the maze: batch 8, Adam β = (0.9, 0.99), weight decay
// 1e-3, gradient clipping at norm 1, a linear warm-up and then a constant rate (the paper's
// "Linear Warmup"), no condition dropout, every frame's level drawn independently ("Random
// Independent"). Two values are scaled to the run, keeping their share of the paper's 580k
// steps: the warm-up (2,000 steps, 0.34 % of the run) and the EMA horizon 1/(1 − decay)
// (decay 0.9999: 10,000 steps, 1.7 % of the run), so a 7,000-step run warms up over 24 steps and
// averages with decay 1 − 1/121 ≈ 0.9917. One value is not the paper's: the learning rate is
// 2e-3 (the paper's 2e-4 is for its 95M-parameter DiT trained 83× longer; 2e-3 is the rate the
// cpu recipes measured best for the 5M-parameter maze DiT, docs/zoo.md). The probes (h_ω, g_φ,
// the action net) are the cpu preset's: the paper does not list their training.
func ScalePaperPreset(steps int) TrainPreset {
	frac := float64(max(steps, 1)) / DefaultPaperSteps
	horizon := max((1/(1-DefaultEMADecay))*frac, 1)
	return TrainPreset{Batch: DefaultBatch, LR: 2e-3, Warmup: max(int(math.Round(DefaultWarmup*frac)), 1),
		WeightDecay: DefaultWeightDecay, ClipNorm: DefaultClipNorm, EMADecay: 1 - 1/horizon,
		Readout: cpuPreset.Readout, GPhi: cpuPreset.GPhi, ActionNet: cpuPreset.ActionNet}
}

// derive is base with change applied (base is a value: the change stays in the copy).
func derive(base TrainPreset, change func(*TrainPreset)) TrainPreset {
	change(&base)
	return base
}

// TrainPresetByName returns a named training preset.
func TrainPresetByName(name string) (TrainPreset, error) {
	p, ok := TrainPresets[name]
	if !ok {
		return TrainPreset{}, paramErr("train preset", name, oneOf(TrainPresets))
	}
	return p, nil
}

// Config is the preset as a TrainConfig for an objective and a run of `steps` optimiser steps
// (the length of the cosine decay; ≤ Warmup or 0 keeps the rate constant after warm-up).
// Diffusion always draws levels independently (it has no clean-context strategy).
func (p TrainPreset) Config(obj Objective, steps int) TrainConfig {
	tc := TrainConfig{Objective: obj, Batch: p.Batch, LR: p.LR, Warmup: p.Warmup, MinLR: p.MinLR,
		EMAWarmup: p.EMAWarmup, Beta1: DefaultBeta1, Beta2: DefaultBeta2, Eps: DefaultAdamEps,
		WeightDecay: p.WeightDecay, ClipNorm: p.ClipNorm, EMADecay: p.EMADecay, MaxContext: p.MaxContext,
		CondDropout: p.CondDropout}
	if p.Cosine && steps > p.Warmup {
		tc.CosineSteps = steps
	}
	if obj.Kind == Diffusion {
		tc.MaxContext = 0
	}
	return tc
}

// String lists the preset's values, as `eqf train -h` shows them.
func (p TrainPreset) String() string {
	s := fmt.Sprintf("batch %d, lr %g, warm-up %d", p.Batch, p.LR, p.Warmup)
	if p.Cosine {
		s += fmt.Sprintf(", cosine to %g·lr", p.MinLR)
	}
	s += fmt.Sprintf(", weight decay %g, clip %g, EMA %g", p.WeightDecay, p.ClipNorm, p.EMADecay)
	if p.EMAWarmup {
		s += " (warm-up)"
	}
	if p.MaxContext > 0 {
		s += fmt.Sprintf(", random-length context ≤ %d", p.MaxContext)
	}
	if p.CondDropout > 0 {
		s += fmt.Sprintf(", conditions dropped %g", p.CondDropout)
	}
	return s + fmt.Sprintf("; h_ω: batch %d, lr %g; g_φ: batch %d, lr %g", p.Readout.Batch, p.Readout.LR, p.GPhi.Batch, p.GPhi.LR)
}

// DescribeTrainPresets lists every preset, one per line, sorted by name.
func DescribeTrainPresets() string {
	names := make([]string, 0, len(TrainPresets))
	for n := range TrainPresets {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, TrainPresets[n])
	}
	return b.String()
}

// TrainPresetKeys are the numeric settings of a TrainPreset by their JSON names (a preset
// file's keys, and what `eqf train -set key=value` accepts), sorted.
func TrainPresetKeys() []string {
	var keys []string
	t := reflect.TypeOf(TrainPreset{})
	for i := range t.NumField() {
		if name, ok := presetKey(t.Field(i)); ok {
			keys = append(keys, name)
		}
	}
	sort.Strings(keys)
	return keys
}

// presetKey is a field's JSON name when the field is a number Set can change.
func presetKey(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	k := f.Type.Kind()
	return name, name != "" && name != "-" && (k == reflect.Int || k == reflect.Float64)
}

// Set changes the setting whose JSON name is key (TrainPresetKeys) to value; an integer setting
// takes a whole number. The value's range is checked where the preset becomes a TrainConfig
// (TrainConfig.Validate).
func (p *TrainPreset) Set(key string, value float64) error {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return paramErr(key, value, "a finite number")
	}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		if name, ok := presetKey(v.Type().Field(i)); !ok || name != key {
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.Int {
			if value != math.Trunc(value) || math.Abs(value) > 1<<30 {
				return paramErr(key, value, "a whole number")
			}
			f.SetInt(int64(value))
		} else {
			f.SetFloat(value)
		}
		return nil
	}
	return paramErr("key", key, "one of "+strings.Join(TrainPresetKeys(), ", "))
}
