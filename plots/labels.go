package plots

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// pointLabels draws a series' point labels (Series.Labels) beside their points without
// overprinting: each label takes the first of four places around its point (above right,
// below right, above left, below left) whose box overlaps no label already drawn on the panel
// (placed is shared by the panel's series). Two points a hair apart (planning_threshold's
// τ = 0.18 and τ = 0.177) then label on opposite sides instead of over each other.
type pointLabels struct {
	*plotter.Labels
	placed *[]vg.Rectangle
}

// Plot draws the labels whose points lie on the canvas, each in its placeLabel place.
func (l pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, label := range l.Labels.Labels {
		pt := vg.Point{X: trX(l.XYs[i].X), Y: trY(l.XYs[i].Y)}
		if !c.Contains(pt) {
			continue
		}
		sty := l.TextStyle[i]
		at, box := placeLabel(pt, sty.Rectangle(label), l.Offset, *l.placed)
		*l.placed = append(*l.placed, box)
		c.FillText(sty, at, label)
	}
}

// placeLabel is where a label of box text (relative to its anchor) goes beside the point pt:
// the first anchor of pt ± off (right before left, above before below) whose box overlaps none
// of placed, or pt + off when every place is taken. It returns the anchor and the box there.
func placeLabel(pt vg.Point, text vg.Rectangle, off vg.Point, placed []vg.Rectangle) (vg.Point, vg.Rectangle) {
	w, h := text.Max.X-text.Min.X, text.Max.Y-text.Min.Y
	candidates := []vg.Point{
		pt.Add(off),
		pt.Add(vg.Point{X: off.X, Y: -off.Y - h}),
		pt.Add(vg.Point{X: -off.X - w, Y: off.Y}),
		pt.Add(vg.Point{X: -off.X - w, Y: -off.Y - h}),
	}
	for _, at := range candidates {
		box := text.Add(at)
		free := true
		for _, b := range placed {
			if overlaps(box, b) {
				free = false
				break
			}
		}
		if free {
			return at, box
		}
	}
	return candidates[0], text.Add(candidates[0])
}

// overlaps says whether two rectangles share an interior point.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
