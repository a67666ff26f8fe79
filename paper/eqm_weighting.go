package paper

import (
	"context"
	"math"
	"strconv"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// EqMWeighting is App. A's Prop. A.1 (prop:eqm_eqf_xpred_weightings): written as x-prediction,
// FM and EqF weight the loss by 1/σ² and EqM by c(σ)²/σ² with c = λ·min(1, σ/(1−α)), so EqM
// gives up weight near the data by the factor c(σ)². Analytic (λ = 4, α = 0.8, EqM's defaults).
func EqMWeighting(ctx context.Context, c Config) (*Result, error) {
	lambda, alpha := eqflib.DefaultEqMLambda, eqflib.DefaultEqMAlpha
	fig, err := plots.XPredWeightFigure(lambda, alpha)
	if err != nil {
		return nil, err
	}
	r := &Result{Name: "eqm_weighting", Title: "induced x-prediction weights of FM/EqF and EqM", Where: "App. A, Prop. A.1",
		Figures: map[string]*plots.Figure{"eqm_weighting": fig}}
	for _, s := range []float64{0.001, 0.01, 0.1, 0.5} {
		ratio := eqflib.XPredWeightEqM(s, lambda, alpha) / eqflib.XPredWeightEqF(s)
		closed := math.Pow(lambda*math.Min(1, s/(1-alpha)), 2) // c(σ)², Prop. A.1
		r.Numbers = append(r.Numbers, Number{Name: "EqM / EqF weight at σ = " + trimFloat(s), Ours: ratio,
			Note: "Prop. A.1's c(σ)² = " + trimFloat(closed)})
	}
	return r, nil
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
