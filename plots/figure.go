// Package plots draws the paper's figures from eqflib data. Every figure is built once as a
// Figure (panels of series) and rendered by the path's extension: .png and .svg with gonum/plot
// (static, for papers), .html with echarts (interactive, offline: the echarts script is inlined,
// never fetched from a CDN). The same Figure serves notebooks (Bytes → display) and the REPL
// (Save → a file).
package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Style is how a series is drawn.
type Style int

const (
	Line       Style = iota // a solid line
	Points                  // markers only
	LinePoints              // a line with markers
	Dashed                  // a dashed line (references: scheduled σ, y = x)
)

// Series is one named curve of a panel. Lo and Hi, when set, draw a shaded band (e.g. ± one
// standard deviation over frames), or error bars for Points and with Bars; Labels, when set,
// annotate the points.
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
	Style  Style
	Labels []string
	// Color is 0 for the series' position in the palette, or k ≥ 1 for Palette[k−1] (to keep
	// a method's colour across panels).
	Color int
	// Bars draws Lo and Hi as error bars at the points, as Points always does, instead of a
	// band: for a curve whose points are separate settings rather than samples of a function
	// (a quality-against-compute frontier, whose x need not run one way).
	Bars bool `json:",omitempty"`
}

// errorBars says whether the series' Lo and Hi are drawn as error bars rather than a band.
func (s Series) errorBars() bool { return s.Lo != nil && (s.Style == Points || s.Bars) }

// Panel is one set of axes.
type Panel struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// Legend places the legend inside the axes: "tr", "tl", "bl", "br", "none" (a figure whose
	// panels share series may show one legend), or "" for the corner that covers the fewest data
	// points (top right on a tie).
	Legend string
	// XMin/XMax/YMin/YMax fix the axis range when Min < Max (e.g. a zoomed view).
	XMin, XMax, YMin, YMax float64
	// XTicks, when set, makes the x axis name categories (methods, models): x = 1, 2, … is
	// labelled XTicks[0], XTicks[1], …, and the axis spans 0.5 to len(XTicks) + 0.5.
	XTicks []string
	Series []Series
	// Heat, when set, draws a heat map under the series (a panel may hold only a heat map; the
	// echarts page draws the heat map alone).
	Heat *Heat
}

// Figure is one or more panels side by side (Cols per row) under a title.
type Figure struct {
	Title  string
	Panels []Panel
	Cols   int     // panels per row (default: all in one row)
	Width  float64 // inches per panel (default 4.5)
	Height float64 // inches per panel (default 3.4)
}

// Palette is the figures' colour cycle (matplotlib's "tab10" order).
var Palette = []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255},
	{255, 127, 14, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255}}

func (s *Series) color(i int) color.RGBA {
	if s.Color > 0 {
		return Palette[(s.Color-1)%len(Palette)]
	}
	return Palette[i%len(Palette)]
}

// check validates the figure's data, naming the panel and series at fault.
func (f *Figure) check() error {
	if len(f.Panels) == 0 {
		return fmt.Errorf("plots: figure %q has no panels", f.Title)
	}
	for pi, p := range f.Panels {
		if len(p.Series) == 0 && p.Heat == nil {
			return fmt.Errorf("plots: figure %q panel %d (%q) has no series and no heat map", f.Title, pi, p.Title)
		}
		if p.XTicks != nil && (p.LogX || p.Heat != nil) {
			return fmt.Errorf("plots: figure %q panel %q: XTicks name categories on a linear axis without a heat map", f.Title, p.Title)
		}
		if p.Heat != nil {
			if err := p.Heat.check(fmt.Sprintf("plots: figure %q panel %q", f.Title, p.Title)); err != nil {
				return err
			}
			if p.LogX || p.LogY {
				return fmt.Errorf("plots: figure %q panel %q: a heat map needs linear axes", f.Title, p.Title)
			}
		}
		for _, s := range p.Series {
			where := fmt.Sprintf("plots: figure %q panel %q series %q", f.Title, p.Title, s.Name)
			if len(s.X) != len(s.Y) || len(s.X) == 0 {
				return fmt.Errorf("%s: len(X) = %d, len(Y) = %d: must be equal and > 0", where, len(s.X), len(s.Y))
			}
			if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X)) {
				return fmt.Errorf("%s: band Lo/Hi lengths %d/%d must equal len(X) = %d", where, len(s.Lo), len(s.Hi), len(s.X))
			}
			if s.Labels != nil && len(s.Labels) != len(s.X) {
				return fmt.Errorf("%s: len(Labels) = %d must equal len(X) = %d", where, len(s.Labels), len(s.X))
			}
		}
	}
	return nil
}

