package paper

import (
	"context"
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// InferenceScheduleVis is §4.4's Fig. inference_schedule_vis: the η warps (identity, SD3,
// c-function, linear log-SNR) and the gradient multipliers they induce on an N-step sampler.
// Analytic: quick and full mode draw the same figure (N = 10 steps).
func InferenceScheduleVis(ctx context.Context, c Config) (*Result, error) {
	return warpResult("inference_schedule_vis", "η warp and induced gradient multiplier", "§4.4, Fig. inference_schedule_vis")
}

// SamplerWarpConversions is App. G's Fig. sampler_warp_conversions: (a) σ → multiplier η(σ),
// (b) solver time → noise level ρ(s), (c) the multiplier over solver time η(ρ(s)), and the
// open-loop step sizes of a 10-step sampler.
func SamplerWarpConversions(ctx context.Context, c Config) (*Result, error) {
	return warpResult("sampler_warp_conversions", "conversions between noise level, solver time and induced warp", "App. G, Fig. sampler_warp_conversions")
}

func warpResult(name, title, where string) (*Result, error) {
	const N = 10
	warps := plots.DefaultWarps()
	fig, err := plots.WarpFigure(warps, N)
	if err != nil {
		return nil, err
	}
	r := &Result{Name: name, Title: title, Where: where, Figures: map[string]*plots.Figure{name: fig}}
	for _, w := range warps {
		levels, err := eqflib.Levels(w, N)
		if err != nil {
			return nil, err
		}
		kind := "transport"
		if w.Attractor() {
			kind = "attractor: η(σ) → 0 as σ → 0"
		}
		r.Numbers = append(r.Numbers,
			Number{Name: w.Name() + ": last open-loop step η(ρ(9/10))/10", Ours: w.Eta(levels[N-1]) / N, Note: kind},
			Number{Name: w.Name() + ": terminal level ρ(1)", Ours: w.SigmaEnd()})
	}
	r.Notes = append(r.Notes, fmt.Sprintf("The paper prints the figure without numbers; ours are the analytic values of the same warps (eqflib.ParseWarp defaults), N = %d.", N))
	return r, nil
}
