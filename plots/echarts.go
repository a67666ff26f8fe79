package plots

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/components"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// EChartsVersion is the echarts release the pages inline. The script comes from the npm
// registry at build time (`make echarts`: npm pack echarts@EChartsVersion) and is not
// committed; pages never load it from a CDN, so they render with no network.
const EChartsVersion = "5.5.1"

// EChartsEnv names a file that overrides where the echarts script is read from.
const EChartsEnv = "EQF_ECHARTS_JS"

var (
	echartsOnce sync.Once
	echartsJS   []byte
	echartsErr  error
)

// EChartsScript returns the contents of echarts.min.js, looked up in $EQF_ECHARTS_JS, then
// plots/assets/echarts.min.js of this checkout (where `make echarts` puts it), then the user's
// cache directory (eqf/echarts-VERSION.min.js).
func EChartsScript() ([]byte, error) {
	echartsOnce.Do(func() {
		var tried []string
		var candidates []string
		if p := os.Getenv(EChartsEnv); p != "" {
			candidates = append(candidates, p)
		}
		if _, file, _, ok := runtime.Caller(0); ok {
			candidates = append(candidates, filepath.Join(filepath.Dir(file), "assets", "echarts.min.js"))
		}
		if dir, err := os.UserCacheDir(); err == nil {
			candidates = append(candidates, filepath.Join(dir, "eqf", "echarts-"+EChartsVersion+".min.js"))
		}
		for _, p := range candidates {
			b, err := os.ReadFile(p)
			if err == nil && len(b) > 100_000 {
				echartsJS = b
				return
			}
			tried = append(tried, p)
		}
		echartsErr = fmt.Errorf("plots: echarts.min.js not found (tried %v): run `make echarts` (npm pack echarts@%s) or set %s", tried, EChartsVersion, EChartsEnv)
	})
	return echartsJS, echartsErr
}

var scriptTag = regexp.MustCompile(`<script src="[^"]*echarts\.min\.js"></script>`)

// inlineECharts replaces go-echarts' external script tag with the script itself.
func inlineECharts(page []byte) ([]byte, error) {
	js, err := EChartsScript()
	if err != nil {
		return nil, err
	}
	if !scriptTag.Match(page) {
		return nil, fmt.Errorf("plots: internal error: no echarts script tag to inline")
	}
	inline := append(append([]byte("<script>"), js...), []byte("</script>")...)
	return scriptTag.ReplaceAllLiteral(page, inline), nil
}

func cssColor(i int, s *Series) string {
	c := s.color(i)
	return fmt.Sprintf("rgb(%d,%d,%d)", c.R, c.G, c.B)
}

// html renders the figure with echarts: one chart per panel, laid out in a flex page.
func (f *Figure) html() ([]byte, error) {
	page := components.NewPage()
	page.PageTitle = f.Title
	if page.PageTitle == "" {
		page.PageTitle = "eqf figure"
	}
	page.SetLayout(components.PageFlexLayout)
	w, h := f.Width, f.Height
	if w <= 0 {
		w = 4.5
	}
	if h <= 0 {
		h = 3.4
	}
	for _, p := range f.Panels {
		if p.Heat != nil {
			page.AddCharts(echartsHeat(f, p, int(w*110), int(h*110)))
			continue
		}
		page.AddCharts(echartsPanel(f, p, int(w*110), int(h*110)))
	}
	var buf bytes.Buffer
	if err := page.Render(&buf); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return inlineECharts(buf.Bytes())
}

func finite(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v > 0)
}

