package plots

import (
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// NamedBowls is one model's App. B.2 measurement.
type NamedBowls struct {
	Name  string
	Bowls *eqflib.BowlCurves
}

// BowlFigure is App. B.2's Fig. bowls: (left) the increase of FM's v-loss over its value at
// δ = 0 when the horizon's level is told σ_stable + δ; (right) the same with δ also applied to
// the context, against the horizon-only curve (dashed), which it should lie above.
func BowlFigure(models []NamedBowls) (*Figure, error) {
	if len(models) == 0 {
		return nil, fmt.Errorf("plots: BowlFigure: no measurements")
	}
	left := Panel{Title: "horizon only", XLabel: "level offset δ", YLabel: "loss increase L(σ+δ) − L(σ)"}
	right := Panel{Title: "context + horizon", XLabel: "level offset δ", YLabel: "loss increase L(σ+δ) − L(σ)"}
	for i, m := range models {
		b := m.Bowls
		if b == nil || len(b.Delta) == 0 || len(b.HorizonOnly) != len(b.Delta) || len(b.WithContext) != len(b.Delta) {
			return nil, fmt.Errorf("plots: BowlFigure: %q has no complete bowl (Delta, HorizonOnly and WithContext of one length)", m.Name)
		}
		h, c := b.HorizonOnly, b.WithContext // already increases over Base
		left.Series = append(left.Series, Series{Name: m.Name, X: b.Delta, Y: h, Style: LinePoints, Color: i + 1})
		right.Series = append(right.Series,
			Series{Name: m.Name + " context + horizon", X: b.Delta, Y: c, Style: LinePoints, Color: i + 1},
			Series{Name: m.Name + " horizon only", X: b.Delta, Y: h, Style: Dashed, Color: i + 1})
	}
	return &Figure{Title: "Noise-level mismatch bowls (FM)", Panels: []Panel{left, right}}, nil
}
