package eqflib

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestConfigFieldsBadInput has one row per exported field of the configuration structs a user
// fills in (DiTConfig, TrainConfig, Objective, ProbeConfig, RollConfig, Options): each bad value is refused
// by a *ParamError naming the field. Fields that take any value say why. A field without a row
// fails the test, so a new parameter cannot arrive without its check.
func TestConfigFieldsBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	obj, _ := NewObjective(EqF)
	dit := func(mut func(*DiTConfig)) error { c := DiTPresets["tiny"]; mut(&c); return c.Validate() }
	train := func(mut func(*TrainConfig)) error { c := DefaultTrainConfig(obj); mut(&c); return c.Validate() }
	probe := func(mut func(*ProbeConfig)) error { c := DefaultProbeConfig(); mut(&c); return c.validate() }
	roll := func(mut func(*RollConfig)) error {
		c := RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}
		mut(&c)
		return c.Validate()
	}
	_, _, fm, eqf := gaussianOracles(t, 4)
	x, _ := Randn(NewRNG(1), 1, 2, 4, 1, 1)
	sample := func(r Rule, o Options) error {
		if o.Steps == 0 {
			o.Steps = 4
		} else if o.Steps < 0 {
			o.Steps = 0
		}
		f := Field(eqf)
		if r == Euler {
			f = fm
		}
		_, err := sampleWindow(r, f, x, o)
		return err
	}
	anyValue := errors.New("any value is valid")
	rows := map[string][]func() error{
		"DiTConfig.Channels":     {func() error { return dit(func(c *DiTConfig) { c.Channels = 0 }) }},
		"DiTConfig.Height":       {func() error { return dit(func(c *DiTConfig) { c.Height = 18 }) }, func() error { return dit(func(c *DiTConfig) { c.Height = 1 << 20 }) }},
		"DiTConfig.Width":        {func() error { return dit(func(c *DiTConfig) { c.Width = 0 }) }},
		"DiTConfig.Patch":        {func() error { return dit(func(c *DiTConfig) { c.Patch = 0 }) }},
		"DiTConfig.Hidden":       {func() error { return dit(func(c *DiTConfig) { c.Hidden = 50 }) }},
		"DiTConfig.Depth":        {func() error { return dit(func(c *DiTConfig) { c.Depth = 0 }) }},
		"DiTConfig.Heads":        {func() error { return dit(func(c *DiTConfig) { c.Heads = 0 }) }},
		"DiTConfig.MLPRatio":     {func() error { return dit(func(c *DiTConfig) { c.MLPRatio = 0 }) }, func() error { return dit(func(c *DiTConfig) { c.MLPRatio = nan }) }, func() error { return dit(func(c *DiTConfig) { c.MLPRatio = inf }) }},
		"DiTConfig.CondDim":      {func() error { return dit(func(c *DiTConfig) { c.CondDim = -1 }) }},
		"DiTConfig.LevelFreqs":   {func() error { return dit(func(c *DiTConfig) { c.LevelFreqs = 0 }) }},
		"DiTConfig.OverlapHead":  {func() error { return dit(func(c *DiTConfig) { c.Patch, c.OverlapHead = 1, true }) }},
		"DiTConfig.OverlapEmbed": {func() error { return dit(func(c *DiTConfig) { c.Patch, c.OverlapEmbed = 1, true }) }},

		"TrainConfig.Objective": {func() error { return train(func(c *TrainConfig) { c.Objective = Objective{Kind: 99} }) }},

		"Objective.Kind":      {func() error { return Objective{Kind: -1}.Validate() }},
		"Objective.EqMLambda": {func() error { return Objective{Kind: EqM, EqMLambda: 0, EqMAlpha: 0.5}.Validate() }},
		"Objective.EqMAlpha":  {func() error { return Objective{Kind: EqM, EqMLambda: 4, EqMAlpha: 1}.Validate() }},
		"Objective.Schedule":  {func() error { return Objective{Kind: Diffusion}.Validate() }},
		"Objective.SigmoidBias": {func() error {
			return Objective{Kind: Diffusion, Schedule: DefaultDiffusion(), SigmoidBias: nan}.Validate()
		}},
		"TrainConfig.Batch":       {func() error { return train(func(c *TrainConfig) { c.Batch = 0 }) }},
		"TrainConfig.LR":          {func() error { return train(func(c *TrainConfig) { c.LR = 0 }) }, func() error { return train(func(c *TrainConfig) { c.LR = nan }) }},
		"TrainConfig.Warmup":      {func() error { return train(func(c *TrainConfig) { c.Warmup = 0 }) }},
		"TrainConfig.CosineSteps": {func() error { return train(func(c *TrainConfig) { c.CosineSteps = c.Warmup }) }},
		"TrainConfig.MinLR":       {func() error { return train(func(c *TrainConfig) { c.MinLR = 1.5 }) }, func() error { return train(func(c *TrainConfig) { c.MinLR = nan }) }},
		"TrainConfig.EMAWarmup":   {func() error { return anyValue }},
		"TrainConfig.Beta1":       {func() error { return train(func(c *TrainConfig) { c.Beta1 = 1 }) }, func() error { return train(func(c *TrainConfig) { c.Beta1 = nan }) }},
		"TrainConfig.Beta2":       {func() error { return train(func(c *TrainConfig) { c.Beta2 = -0.1 }) }},
		"TrainConfig.Eps":         {func() error { return train(func(c *TrainConfig) { c.Eps = 0 }) }},
		"TrainConfig.WeightDecay": {func() error { return train(func(c *TrainConfig) { c.WeightDecay = -1 }) }, func() error { return train(func(c *TrainConfig) { c.WeightDecay = nan }) }},
		"TrainConfig.ClipNorm":    {func() error { return train(func(c *TrainConfig) { c.ClipNorm = -1 }) }},
		"TrainConfig.EMADecay":    {func() error { return train(func(c *TrainConfig) { c.EMADecay = 1 }) }},
		"TrainConfig.Seed":        {func() error { return anyValue }},
		"TrainConfig.MaxContext":  {func() error { return train(func(c *TrainConfig) { c.MaxContext = -1 }) }},
		"TrainConfig.CondDropout": {func() error { return train(func(c *TrainConfig) { c.CondDropout = -0.1 }) }, func() error { return train(func(c *TrainConfig) { c.CondDropout = 1 }) }, func() error { return train(func(c *TrainConfig) { c.CondDropout = nan }) }},
		"TrainConfig.Devices":     {func() error { return train(func(c *TrainConfig) { c.Devices = -2 }) }},

		"ProbeConfig.Batch":  {func() error { return probe(func(c *ProbeConfig) { c.Batch = 0 }) }},
		"ProbeConfig.LR":     {func() error { return probe(func(c *ProbeConfig) { c.LR = -1 }) }, func() error { return probe(func(c *ProbeConfig) { c.LR = nan }) }},
		"ProbeConfig.Warmup": {func() error { return probe(func(c *ProbeConfig) { c.Warmup = 0 }) }},
		"ProbeConfig.Seed":   {func() error { return anyValue }},
		"ProbeConfig.Proj":   {func() error { return probe(func(c *ProbeConfig) { c.Proj = -1 }) }},

		"RollConfig.Context": {func() error { return roll(func(c *RollConfig) { c.Context = -1 }) }},
		"RollConfig.Horizon": {func() error { return roll(func(c *RollConfig) { c.Horizon = 0 }) }},
		"RollConfig.Stride":  {func() error { return roll(func(c *RollConfig) { c.Stride = 3 }) }},
		"RollConfig.Depth":   {func() error { return roll(func(c *RollConfig) { c.Depth = 7 }) }},

		"Options.Steps":       {func() error { return sample(GD, Options{Steps: -1}) }},
		"Options.Warp":        {func() error { return sample(Budget, Options{Warp: IdentityWarp()}) }},
		"Options.ClosedLoop":  {func() error { return sample(DDIM, Options{ClosedLoop: true}) }},
		"Options.Momentum":    {func() error { return sample(NAG, Options{Momentum: 1}) }, func() error { return sample(NAG, Options{Momentum: nan}) }, func() error { return sample(GD, Options{Momentum: 0.3}) }},
		"Options.StepSize":    {func() error { return sample(GD, Options{StepSize: -1}) }, func() error { return sample(GD, Options{StepSize: nan}) }},
		"Options.Estimator":   {func() error { return sample(Budget, Options{Estimator: fm}) }},
		"Options.SigmaThresh": {func() error { return sample(EarlyStop, Options{SigmaThresh: 1.5, Cleanup: 1}) }, func() error { return sample(EarlyStop, Options{SigmaThresh: nan, Cleanup: 1}) }},
		"Options.Cleanup":     {func() error { return sample(EarlyStop, Options{Cleanup: 0}) }},
		"Options.MaxSteps":    {func() error { return sample(EarlyStop, Options{Cleanup: 1, MaxSteps: -1}) }, func() error { return sample(NAG, Options{MaxSteps: 3}) }},
		"Options.Schedule":    {func() error { return sample(NAG, Options{Schedule: DefaultDiffusion()}) }},
		"Options.Callback":    {func() error { return anyValue }},
	}
	covered := 0
	for _, typ := range []any{DiTConfig{}, TrainConfig{}, Objective{}, ProbeConfig{}, RollConfig{}, Options{}} {
		rt := reflect.TypeOf(typ)
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			if !f.IsExported() {
				continue
			}
			key := rt.Name() + "." + f.Name
			checks, ok := rows[key]
			if !ok {
				t.Errorf("%s: no row in the bad-input table", key)
				continue
			}
			covered++
			for j, check := range checks {
				err := check()
				if err == anyValue {
					continue
				}
				var pe *ParamError
				if !errors.As(err, &pe) || !strings.Contains(pe.Param, f.Name) {
					t.Errorf("%s row %d: %v, want a ParamError naming %s", key, j, err, f.Name)
				}
			}
		}
	}
	if covered != len(rows) {
		t.Errorf("%d rows for %d fields: a row names a field that no longer exists", len(rows), covered)
	}
}
