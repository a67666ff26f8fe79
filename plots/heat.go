package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heat is a heat-map panel's data (e.g. σ̂ per rollout frame and network evaluation): Z[r][c]
// is the value at column centre X[c] and row centre Y[r]; NaN cells are left blank. The colour
// runs from dark blue (Min) to yellow (Max) on the viridis ramp.
type Heat struct {
	X, Y  []float64
	Z     [][]float64 // len(Y) rows of len(X) values
	Label string      // what the colour shows, e.g. "σ̂" (the legend names three levels)
	// Min and Max fix the colour range when Min < Max (otherwise the data's range).
	Min, Max float64
}

func (h *Heat) check(where string) error {
	if len(h.X) == 0 || len(h.Y) == 0 || len(h.Z) != len(h.Y) {
		return fmt.Errorf("%s: heat map has %d columns, %d rows and %d rows of Z: must be > 0 and len(Z) = len(Y)", where, len(h.X), len(h.Y), len(h.Z))
	}
	for r, row := range h.Z {
		if len(row) != len(h.X) {
			return fmt.Errorf("%s: heat map row %d has %d values, want len(X) = %d", where, r, len(row), len(h.X))
		}
	}
	return nil
}

// rangeZ is the colour range.
func (h *Heat) rangeZ() (lo, hi float64) {
	if h.Min < h.Max {
		return h.Min, h.Max
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range h.Z {
		for _, v := range row {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(lo < hi) {
		if math.IsInf(lo, 1) {
			return 0, 1
		}
		return lo - 0.5, lo + 0.5
	}
	return lo, hi
}

// viridis anchors (matplotlib's viridis at 0, ¼, ½, ¾, 1).
var viridis = []color.RGBA{{68, 1, 84, 255}, {59, 82, 139, 255}, {33, 145, 140, 255}, {94, 201, 98, 255}, {253, 231, 37, 255}}

// ramp is the viridis colour at t ∈ [0, 1].
func ramp(t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	f := t * float64(len(viridis)-1)
	i := min(int(f), len(viridis)-2)
	u := f - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + u*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

type rampPalette int

func (n rampPalette) Colors() []color.Color {
	out := make([]color.Color, n)
	for i := range out {
		out[i] = ramp(float64(i) / float64(n-1))
	}
	return out
}

// heatGrid adapts Heat to gonum's GridXYZ.
type heatGrid struct{ h *Heat }

func (g heatGrid) Dims() (c, r int)   { return len(g.h.X), len(g.h.Y) }
func (g heatGrid) Z(c, r int) float64 { return g.h.Z[r][c] }
func (g heatGrid) X(c int) float64    { return g.h.X[c] }
func (g heatGrid) Y(r int) float64    { return g.h.Y[r] }

// swatch is a legend thumbnail filled with one colour.
type swatch color.RGBA

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.SetColor(color.RGBA(s))
	c.Fill(c.Rectangle.Path())
}

// addHeat draws the heat map on a gonum plot, with three legend swatches (low, middle, high).
func addHeat(pl *plot.Plot, h *Heat, legend bool) {
	lo, hi := h.rangeZ()
	hm := plotter.NewHeatMap(heatGrid{h}, rampPalette(64))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.Transparent
	pl.Add(hm)
	if !legend {
		return
	}
	for _, t := range []float64{1, 0.5, 0} {
		v := lo + t*(hi-lo)
		pl.Legend.Add(fmt.Sprintf("%s = %s", h.Label, strconv.FormatFloat(v, 'g', 3, 64)), swatch(ramp(t)))
	}
	pl.Legend.ThumbnailWidth = vg.Points(10)
}

// echartsHeat renders a heat-map panel with echarts (category axes labelled by the cell centres,
// a continuous colour scale).
func echartsHeat(f *Figure, p Panel, w, h int) *charts.HeatMap {
	hm := charts.NewHeatMap()
	title, sub := p.Title, ""
	if len(f.Panels) == 1 {
		title, sub = f.Title, p.Title
	}
	label := func(v []float64) []string {
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = strconv.FormatFloat(x, 'g', 4, 64)
		}
		return out
	}
	lo, hi := p.Heat.rangeZ()
	colors := make([]string, 5)
	for i := range colors {
		c := ramp(float64(i) / 4)
		colors[i] = fmt.Sprintf("rgb(%d,%d,%d)", c.R, c.G, c.B)
	}
	hm.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: fmt.Sprintf("%dpx", w), Height: fmt.Sprintf("%dpx", h), BackgroundColor: "#ffffff"}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: sub, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: types.Bool(ptr(true))}),
		charts.WithGridOpts(opts.Grid{Top: "70", Bottom: "80", Left: "70", Right: "90"}),
		charts.WithXAxisOpts(opts.XAxis{Name: p.XLabel, Type: "category", Data: label(p.Heat.X), NameLocation: "middle", NameGap: 28}),
		charts.WithYAxisOpts(opts.YAxis{Name: p.YLabel, Type: "category", Data: label(p.Heat.Y), NameLocation: "middle", NameGap: 50}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: types.Bool(ptr(true)), Min: float32(lo), Max: float32(hi), Right: "0", Top: "middle",
			Text: []string{p.Heat.Label}, InRange: &opts.VisualMapInRange{Color: colors}}),
	)
	var data []opts.HeatMapData
	for r, row := range p.Heat.Z {
		for c, v := range row {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				data = append(data, opts.HeatMapData{Value: [3]any{c, r, v}})
			}
		}
	}
	hm.AddSeries(p.Heat.Label, data)
	return hm
}