// Save renders the figure by path's extension (.png, .svg or .html) and writes it atomically.
func (f *Figure) Save(path string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	b, err := f.Bytes(format)
	if err != nil {
		return fmt.Errorf("%w (writing %s)", err, path)
	}
	if err := fsutil.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}

// Bytes renders the figure as "png", "svg" or "html".
func (f *Figure) Bytes(format string) ([]byte, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	switch format {
	case "png", "svg":
		return f.static(format)
	case "html":
		return f.html()
	}
	return nil, fmt.Errorf("plots: format %q: must be png, svg or html", format)
}

func (f *Figure) grid() (rows, cols int, w, h vg.Length) {
	cols = f.Cols
	if cols < 1 || cols > len(f.Panels) {
		cols = len(f.Panels)
	}
	rows = (len(f.Panels) + cols - 1) / cols
	pw, ph := f.Width, f.Height
	if pw <= 0 {
		pw = 4.5
	}
	if ph <= 0 {
		ph = 3.4
	}
	return rows, cols, vg.Length(pw*float64(cols)) * vg.Inch, vg.Length(ph*float64(rows)) * vg.Inch
}

// static renders with gonum/plot.
func (f *Figure) static(format string) ([]byte, error) {
	rows, cols, w, h := f.grid()
	var canvas vg.CanvasWriterTo
	if format == "svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
	}
	dc := draw.New(canvas)
	// White background (PNG canvases start transparent).
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	single := len(f.Panels) == 1
	if !single && f.Title != "" {
		sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		dc.FillText(sty, vg.Point{X: w / 2, Y: h - vg.Points(4)}, f.Title)
		dc = draw.Crop(dc, 0, 0, 0, -vg.Points(22))
	}
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, p := range f.Panels {
		title := p.Title
		if single && f.Title != "" {
			title = f.Title
			if p.Title != "" {
				title += "\n" + p.Title
			}
		}
		pl, err := gonumPanel(p, title)
		if err != nil {
			return nil, err
		}
		plots[i/cols][i%cols] = pl
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(10), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(6)}
	for r := range plots {
		for c := range plots[r] {
			if plots[r][c] != nil {
				plots[r][c].Draw(tiles.At(dc, c, r))
			}
		}
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

func gonumPanel(p Panel, title string) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = title
	var placed []vg.Rectangle // the point labels drawn so far (pointLabels)
	pl.X.Label.Text, pl.Y.Label.Text = p.XLabel, p.YLabel
	// Log axes plot log10 of the data on a linear axis with decade ticks: gonum's LogScale
	// places a centred axis label at the arithmetic midpoint, which pads the plot area.
	pl.X.Tick.Marker, pl.Y.Tick.Marker = shortTicks{}, shortTicks{}
	if p.LogX {
		pl.X.Tick.Marker = decadeTicks{}
	}
	if p.LogY {
		pl.Y.Tick.Marker = decadeTicks{}
	}
	if p.XTicks != nil {
		ticks := make(plot.ConstantTicks, len(p.XTicks))
		for k, name := range p.XTicks {
			ticks[k] = plot.Tick{Value: float64(k + 1), Label: name}
		}
		pl.X.Tick.Marker = ticks
		pl.X.Min, pl.X.Max = 0.5, float64(len(p.XTicks))+0.5
		pl.X.Tick.Label.Font.Size = vg.Points(8)
		pl.X.Tick.Label.Rotation = math.Pi / 8 // names longer than their slot do not run into each other
		pl.X.Tick.Label.XAlign, pl.X.Tick.Label.YAlign = draw.XRight, draw.YTop
	}
	tx := func(v float64) float64 {
		if p.LogX {
			return math.Log10(v)
		}
		return v
	}
	ty := func(v float64) float64 {
		if p.LogY {
			return math.Log10(v)
		}
		return v
	}
	pl.Add(plotter.NewGrid())
	if p.Heat != nil {
		addHeat(pl, p.Heat, p.Legend != "none")
	}
	legend := p.Legend
	if legend == "" {
		legend = emptiestCorner(p, tx, ty)
	}
	switch legend {
	case "tr":
		pl.Legend.Top = true
	case "tl":
		pl.Legend.Top, pl.Legend.Left = true, true
	case "bl":
		pl.Legend.Left = true
	case "br", "none":
	default:
		return nil, fmt.Errorf("plots: panel %q: Legend = %q: must be \"\", tr, tl, bl, br or none", p.Title, p.Legend)
	}
	pl.Legend.TextStyle.Font.Size = vg.Points(8)
	pl.Legend.XOffs, pl.Legend.YOffs = -vg.Points(4), vg.Points(4)
	if pl.Legend.Top {
		pl.Legend.YOffs = -vg.Points(4)
	}
	if pl.Legend.Left {
		pl.Legend.XOffs = vg.Points(4)
	}
	keep := func(x, y float64) bool {
		return !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0) && (!p.LogX || x > 0) && (!p.LogY || y > 0)
	}
	for i, s := range p.Series {
		col := s.color(i)
		if s.errorBars() {
			// Separate points get error bars (a band needs a curve to follow).
			for j := range s.X {
				if !keep(s.X[j], s.Lo[j]) || !keep(s.X[j], s.Hi[j]) || !(s.Hi[j] > s.Lo[j]) {
					continue
				}
				bar, err := plotter.NewLine(plotter.XYs{{X: tx(s.X[j]), Y: ty(s.Lo[j])}, {X: tx(s.X[j]), Y: ty(s.Hi[j])}})
				if err != nil {
					return nil, fmt.Errorf("plots: %w", err)
				}
				bar.Color, bar.Width = col, vg.Points(1.5)
				pl.Add(bar)
			}
		} else if s.Lo != nil {
			var poly plotter.XYs
			for j := range s.X {
				if keep(s.X[j], s.Lo[j]) {
					poly = append(poly, plotter.XY{X: tx(s.X[j]), Y: ty(s.Lo[j])})
				}
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				if keep(s.X[j], s.Hi[j]) {
					poly = append(poly, plotter.XY{X: tx(s.X[j]), Y: ty(s.Hi[j])})
				}
			}
			if len(poly) >= 3 {
				band, err := plotter.NewPolygon(poly)
				if err != nil {
					return nil, fmt.Errorf("plots: %w", err)
				}
				band.Color = color.NRGBA{col.R, col.G, col.B, 50}
				band.LineStyle.Width = 0
				pl.Add(band)
			}
		}
		var xy plotter.XYs
		var labels []string
		for j := range s.X {
			if keep(s.X[j], s.Y[j]) {
				xy = append(xy, plotter.XY{X: tx(s.X[j]), Y: ty(s.Y[j])})
				if s.Labels != nil {
					labels = append(labels, s.Labels[j])
				}
			}
		}
		if len(xy) == 0 {
			continue
		}
		var thumbs []plot.Thumbnailer
		if s.Style != Points {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, fmt.Errorf("plots: %w", err)
			}
			l.Color, l.Width = col, vg.Points(1.6)
			if s.Style == Dashed {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				l.Width = vg.Points(1.2)
			}
			pl.Add(l)
			thumbs = append(thumbs, l)
		}
		if s.Style == Points || s.Style == LinePoints {
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, fmt.Errorf("plots: %w", err)
			}
			sc.Color, sc.Shape = col, draw.CircleGlyph{}
			sc.Radius = vg.Points(3)
			if s.Style == Points && len(xy) > 500 {
				sc.Radius = vg.Points(0.8)
				sc.Color = color.NRGBA{col.R, col.G, col.B, 90}
			}
			pl.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if labels != nil {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
			if err != nil {
				return nil, fmt.Errorf("plots: %w", err)
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Font.Size = vg.Points(7)
				lb.TextStyle[k].Color = col
			}
			lb.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(3)}
			pl.Add(pointLabels{lb, &placed})
		}
		if s.Name != "" && p.Legend != "none" {
			pl.Legend.Add(s.Name, thumbs...)
		}
	}
	if p.XMin < p.XMax && (!p.LogX || p.XMin > 0) {
		pl.X.Min, pl.X.Max = tx(p.XMin), tx(p.XMax)
	}
	if p.YMin < p.YMax && (!p.LogY || p.YMin > 0) {
		pl.Y.Min, pl.Y.Max = ty(p.YMin), ty(p.YMax)
	}
	return pl, nil
}

