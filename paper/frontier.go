package paper

// The compute figures (fixed_compute_scaling, budget_adaptive, closed_open_nag,
// adaptive_early_stopping, planning_threshold) draw FVD against the compute a method spends:
// a curve per method, a point per setting (steps per frame D, a threshold), and the paper's
// claims about them as paired differences at every point.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/plots"
)

// curve is one method run at several settings (depths, thresholds): a point per setting.
type curve struct {
	name   string
	color  int
	labels []string
	points []methodScores
}

// frontier reports every point's FVD and NFE per frame and draws FVD against NFE per frame.
func (l *setup) frontier(name, title, where string, curves []curve) (*Result, error) {
	r := l.withProvenance(&Result{Name: name, Title: title, Where: where, Figures: map[string]*plots.Figure{}})
	var strides []int // in the order they first appear
	fs := map[int][]plots.FrontierSeries{}
	for _, c := range curves {
		stride := c.points[0].m.Stride
		s := plots.FrontierSeries{Name: untagged(c.name, stride), Labels: c.labels, Color: c.color}
		for i, p := range c.points {
			fvd, se := p.of(fvdOf)
			nfe, nse := p.of(nfeOf)
			r.Numbers = append(r.Numbers,
				Number{Name: fmt.Sprintf("%s, %s: FVD (maze-I3D)", c.name, c.labels[i]), Ours: fvd, Err: se, Paper: p.m.Paper, PerSeed: p.perSeed(fvdOf), Stride: p.m.Stride},
				Number{Name: fmt.Sprintf("%s, %s: NFE per frame", c.name, c.labels[i]), Ours: nfe, Err: nse, PerSeed: p.perSeed(nfeOf), Stride: p.m.Stride})
			s.NFE, s.FVD, s.FVDErr = append(s.NFE, nfe), append(s.FVD, fvd), append(s.FVDErr, se)
		}
		if !slices.Contains(strides, stride) {
			strides = append(strides, stride)
		}
		fs[stride] = append(fs[stride], s)
	}
	fig, err := frontierFigure(title, strides, fs, l.geometry(0).Horizon)
	if err != nil {
		return nil, err
	}
	r.Figures[name] = fig
	r.Notes = append(r.Notes, "The figure's error bars are each FVD ± its standard error, as the table gives it.", l.protocolNote())
	l.stampStride(r)
	return r, nil
}

// frontierFigure draws FVD against NFE per frame, a curve per method (plots.FrontierFigure);
// with several strides a panel per stride, side by side on shared axes, the methods named
// without their stride tag and in the first panel's legend only (the panels share colours).
func frontierFigure(title string, strides []int, series map[int][]plots.FrontierSeries, horizon int) (*plots.Figure, error) {
	if len(strides) == 1 {
		return plots.FrontierFigure(title, "maze-I3D", series[strides[0]])
	}
	f := &plots.Figure{Title: title, Cols: len(strides), Width: 5.5, Height: 4.2}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for k, s := range strides {
		g, err := plots.FrontierFigure(title, "maze-I3D", series[s])
		if err != nil {
			return nil, err
		}
		p := g.Panels[0]
		p.Title = fmt.Sprintf("S = %d: chunk by chunk", s)
		if s == 1 {
			p.Title = "S = 1: the paper's staircase"
		} else if s != horizon {
			p.Title = fmt.Sprintf("S = %d", s)
		}
		if k > 0 {
			p.Legend = "none"
		}
		for _, ser := range p.Series {
			for _, x := range ser.X {
				xlo, xhi = min(xlo, x), max(xhi, x)
			}
		}
		f.Panels = append(f.Panels, p)
	}
	shareY(f)
	if pad := 0.05 * (xhi - xlo); pad > 0 {
		for i := range f.Panels {
			f.Panels[i].XMin, f.Panels[i].XMax = xlo-pad, xhi+pad
		}
	}
	return f, nil
}

// atDepths runs a method at every depth D.
func (l *setup) atDepths(m method, depths []int) (curve, error) {
	c := curve{name: shortName(m.Name), color: m.Color}
	for _, d := range depths {
		mm := m
		mm.Depth = d
		rows, err := l.runAll([]method{mm})
		if err != nil {
			return c, err
		}
		c.points = append(c.points, rows[0])
		c.labels = append(c.labels, fmt.Sprintf("D=%d", d))
	}
	return c, nil
}