// RollHeatFigure is the per-frame noise-level heat map of a traced rollout
// (eqflib.RollOptions.KeepTrace): for every network evaluation (x) and rollout frame (y), the
// level the frame was at — "sched" (the scheduled σ), "level" (what the field was fed) or
// "sigma_hat" (the readout's σ̂, closed-loop samplers) — averaged over the batch. Frames not in
// the window at an evaluation are blank: the picture is the rolling staircase.
func RollHeatFigure(title string, trace []eqflib.RollStep, frames int, what string) (*Figure, error) {
	get := map[string]func(eqflib.RollStep) []float64{
		"sched": func(s eqflib.RollStep) []float64 { return s.Sched }, "level": func(s eqflib.RollStep) []float64 { return s.Level },
		"sigma_hat": func(s eqflib.RollStep) []float64 { return s.SigmaHat }}[what]
	if get == nil {
		return nil, fmt.Errorf("plots: RollHeatFigure: what = %q: must be sched, level or sigma_hat", what)
	}
	if len(trace) == 0 || frames < 1 {
		return nil, fmt.Errorf("plots: RollHeatFigure: %d trace steps and %d frames: a rollout traced with KeepTrace and frames ≥ 1", len(trace), frames)
	}
	label := map[string]string{"sched": "σ", "level": "level", "sigma_hat": "σ̂"}[what]
	h := &Heat{Label: label, Min: 0, Max: 1}
	for f := 0; f < frames; f++ {
		h.Y = append(h.Y, float64(f+1))
		h.Z = append(h.Z, nil)
	}
	for i, st := range trace {
		vals := get(st)
		if vals == nil {
			return nil, fmt.Errorf("plots: RollHeatFigure: step %d records no %s (a closed-loop sampler records σ̂)", i, what)
		}
		h.X = append(h.X, float64(st.Eval))
		sum, n := make([]float64, frames), make([]int, frames)
		for j, f := range st.Frame {
			if f >= 0 && f < frames {
				sum[f] += vals[j]
				n[f]++
			}
		}
		for f := 0; f < frames; f++ {
			v := math.NaN()
			if n[f] > 0 {
				v = sum[f] / float64(n[f])
			}
			h.Z[f] = append(h.Z[f], v)
		}
	}
	return &Figure{Title: title, Panels: []Panel{{XLabel: "network evaluation", YLabel: "rollout frame", Heat: h, Legend: "br"}}, Width: 7, Height: 4}, nil
}
