package plots

import (
	"fmt"
	"math"
	"slices"
)

// Curve is one method's per-frame (or per-chunk) values over a rollout.
type Curve struct {
	Name   string
	Values []float64
	Color  int // 0: by position; k ≥ 1: Palette[k−1] (keep a method's colour across figures)
}

// RolloutFigure is the paper's Fig. 3: (left) the noise-level divergence |σ_sched − g_φ(x)| per
// rollout frame (eqflib.NoiseDivergence), and (right) FVD over consecutive chunks of `chunk`
// frames (eqflib.FVDOverTime, or `eqf compare`'s fvd_maze_i3d_over_time), both for several
// methods. features names the FVD feature space ("maze-I3D"); either list may be empty, which
// drops its panel, and the one panel left then titles the figure.
func RolloutFigure(divergence, fvd []Curve, chunk int, features string) (*Figure, error) {
	f := &Figure{Title: "Autoregressive rollouts"}
	if len(divergence) > 0 {
		p := Panel{Title: "noise-level divergence", XLabel: "rollout frame", YLabel: "|σ_sched − g_φ(x)| (mean over steps)"}
		for i, c := range divergence {
			if len(c.Values) == 0 {
				return nil, fmt.Errorf("plots: RolloutFigure: divergence curve %q is empty", c.Name)
			}
			x := make([]float64, len(c.Values))
			for j := range x {
				x[j] = float64(j + 1)
			}
			p.Series = append(p.Series, Series{Name: c.Name, X: x, Y: c.Values, Color: colorOr(c.Color, i)})
		}
		f.Panels = append(f.Panels, p)
	}
	if len(fvd) > 0 {
		if chunk < 1 {
			return nil, fmt.Errorf("plots: RolloutFigure: chunk = %d out of range: must be ≥ 1 frame", chunk)
		}
		if features == "" {
			return nil, fmt.Errorf("plots: RolloutFigure: features is empty: name the FVD feature space (e.g. \"maze-I3D\")")
		}
		p := Panel{Title: "FVD over time", XLabel: fmt.Sprintf("rollout frames (chunks of %d, at the chunk's last frame)", chunk), YLabel: fmt.Sprintf("FVD (%s features)", features)}
		for i, c := range fvd {
			if len(c.Values) == 0 {
				return nil, fmt.Errorf("plots: RolloutFigure: FVD curve %q is empty", c.Name)
			}
			x := make([]float64, len(c.Values))
			for j := range x {
				x[j] = float64((j + 1) * chunk)
			}
			p.Series = append(p.Series, Series{Name: c.Name, X: x, Y: c.Values, Style: LinePoints, Color: colorOr(c.Color, i)})
		}
		f.Panels = append(f.Panels, p)
	}
	if len(f.Panels) == 0 {
		return nil, fmt.Errorf("plots: RolloutFigure: no curves")
	}
	if len(f.Panels) == 1 { // one panel, one title: the panel's
		f.Title, f.Panels[0].Title = f.Panels[0].Title, ""
	}
	return f, nil
}

func colorOr(c, i int) int {
	if c > 0 {
		return c
	}
	return i + 1
}

// FrontierSeries is one method's quality–cost trade-off: FVD at several NFE budgets (or
// replanning thresholds τ, or early-stopping thresholds), with a label per point.
type FrontierSeries struct {
	Name     string
	NFE, FVD []float64
	// FVDErr, when set, draws FVD ± FVDErr as an error bar at each point (e.g. the standard
	// error over training seeds); optional.
	FVDErr []float64
	Labels []string // e.g. "D=10", "τ=0.2"; optional
	Color  int
}

// FrontierFigure draws FVD against NFE per frame for each method (the budget-adaptive,
// early-stopping and replanning figures), in the named feature space, with error bars where a
// method gives FVDErr.
func FrontierFigure(title, features string, methods []FrontierSeries) (*Figure, error) {
	if features == "" {
		return nil, fmt.Errorf("plots: FrontierFigure: features is empty: name the FVD feature space (e.g. \"maze-I3D\")")
	}
	if title == "" {
		title = "Quality vs compute"
	}
	p := Panel{XLabel: "NFE per frame", YLabel: fmt.Sprintf("FVD (%s features)", features)}
	for i, m := range methods {
		if len(m.NFE) != len(m.FVD) || len(m.NFE) == 0 {
			return nil, fmt.Errorf("plots: FrontierFigure: method %q has %d NFE and %d FVD values: must be equal and > 0", m.Name, len(m.NFE), len(m.FVD))
		}
		s := Series{Name: m.Name, X: m.NFE, Y: m.FVD, Labels: m.Labels, Style: LinePoints, Color: colorOr(m.Color, i)}
		if m.FVDErr != nil {
			if len(m.FVDErr) != len(m.FVD) {
				return nil, fmt.Errorf("plots: FrontierFigure: method %q has %d FVDErr values for %d FVD values: must be equal", m.Name, len(m.FVDErr), len(m.FVD))
			}
			s.Lo, s.Hi, s.Bars = make([]float64, len(m.FVD)), make([]float64, len(m.FVD)), true
			for j, e := range m.FVDErr {
				s.Lo[j], s.Hi[j] = m.FVD[j]-e, m.FVD[j]+e
			}
		}
		p.Series = append(p.Series, s)
	}
	if len(p.Series) == 0 {
		return nil, fmt.Errorf("plots: FrontierFigure: no methods")
	}
	// Error bars would end on the axes (the range fits the data exactly): leave a margin.
	bars, lo, hi := false, math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		bars = bars || s.Bars
		for _, v := range slices.Concat(s.Y, s.Lo, s.Hi) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if pad := 0.05 * (hi - lo); bars && pad > 0 {
		p.YMin, p.YMax = lo-pad, hi+pad
	}
	return &Figure{Title: title, Panels: []Panel{p}, Width: 6, Height: 4.2}, nil
}
