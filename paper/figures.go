package paper

// The figures every rollout table draws: FVD per method (fvdBars) and FVD over time, with the
// noise-level divergence where a method was probed (rolloutFigure). With several strides
// (Config.Strides) a method's rows at each stride sit side by side (fvdBars) and each stride
// has its own panels (rolloutFigure), on shared axes.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/plots"
)

// strideBlocks splits rows into one block per stride, in the order the strides first appear
// (runAll's rows come stride by stride).
func strideBlocks(rows []methodScores) (strides []int, blocks [][]methodScores) {
	for _, r := range rows {
		k := slices.Index(strides, r.m.Stride)
		if k < 0 {
			strides, blocks = append(strides, r.m.Stride), append(blocks, nil)
			k = len(strides) - 1
		}
		blocks[k] = append(blocks[k], r)
	}
	return strides, blocks
}

// baseName is a row's method name without its stride tag ("S=1: ").
func baseName(r methodScores) string { return untagged(r.m.Name, r.m.Stride) }

// untagged is a name without the stride tag ("S=1: ") that atStrides put before it.
func untagged(name string, stride int) string {
	return strings.TrimPrefix(name, fmt.Sprintf("S=%d: ", stride))
}

// fvdBars is a bar-like figure of FVD per method (mean ± standard error as a point with an
// error bar), the summary figure of a results table. With several strides each method has a
// point per stride, side by side, one series per stride.
func fvdBars(title string, rows []methodScores) (*plots.Figure, error) {
	p := plots.Panel{XLabel: "method (in the order of the table)", YLabel: "FVD (maze-I3D features)", Legend: "none"}
	strides, blocks := strideBlocks(rows)
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, baseName(r)) {
			names = append(names, baseName(r))
		}
	}
	for _, n := range names {
		if len(names) > 8 { // too many names for the axis: number them as the table's rows
			n = strconv.Itoa(len(p.XTicks) + 1)
		}
		p.XTicks = append(p.XTicks, shortName(n))
	}
	for k, block := range blocks {
		s := plots.Series{Name: "FVD", Style: plots.Points}
		if len(blocks) > 1 {
			s.Name, s.Color, p.Legend = fmt.Sprintf("S=%d", strides[k]), k+1, ""
		}
		for _, r := range block {
			m, se := r.of(fvdOf)
			x := float64(slices.Index(names, baseName(r))+1) + 0.3*(float64(k)+0.5)/float64(len(blocks)) - 0.15
			s.X, s.Y, s.Lo, s.Hi = append(s.X, x), append(s.Y, m), append(s.Lo, m-se), append(s.Hi, m+se)
			s.Labels = append(s.Labels, fmt.Sprintf("%.1f", m))
		}
		p.Series = append(p.Series, s)
	}
	return &plots.Figure{Title: title, Panels: []plots.Panel{p}, Width: 7, Height: 4.2}, nil
}

// rolloutFigure draws FVD over time for every row, with the noise-level divergence of the
// probed rows first when divergence is set (plots.RolloutFigure); with several strides, a row
// of those panels per stride, on shared y axes, the methods named without their stride tag.
func rolloutFigure(rows []methodScores, divergence bool, chunk int) (*plots.Figure, error) {
	strides, blocks := strideBlocks(rows)
	f := &plots.Figure{}
	per := 0 // panels per stride
	for k, block := range blocks {
		var div, fvd []plots.Curve
		for _, r := range block {
			name := shortName(baseName(r))
			m, _, _ := meanCurve(r, func(s *scores) []float64 { return s.FVDOverTime })
			fvd = append(fvd, plots.Curve{Name: name, Values: m, Color: r.m.Color})
			if divergence && r.per[0].Divergence != nil {
				d, _, _ := meanCurve(r, func(s *scores) []float64 { return s.Divergence })
				div = append(div, plots.Curve{Name: name, Values: d, Color: r.m.Color})
			}
		}
		g, err := plots.RolloutFigure(div, fvd, chunk, "maze-I3D")
		if err != nil {
			return nil, err
		}
		if len(blocks) == 1 {
			return g, nil
		}
		for i := range g.Panels {
			if g.Panels[i].Title == "" { // RolloutFigure moved a lone panel's title to the figure
				g.Panels[i].Title = g.Title
			}
			g.Panels[i].Title = fmt.Sprintf("S=%d: %s", strides[k], g.Panels[i].Title)
			if k > 0 || i < len(g.Panels)-1 {
				g.Panels[i].Legend = "none" // the panels share colours: the first FVD panel names them
			}
		}
		f.Panels, per = append(f.Panels, g.Panels...), len(g.Panels)
	}
	if per == 1 { // FVD alone: the strides side by side
		f.Cols = len(blocks)
		shareY(f)
		return f, nil
	}
	f.Cols = per // a row per stride, a column per quantity
	for c := range per {
		var col []int
		for i := c; i < len(f.Panels); i += per {
			col = append(col, i)
		}
		shareY(f, col...)
	}
	return f, nil
}

// shareY gives the panels of f at the given indices (none: every panel) the y range of all
// their data (error bars and bands included), with a margin, so that they compare at a glance,
// and room at the top for the tallest legend among them (plots.LegendHeight), so that it
// covers no data.
func shareY(f *plots.Figure, panels ...int) {
	if len(panels) == 0 {
		for i := range f.Panels {
			panels = append(panels, i)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range panels {
		p := f.Panels[i]
		for _, s := range p.Series {
			for _, v := range slices.Concat(s.Y, s.Lo, s.Hi) {
				if !math.IsNaN(v) && !math.IsInf(v, 0) && (!p.LogY || v > 0) {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
	}
	if !(lo < hi) {
		return
	}
	legend := 0.0
	for _, i := range panels {
		legend = max(legend, plots.LegendHeight(f.Panels[i]))
	}
	legend = min(legend, 0.6) // a legend taller than that shares the panel with the data
	for _, i := range panels {
		p := &f.Panels[i]
		if p.LogY {
			a, b := math.Log10(lo/1.15), math.Log10(hi*1.15)
			p.YMin, p.YMax = math.Pow(10, a), math.Pow(10, a+(b-a)/(1-legend))
		} else {
			pad := 0.05 * (hi - lo)
			a, b := lo-pad, hi+pad
			p.YMin, p.YMax = a, a+(b-a)/(1-legend)
		}
	}
}
