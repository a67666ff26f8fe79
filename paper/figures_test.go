package paper

import (
	"math"
	"testing"

	"github.com/equilibriumforcing/eqf/plots"
)

// shareY puts panels on one y range that holds every value, error bars included, and leaves
// the top share the tallest legend takes free of data, on linear and log axes.
func TestShareY(t *testing.T) {
	for _, logY := range []bool{false, true} {
		named := func(n int) []plots.Series {
			var ss []plots.Series
			for i := range n {
				ss = append(ss, plots.Series{Name: "m", X: []float64{1, 2}, Y: []float64{20 + float64(i), 300}, Lo: []float64{18, 250}, Hi: []float64{25, 600}})
			}
			return ss
		}
		f := &plots.Figure{Panels: []plots.Panel{{Series: named(6), LogY: logY}, {Series: named(1), Legend: "none", LogY: logY}}}
		shareY(f)
		a, b := f.Panels[0].YMin, f.Panels[0].YMax
		if f.Panels[1].YMin != a || f.Panels[1].YMax != b {
			t.Fatalf("log %v: ranges [%g, %g] and [%g, %g] differ", logY, a, b, f.Panels[1].YMin, f.Panels[1].YMax)
		}
		y := func(v float64) float64 { // the share of the axis' height at v
			if logY {
				return (math.Log10(v) - math.Log10(a)) / (math.Log10(b) - math.Log10(a))
			}
			return (v - a) / (b - a)
		}
		if h := plots.LegendHeight(f.Panels[0]); y(18) < 0 || y(600) > 1-h+1e-9 || h != 0.05+0.06*6 {
			t.Errorf("log %v: data spans %.3f–%.3f of the axis, legend height %.2f: want all of it in [0, 1 − legend]", logY, y(18), y(600), h)
		}
	}
}