// shortTicks are gonum's default ticks labelled in the shortest form ("25", not "25.00").
type shortTicks struct{}

func (shortTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
		}
	}
	return ticks
}

// decadeTicks label an axis that holds log10 of the data: major ticks at whole decades
// (labelled 10^k), minor ticks at 2…9 × 10^k.
type decadeTicks struct{}

func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for k := math.Floor(min); k <= math.Ceil(max); k++ {
		for m := 1; m < 10; m++ {
			v := k + math.Log10(float64(m))
			if v < min-1e-9 || v > max+1e-9 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(math.Pow(10, k), 'g', 6, 64)
			}
			out = append(out, t)
		}
	}
	labelled := 0
	for _, t := range out {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled >= 2 {
		return out
	}
	// Less than a decade labelled: label 1, 2 and 5 × 10^k (every tick, when that still leaves
	// fewer than two; labelling 6, 7, 8 and 9 crowds the labels just below a decade together).
	label := func(every bool) (n int) {
		for i := range out {
			m := int(math.Round(math.Pow(10, out[i].Value-math.Floor(out[i].Value+1e-9))))
			out[i].Label = ""
			if every || m == 1 || m == 2 || m == 5 {
				out[i].Label = twoDigits(math.Pow(10, out[i].Value))
				n++
			}
		}
		return n
	}
	if label(false) < 2 {
		label(true)
	}
	return out
}

