package paper

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// MinecraftInferenceExpts is Table minecraft_inference_expts (§5.3, "Closed-loop acceleration
// with NAG") on the maze: the EqF backbone under every η warp (c-function, linear log-SNR,
// SD3 r = 3, identity) × feedback (open loop on the warp's schedule, closed loop on h_ω) ×
// sampler (GD, NAG μ ∈ {0.1, 0.3, 0.5}: the μ values the paper's table names). The paper runs
// one seed and prints the best μ of each row, which stands beside our row of that μ; full mode
// runs one evaluation seed unless Config.Seeds says otherwise.
func MinecraftInferenceExpts(ctx context.Context, c Config) (*Result, error) {
	if c.Seeds == 0 {
		c.Seeds = 1
	}
	l, err := newSetup(ctx, c, "eqf")
	if err != nil {
		return nil, err
	}
	var ms []method
	for i, w := range inferenceWarps {
		for _, closed := range []bool{false, true} {
			fb := "open loop"
			if closed {
				fb = "closed loop"
			}
			for _, mu := range inferenceMomenta {
				m := method{Model: "eqf", Color: i + 1,
					Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: warp(w.spec), ClosedLoop: closed}}}
				switch {
				case mu == 0:
					m.Name = fmt.Sprintf("%s, %s, GD", w.name, fb)
					if !closed {
						m.Paper = w.gd
					}
				default:
					m.Name = fmt.Sprintf("%s, %s, NAG μ=%.1f", w.name, fb, mu)
					m.Sampler.Sampler, m.Sampler.Momentum = eqflib.NAG, mu
					p := w.openNAG
					if closed {
						p = w.closedNAG
					}
					if bestMomentum(p) == mu { // the paper's value stands beside the row of its μ
						m.Paper = p
					}
				}
				ms = append(ms, m)
			}
		}
	}
	rows, err := l.runAll(ms)
	if err != nil {
		return nil, err
	}
	r, err := l.table("minecraft_inference_expts", "EqF inference ablation: η warp × feedback × sampler", "§5.3, Table minecraft_inference_expts", rows)
	if err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, "The paper prints, for each warp × feedback × sampler, the FVD of its best μ (in brackets), shown beside our row of that μ; it has no closed-loop GD rows. "+
		"With the identity warp η ≡ 1, closed and open loop take the same steps (the paper's two 80.25 rows).")
	return r, nil
}

// inferenceMomenta are the rows' μ: 0 (GD) and every μ the paper's table names as a best μ.
var inferenceMomenta = []float64{0, 0.1, 0.3, 0.5}

// bestMomentum reads the μ of a value the paper prints as "64.12 (μ=0.3)"; NaN without one.
func bestMomentum(paper string) float64 {
	_, after, ok := strings.Cut(paper, "(μ=")
	if !ok {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(after, ")"), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// inferenceWarps are Table minecraft_inference_expts's warps with its FVDs (best μ in brackets).
var inferenceWarps = []struct{ name, spec, closedNAG, openNAG, gd string }{
	{"c-function", warpC, "64.12 (μ=0.3)", "67.94 (μ=0.1)", "78.69"},
	{"linear log-SNR", warpLogSNR, "67.70 (μ=0.3)", "90.59 (μ=0.1)", "92.54"},
	{"SD3 r=3", warpSD3, "203.73 (μ=0.1)", "114.11 (μ=0.1)", "137.85"},
	{"identity", "identity", "80.25 (μ=0.1)", "80.25 (μ=0.1)", "105.44"},
}
