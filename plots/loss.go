// Package plots draws the paper's figures from eqflib data: static PNG/SVG with gonum/plot.
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Run is one training run's loss history, named for the legend.
type Run struct {
	Name    string
	History []eqflib.LossPoint
}

// LossOptions configures LossCurves.
type LossOptions struct {
	Title    string  // default "Training loss"
	LogScale bool    // logarithmic loss axis
	Smooth   int     // moving-average window of the training loss, in steps (default 20; 1 = raw)
	Width    float64 // inches (default 6)
	Height   float64 // inches (default 4)
}

var palette = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}, {255, 127, 14, 255}}

// LossCurves draws each run's training loss (moving average) and validation loss (markers,
// where evaluated) against the optimiser step, and writes a PNG or SVG (by path's extension)
// atomically.
func LossCurves(path string, runs []Run, o LossOptions) error {
	if len(runs) == 0 {
		return fmt.Errorf("plots: LossCurves %s: no runs", path)
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("plots: LossCurves %s: extension must be .png or .svg", path)
	}
	if o.Title == "" {
		o.Title = "Training loss"
	}
	if o.Smooth == 0 {
		o.Smooth = 20
	}
	if o.Smooth < 1 {
		return fmt.Errorf("plots: LossOptions.Smooth = %d out of range: must be ≥ 1", o.Smooth)
	}
	if o.Width == 0 {
		o.Width = 6
	}
	if o.Height == 0 {
		o.Height = 4
	}
	p := plot.New()
	p.Title.Text = o.Title
	p.X.Label.Text = "optimiser step"
	p.Y.Label.Text = "loss (MSE of the objective's target)"
	if o.LogScale {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	for i, r := range runs {
		if len(r.History) == 0 {
			return fmt.Errorf("plots: LossCurves %s: run %q has no history", path, r.Name)
		}
		col := palette[i%len(palette)]
		train := make(plotter.XYs, 0, len(r.History))
		var sum float64
		for j, pt := range r.History {
			sum += pt.Loss
			if j >= o.Smooth {
				sum -= r.History[j-o.Smooth].Loss
			}
			n := min(j+1, o.Smooth)
			if v := sum / float64(n); v > 0 || !o.LogScale {
				train = append(train, plotter.XY{X: float64(pt.Step), Y: v})
			}
		}
		line, err := plotter.NewLine(train)
		if err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		line.Color, line.Width = col, vg.Points(1.5)
		p.Add(line)
		label := r.Name + " train"
		if o.Smooth > 1 {
			label += fmt.Sprintf(" (mean of %d steps)", o.Smooth)
		}
		p.Legend.Add(label, line)
		var val plotter.XYs
		for _, pt := range r.History {
			if pt.ValLoss > 0 && !math.IsNaN(pt.ValLoss) {
				val = append(val, plotter.XY{X: float64(pt.Step), Y: pt.ValLoss})
			}
		}
		if len(val) > 0 {
			sc, err := plotter.NewScatter(val)
			if err != nil {
				return fmt.Errorf("plots: %w", err)
			}
			sc.Color, sc.Shape, sc.Radius = col, draw.CircleGlyph{}, vg.Points(3)
			p.Add(sc)
			p.Legend.Add(r.Name+" validation (EMA weights)", sc)
		}
	}
	wt, err := p.WriterTo(vg.Length(o.Width)*vg.Inch, vg.Length(o.Height)*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, buf.Bytes()); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}