// twoDigits writes v rounded to two significant digits without an exponent ("200", "0.05").
func twoDigits(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 2, 64), 64) // the rounding, exactly as written
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// LegendHeight is the share of a panel's height its legend takes (0 with Legend "none"): 5 %
// plus 6 % per named series, at most all of it.
func LegendHeight(p Panel) float64 {
	named := 0
	for _, s := range p.Series {
		if s.Name != "" {
			named++
		}
	}
	if p.Legend == "none" || named == 0 {
		return 0
	}
	return min(1, 0.05+0.06*float64(named))
}

// emptiestCorner is the legend corner ("tr", "tl", "br", "bl", in that order of preference)
// whose box holds the fewest of the panel's data points (in the axes' own, possibly logarithmic,
// coordinates). The box approximates the legend: 45 % of the axes' width and, per named series,
// 6 % of their height plus 5 %.
func emptiestCorner(p Panel, tx, ty func(float64) float64) string {
	var xs, ys []float64
	add := func(x, y float64) {
		x, y = tx(x), ty(y)
		if !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0) {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	for _, s := range p.Series {
		for i := range min(len(s.X), len(s.Y)) {
			add(s.X[i], s.Y[i])
			if s.errorBars() && i < min(len(s.Lo), len(s.Hi)) { // a bar's ends are data too
				add(s.X[i], s.Lo[i])
				add(s.X[i], s.Hi[i])
			}
		}
	}
	if len(xs) == 0 {
		return "tr"
	}
	x0, x1, y0, y1 := slices.Min(xs), slices.Max(xs), slices.Min(ys), slices.Max(ys)
	if p.XMin < p.XMax {
		x0, x1 = tx(p.XMin), tx(p.XMax)
	}
	if p.YMin < p.YMax {
		y0, y1 = ty(p.YMin), ty(p.YMax)
	}
	width, height := 0.45, LegendHeight(p)
	best, fewest := "tr", -1
	for _, c := range []string{"tr", "tl", "br", "bl"} {
		n := 0
		for i := range xs {
			fx, fy := (xs[i]-x0)/(x1-x0), (ys[i]-y0)/(y1-y0)
			if x1 == x0 {
				fx = 0.5
			}
			if y1 == y0 {
				fy = 0.5
			}
			inX := fx >= 1-width
			if c[1] == 'l' {
				inX = fx <= width
			}
			inY := fy >= 1-height
			if c[0] == 'b' {
				inY = fy <= height
			}
			if inX && inY {
				n++
			}
		}
		if fewest < 0 || n < fewest {
			best, fewest = c, n
		}
	}
	return best
}
