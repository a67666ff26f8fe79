package plots

import (
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// Run is one training run's loss history, named for the legend.
type Run struct {
	Name    string
	History []eqflib.LossPoint
}

// LossOptions configures LossFigure.
type LossOptions struct {
	Title    string  // default "Training loss"
	LogScale bool    // logarithmic loss axis
	Smooth   int     // moving-average window of the training loss, in steps (default 20; 1 = raw)
	Width    float64 // inches (default 6)
	Height   float64 // inches (default 4)
}

// LossFigure draws each run's training loss (moving average) and validation loss (markers,
// where evaluated) against the optimiser step, several runs overlaid.
func LossFigure(runs []Run, o LossOptions) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("plots: LossFigure: no runs")
	}
	if o.Title == "" {
		o.Title = "Training loss"
	}
	if o.Smooth == 0 {
		o.Smooth = 20
	}
	if o.Smooth < 1 {
		return nil, fmt.Errorf("plots: LossOptions.Smooth = %d out of range: must be ≥ 1", o.Smooth)
	}
	if o.Width == 0 {
		o.Width = 6
	}
	if o.Height == 0 {
		o.Height = 4
	}
	p := Panel{XLabel: "optimiser step", YLabel: "loss (MSE of the objective's target)", LogY: o.LogScale}
	for i, r := range runs {
		if len(r.History) == 0 {
			return nil, fmt.Errorf("plots: LossFigure: run %q has no history", r.Name)
		}
		var x, y, vx, vy []float64
		var sum float64
		for j, pt := range r.History {
			sum += pt.Loss
			if j >= o.Smooth {
				sum -= r.History[j-o.Smooth].Loss
			}
			x = append(x, float64(pt.Step))
			y = append(y, sum/float64(min(j+1, o.Smooth)))
			if pt.ValLoss > 0 && !math.IsNaN(pt.ValLoss) {
				vx, vy = append(vx, float64(pt.Step)), append(vy, pt.ValLoss)
			}
		}
		label := r.Name + " train"
		if o.Smooth > 1 {
			label += fmt.Sprintf(" (mean of %d steps)", o.Smooth)
		}
		p.Series = append(p.Series, Series{Name: label, X: x, Y: y, Color: i + 1})
		if len(vx) > 0 {
			p.Series = append(p.Series, Series{Name: r.Name + " validation (EMA weights)", X: vx, Y: vy, Style: Points, Color: i + 1})
		}
	}
	return &Figure{Title: o.Title, Panels: []Panel{p}, Width: o.Width, Height: o.Height}, nil
}

// LossCurves draws LossFigure to path (.png, .svg or .html), atomically.
func LossCurves(path string, runs []Run, o LossOptions) error {
	f, err := LossFigure(runs, o)
	if err != nil {
		return err
	}
	return f.Save(path)
}