func echartsPanel(f *Figure, p Panel, w, h int) *charts.Line {
	line := charts.NewLine()
	title := p.Title
	sub := ""
	if len(f.Panels) == 1 {
		title, sub = f.Title, p.Title
	} else if f.Title != "" {
		sub = f.Title
	}
	axis := func(name string, log bool, lo, hi float64) (string, string, any, any) {
		typ := "value"
		if log {
			typ = "log"
		}
		var mn, mx any
		if lo < hi {
			mn, mx = lo, hi
		}
		return name, typ, mn, mx
	}
	xn, xt, xmin, xmax := axis(p.XLabel, p.LogX, p.XMin, p.XMax)
	yn, yt, ymin, ymax := axis(p.YLabel, p.LogY, p.YMin, p.YMax)
	// pixels beside the plot: under it the x axis's labels and name and the legend, left of it the
	// y axis's
	gridBottom, gridLeft := 70, 70
	// A range fixed by the panel (shared by panels, or zoomed) ends where the data does, not on a
	// round number: its end labels would print as 30.252898108.
	fixedEnds := func(lo, hi float64) *opts.AxisLabel {
		if lo < hi {
			return &opts.AxisLabel{ShowMinLabel: types.Bool(ptr(false)), ShowMaxLabel: types.Bool(ptr(false))}
		}
		return nil
	}
	xAxis := opts.XAxis{Name: xn, Type: xt, Min: xmin, Max: xmax, NameLocation: "middle", NameGap: 28, Scale: types.Bool(ptr(true)), AxisLabel: fixedEnds(p.XMin, p.XMax)}
	// Point labels are drawn right of their points (about 7 px a character): the plot ends far
	// enough left that the longest, at the rightmost point, stays on the page.
	gridRight := 30
	for _, s := range p.Series {
		for _, l := range s.Labels {
			gridRight = max(gridRight, 12+7*utf8.RuneCountInString(l))
		}
	}
	if p.XTicks != nil { // categories at x = 1, 2, …: one tick each, labelled by name
		// The formatter is JavaScript inlined in the page's JSON options, where double quotes
		// would be escaped: the names go in single-quoted literals.
		quote := strings.NewReplacer(`\`, "/", "'", "’")
		names := make([]string, len(p.XTicks))
		for i, n := range p.XTicks {
			names[i] = "'" + quote.Replace(n) + "'"
		}
		// The names are drawn rotated by 20°: the axis name goes below the longest, the legend
		// below the axis name.
		longest := 0
		for _, n := range p.XTicks {
			longest = max(longest, utf8.RuneCountInString(n))
		}
		xAxis.Min, xAxis.Max, xAxis.MinInterval, xAxis.MaxInterval = 0.5, float64(len(p.XTicks))+0.5, 1, 1
		xAxis.NameGap = max(52, 30+int(float64(longest)*7*math.Sin(20*math.Pi/180)))
		gridBottom = xAxis.NameGap + 45
		// The first name ends at its tick and reaches left by its rotated width: the plot starts
		// far enough right that it stays on the page. Its tick is half a category, (w − left −
		// right)/2n, right of the plot's edge; solved for left: left + (w − left − right)/2n =
		// width + 5.
		first := float64(utf8.RuneCountInString(p.XTicks[0])) * 7 * math.Cos(20*math.Pi/180)
		k := 1 / float64(2*len(p.XTicks))
		gridLeft = max(70, int((first+5-k*float64(w-gridRight))/(1-k)))
		xAxis.AxisLabel = &opts.AxisLabel{Rotate: 20, Formatter: opts.FuncOpts(fmt.Sprintf(
			"function (v) { var t = [%s]; return (v === Math.round(v) && v >= 1 && v <= t.length) ? t[v - 1] : ''; }", strings.Join(names, ", ")))}
	}
	line.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: fmt.Sprintf("%dpx", w), Height: fmt.Sprintf("%dpx", h), BackgroundColor: "#ffffff"}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: sub, Left: "center"}),
		charts.WithLegendOpts(opts.Legend{Show: types.Bool(ptr(p.Legend != "none")), Bottom: "0", Type: "scroll"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: types.Bool(ptr(true)), Trigger: "item"}),
		charts.WithGridOpts(opts.Grid{Top: "70", Bottom: strconv.Itoa(gridBottom), Left: strconv.Itoa(gridLeft), Right: strconv.Itoa(gridRight)}),
		charts.WithXAxisOpts(xAxis),
		charts.WithYAxisOpts(opts.YAxis{Name: yn, Type: yt, Min: ymin, Max: ymax, NameLocation: "middle", NameGap: 50, Scale: types.Bool(ptr(true)), AxisLabel: fixedEnds(p.YMin, p.YMax)}),
		charts.WithToolboxOpts(opts.Toolbox{Show: types.Bool(ptr(true)), Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: types.Bool(ptr(true)), Type: "png"},
			DataZoom:    &opts.ToolBoxFeatureDataZoom{Show: types.Bool(ptr(true))},
			Restore:     &opts.ToolBoxFeatureRestore{Show: types.Bool(ptr(true))}}}),
	)
	for i, s := range p.Series {
		col := cssColor(i, &s)
		pts := func(ys []float64) []opts.LineData {
			d := make([]opts.LineData, 0, len(s.X))
			for j := range s.X {
				if finite(s.X[j], p.LogX) && finite(ys[j], p.LogY) {
					ld := opts.LineData{Value: []any{s.X[j], ys[j]}}
					if s.Labels != nil && ys == nil {
						ld.Name = s.Labels[j]
					}
					d = append(d, ld)
				}
			}
			return d
		}
		if s.errorBars() {
			// Error bars, as the PNG draws them: a vertical segment per point, the segments
			// kept apart by an empty value ("-"), where echarts breaks a line.
			var bars []opts.LineData
			for j := range s.X {
				if finite(s.X[j], p.LogX) && finite(s.Lo[j], p.LogY) && finite(s.Hi[j], p.LogY) {
					bars = append(bars, opts.LineData{Value: []any{s.X[j], s.Lo[j]}}, opts.LineData{Value: []any{s.X[j], s.Hi[j]}},
						opts.LineData{Value: []any{s.X[j], "-"}})
				}
			}
			line.AddSeries("", bars, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: types.Bool(ptr(false))}),
				charts.WithLineStyleOpts(opts.LineStyle{Color: col, Width: 2}))
		} else if s.Lo != nil {
			// The band as two thin dotted edges in the series' colour (stacked areas would
			// break on log axes).
			for _, edge := range [][]float64{s.Lo, s.Hi} {
				line.AddSeries("", pts(edge), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: types.Bool(ptr(false))}),
					charts.WithLineStyleOpts(opts.LineStyle{Color: col, Width: 1, Type: "dotted", Opacity: types.Float(ptr(float32(0.7)))}))
			}
		}
		data := pts(s.Y)
		if s.Labels != nil {
			for j, k := 0, 0; j < len(s.X); j++ {
				if finite(s.X[j], p.LogX) && finite(s.Y[j], p.LogY) {
					data[k].Name = s.Labels[j]
					k++
				}
			}
		}
		lopts := opts.LineChart{ShowSymbol: types.Bool(ptr(s.Style == Points || s.Style == LinePoints)), SymbolSize: 6}
		lstyle := opts.LineStyle{Color: col, Width: 2}
		switch s.Style {
		case Points:
			lstyle.Width = 0
			lstyle.Opacity = types.Float(ptr(float32(0)))
			if len(data) > 500 {
				lopts.SymbolSize = 2
			}
		case Dashed:
			lstyle.Type = "dashed"
		}
		so := []charts.SeriesOpts{charts.WithLineChartOpts(lopts), charts.WithLineStyleOpts(lstyle), charts.WithItemStyleOpts(opts.ItemStyle{Color: col})}
		if s.Labels != nil {
			so = append(so, charts.WithLabelOpts(opts.Label{Show: types.Bool(ptr(true)), Formatter: "{b}", Position: "right", Color: col}))
		}
		line.AddSeries(s.Name, data, so...)
	}
	return line
}

func ptr[T any](v T) *T { return &v }
