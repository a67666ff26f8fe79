package plots

import (
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// AgreementFigure is Table fm_eqf_field_agreement as a picture: f_FM against f_EqF on the same
// (x, σ, ε) (eqflib.CompareFields' Points), with the identity line and the Pearson r, relative
// field MSE and the Prop. 4.1 gap in the title.
func AgreementFigure(a *eqflib.Agreement) (*Figure, error) {
	if a == nil || len(a.Points) == 0 {
		return nil, fmt.Errorf("plots: AgreementFigure: no points (use eqflib.CompareFields)")
	}
	x := make([]float64, len(a.Points))
	y := make([]float64, len(a.Points))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range a.Points {
		x[i], y[i] = p[0], p[1]
		lo, hi = math.Min(lo, math.Min(p[0], p[1])), math.Max(hi, math.Max(p[0], p[1]))
	}
	p := Panel{
		Legend: "tl",
		Title:  fmt.Sprintf("Pearson r = %.4f, relative field MSE = %.4f\nProp. 4.1: L_EqF − L_FM = %.4g vs E‖f_FM − f_EqF‖² = %.4g", a.Pearson, a.RelFieldMSE, a.Gap, a.FieldMSE),
		XLabel: "f_FM(x^σ, σ) (output element)", YLabel: "f_EqF(x^σ) (same element)",
		Series: []Series{
			{Name: fmt.Sprintf("%d output elements", len(x)), X: x, Y: y, Style: Points},
			{Name: "y = x", X: []float64{lo, hi}, Y: []float64{lo, hi}, Style: Dashed, Color: 8},
		},
	}
	return &Figure{Title: "FM and EqF fields on identical inputs", Panels: []Panel{p}, Width: 6, Height: 5}, nil
}

// XPredWeightFigure is App. A's induced x-prediction weights (Prop. A.1): w(σ) = 1/σ² for FM
// and EqF, and c(σ)²/σ² for EqM with c = λ·min(1, σ/(1−α)), on log axes.
func XPredWeightFigure(lambda, alpha float64) (*Figure, error) {
	if lambda == 0 {
		lambda = 4
	}
	if alpha == 0 {
		alpha = eqflib.DefaultCAlpha
	}
	if lambda <= 0 || alpha <= 0 || alpha >= 1 {
		return nil, fmt.Errorf("plots: XPredWeightFigure: λ = %g, α = %g out of range: need λ > 0 and α ∈ (0, 1)", lambda, alpha)
	}
	var s, eqf, eqm []float64
	for e := -3.0; e <= 0.0001; e += 0.02 {
		v := math.Pow(10, e)
		s = append(s, v)
		eqf = append(eqf, eqflib.XPredWeightEqF(v))
		eqm = append(eqm, eqflib.XPredWeightEqM(v, lambda, alpha))
	}
	p := Panel{XLabel: "noise level σ", YLabel: "x-prediction weight w(σ)", LogX: true, LogY: true, Series: []Series{
		{Name: "FM and EqF: 1/σ²", X: s, Y: eqf},
		{Name: fmt.Sprintf("EqM: c(σ)²/σ² (λ = %g, α = %g)", lambda, alpha), X: s, Y: eqm, Style: Dashed},
	}}
	return &Figure{Title: "Induced x-prediction weights", Panels: []Panel{p}, Width: 5.5, Height: 4}, nil
}