// depths is the step sweep of the compute experiments (the paper sweeps 10…50 steps).
func (c Config) depths() []int {
	if c.Quick {
		return []int{2, 4}
	}
	return []int{10, 20, 40}
}

// depths is Config.depths with each D rounded up to a multiple of the zoo's horizon H, so that
// the staircase (S = 1) moves every frame a whole D/H steps a round: on the 8-frame models
// (H = 4) the sweep is D = 12, 20, 40. note says so when a D was rounded ("" otherwise).
func (l *setup) depths() (depths []int, note string) {
	H := l.geometry(0).Horizon
	var moved []string
	for _, d := range l.cfg.depths() {
		r := (d + H - 1) / H * H
		if r != d {
			moved = append(moved, fmt.Sprintf("%d → %d", d, r))
		}
		depths = append(depths, r)
	}
	if len(moved) > 0 {
		note = fmt.Sprintf("The sweep's D are multiples of the horizon H = %d (%s), so that the staircase moves every frame D/H whole steps a round.", H, strings.Join(moved, ", "))
	}
	return depths, note
}

// shortenForSweep shortens a full-mode protocol for the experiments that run every method at several
// settings: 50-frame rollouts, so that a sweep of 3 seeds stays within half an hour on two cores
// (52 on the 8-frame models: a whole number of chunks of H = 4 frames; FVD's 10-frame clips
// then cover the first 50).
func (l *setup) shortenForSweep() {
	if !l.cfg.Quick {
		H := l.geometry(0).Horizon
		l.p.Frames = (50 + H - 1) / H * H
	}
}

// depthFrontier runs every method at setup.depths() and draws FVD against NFE per frame. The
// paper's value of a method is printed only at its largest budget. Each claim adds, at every
// depth and stride, its two methods' FVD difference paired by training seed.
func (l *setup) depthFrontier(name, title, where string, ms []method, claims ...claim) (*Result, error) {
	depths, depthNote := l.depths()
	var curves []curve
	for _, m := range l.atStrides(ms) { // a curve per method and stride
		paper := m.Paper
		m.Paper = ""
		cv, err := l.atDepths(m, depths)
		if err != nil {
			return nil, err
		}
		cv.points[len(cv.points)-1].m.Paper = paper
		curves = append(curves, cv)
	}
	r, err := l.frontier(name, title, where, curves)
	if err != nil {
		return nil, err
	}
	r.Numbers = append(r.Numbers, frontierPairs(curves, len(ms), claims)...)
	for k, d := range depths { // each method's S = 1 against S = H at each depth, when both ran
		var rows []methodScores
		for _, cv := range curves {
			rows = append(rows, cv.points[k])
		}
		if eff := strideEffects(rows, fmt.Sprintf(" at D=%d", d)); len(eff) > 0 {
			r.Numbers = append(r.Numbers, eff...)
			if k == 0 {
				r.Notes = append(r.Notes, strideEffectNote)
			}
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Every curve runs D = %s steps per frame, a point each (the protocol's D above is the tables' default); "+
		"the paper sweeps 10…50 steps per frame.", andList(depths)))
	if depthNote != "" {
		r.Notes = append(r.Notes, depthNote)
	}
	return r, nil
}

// A claim is a comparison the paper draws from a figure of FVD against compute: method a's FVD
// minus method b's (indices into the methods of depthFrontier) has the sign Sign at every budget
// the figure shows (−1: a lower). Paper is what the paper says, for the Paper column.
type claim struct {
	a, b  int
	sign  float64
	paper string
}

// frontierPairs is every claim at every depth of every stride: a − b paired by training seed
// with its 95 % t-interval, and the verdict against the claim's sign. curves holds perStride
// curves per stride, in the order of depthFrontier's methods. With one training seed there is
// no interval over training seeds, and the verdict is inconclusive.
func frontierPairs(curves []curve, perStride int, claims []claim) []Number {
	var out []Number
	for s := 0; s+perStride <= len(curves); s += perStride {
		for _, c := range claims {
			ca, cb := curves[s+c.a], curves[s+c.b]
			for k := range min(len(ca.points), len(cb.points)) {
				a, b := ca.points[k], cb.points[k]
				bName := untagged(cb.name, b.m.Stride) // one stride tag is enough
				if n, ok := pairOf(fvdOf, a, b, fmt.Sprintf("%s − %s at %s: FVD", ca.name, bName, ca.labels[k]), c.sign, c.paper); ok {
					out = append(out, n)
				}
			}
		}
	}
	return out
}
