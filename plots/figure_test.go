package plots

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// The default legend goes to the corner with the fewest data points: a curve rising to the top
// right leaves the top left free; a curve that fills every corner but the bottom left gets it.
func TestLegendEmptiestCorner(t *testing.T) {
	id := func(v float64) float64 { return v }
	rising := Panel{Series: []Series{{Name: "a", X: []float64{0, 1, 2, 3, 4}, Y: []float64{0, 1, 2, 3, 4}}}}
	if c := emptiestCorner(rising, id, id); c != "tl" {
		t.Errorf("rising curve: legend at %q, want tl", c)
	}
	falling := Panel{Series: []Series{{Name: "a", X: []float64{0, 1, 2, 3, 4}, Y: []float64{4, 3, 2, 1, 0}}}}
	if c := emptiestCorner(falling, id, id); c != "tr" {
		t.Errorf("falling curve: legend at %q, want tr", c)
	}
	three := Panel{Series: []Series{{Name: "a", X: []float64{0, 4, 4, 2}, Y: []float64{4, 4, 0, 2}}}}
	if c := emptiestCorner(three, id, id); c != "bl" {
		t.Errorf("three corners taken: legend at %q, want bl", c)
	}
	// An error bar's ends are data: a flat line whose last point's bar spans the panel takes the
	// right-hand corners; the same Lo and Hi drawn as a band do not count.
	flat := func(bars bool) Panel {
		return Panel{Series: []Series{{Name: "a", X: []float64{0, 1, 2, 3, 4}, Y: []float64{2, 2, 2, 2, 2},
			Lo: []float64{2, 2, 2, 2, 0}, Hi: []float64{2, 2, 2, 2, 4}, Style: LinePoints, Bars: bars}}}
	}
	if c := emptiestCorner(flat(true), id, id); c != "tl" {
		t.Errorf("an error bar in the right-hand corners: legend at %q, want tl", c)
	}
	if c := emptiestCorner(flat(false), id, id); c != "tr" {
		t.Errorf("a band: legend at %q, want tr (a band's edges are not points)", c)
	}
	if c := emptiestCorner(Panel{}, id, id); c != "tr" {
		t.Errorf("no data: legend at %q, want tr", c)
	}
}

// XTicks name an axis's categories: in the PNG at x = 1, 2, … with the axis spanning 0.5 to
// n + 0.5, in the echarts page through a JavaScript label formatter (not a quoted string, which
// echarts would print as is); a log x axis is refused.
func TestXTicks(t *testing.T) {
	p := Panel{XLabel: "method", YLabel: "ms", XTicks: []string{"FM Euler", "EqF NAG + h_ω"},
		Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{5}}, {Name: "b", X: []float64{2}, Y: []float64{6}}}}
	pl, err := gonumPanel(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if pl.X.Min != 0.5 || pl.X.Max != 2.5 {
		t.Errorf("x axis spans %g–%g, want 0.5–2.5", pl.X.Min, pl.X.Max)
	}
	ticks := pl.X.Tick.Marker.Ticks(pl.X.Min, pl.X.Max)
	if len(ticks) != 2 || ticks[0].Value != 1 || ticks[0].Label != "FM Euler" || ticks[1].Value != 2 || ticks[1].Label != "EqF NAG + h_ω" {
		t.Errorf("ticks %+v, want FM Euler at 1 and EqF NAG + h_ω at 2", ticks)
	}
	f := &Figure{Title: "t", Panels: []Panel{p}}
	if _, err := f.Bytes("png"); err != nil {
		t.Fatal(err)
	}
	page, err := f.Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	if want := `"formatter":function (v) { var t = ['FM Euler', 'EqF NAG + h_ω'];`; !bytes.Contains(page, []byte(want)) {
		t.Errorf("the page has no label formatter %s", want)
	}
	p.LogX = true
	if _, err := (&Figure{Panels: []Panel{p}}).Bytes("png"); err == nil || !strings.Contains(err.Error(), "XTicks") {
		t.Errorf("a log x axis with XTicks: error %v, want one naming XTicks", err)
	}
}

// A log axis spanning less than two labelled decades labels 1, 2 and 5 × 10^k, not every minor
// tick (0.6 … 0.9 crowd together below 1); within one decade it labels every tick.
func TestDecadeTicksLabels(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (decadeTicks{}).Ticks(math.Log10(lo), math.Log10(hi)) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0.13, 4.5, "[0.2 0.5 1 2]"},
		{0.3, 0.45, "[0.3 0.4]"},
		{0.001, 0.5, "[0.001 0.01 0.1]"},
		{20, 600, "[20 50 100 200 500]"}, // never "1e+02"
		{0.013, 0.045, "[0.02 0.03 0.04]"},
	} {
		if got := fmt.Sprint(labels(c.lo, c.hi)); got != c.want {
			t.Errorf("log axis [%g, %g]: labels %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// Separate points with Lo/Hi get error bars: the picture changes with the interval (a band
// polygon through three single points would draw nothing).
func TestPointsErrorBars(t *testing.T) {
	draw := func(lo, hi []float64) []byte {
		p := Panel{XLabel: "method", YLabel: "PSNR (dB)", Legend: "none", XTicks: []string{"a", "b"}}
		for i := range 2 {
			s := Series{Name: p.XTicks[i], X: []float64{float64(i + 1)}, Y: []float64{20 + float64(i)}, Style: Points}
			if lo != nil {
				s.Lo, s.Hi = []float64{lo[i]}, []float64{hi[i]}
			}
			p.Series = append(p.Series, s)
		}
		b, err := (&Figure{Title: "bars", Panels: []Panel{p}}).Bytes("png")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain, bars := draw(nil, nil), draw([]float64{19, 20.5}, []float64{21, 21.5})
	if bytes.Equal(plain, bars) {
		t.Error("points with Lo/Hi drew no error bars")
	}
}

// The interactive page draws a Points series' Lo/Hi as error bars too (a vertical segment per
// point, apart from the next), not as a band whose edges join the points across categories; and
// rotated category names get room under the axis, its name below them, the legend below that.
// A frontier with FVDErr draws FVD ± FVDErr as error bars on its line (not a band: its x need
// not run one way), in the PNG and the page; a figure saved as JSON keeps them; a method
// without FVDErr has none, and an FVDErr of the wrong length is refused by name.
func TestFrontierErrorBars(t *testing.T) {
	f, err := FrontierFigure("frontier", "maze-I3D", []FrontierSeries{
		{Name: "with", NFE: []float64{40, 21, 35}, FVD: []float64{5, 9, 8}, FVDErr: []float64{0.5, 1, 2}},
		{Name: "without", NFE: []float64{40, 21}, FVD: []float64{7, 18}}})
	if err != nil {
		t.Fatal(err)
	}
	s, plain := f.Panels[0].Series[0], f.Panels[0].Series[1]
	if !s.Bars || !slices.Equal(s.Lo, []float64{4.5, 8, 6}) || !slices.Equal(s.Hi, []float64{5.5, 10, 10}) || plain.Bars || plain.Lo != nil {
		t.Fatalf("series: bars %v, lo %v, hi %v; without FVDErr: bars %v, lo %v", s.Bars, s.Lo, s.Hi, plain.Bars, plain.Lo)
	}
	// The y range holds every bar and point with a 5 % margin (4.5 … 18), so no bar ends on an axis.
	if p := f.Panels[0]; math.Abs(p.YMin-(4.5-0.675)) > 1e-12 || math.Abs(p.YMax-(18+0.675)) > 1e-12 {
		t.Errorf("y range [%g, %g], want [3.825, 18.675]", p.YMin, p.YMax)
	}
	if p, _ := FrontierFigure("", "maze-I3D", []FrontierSeries{{Name: "without", NFE: []float64{40, 21}, FVD: []float64{7, 18}}}); p.Panels[0].YMin != 0 || p.Panels[0].YMax != 0 {
		t.Errorf("a frontier without error bars fixes its y range [%g, %g]", p.Panels[0].YMin, p.Panels[0].YMax)
	}
	page, err := f.Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	bars := `[{"value":[40,4.5]},{"value":[40,5.5]},{"value":[40,"-"]},{"value":[21,8]},{"value":[21,10]},{"value":[21,"-"]},{"value":[35,6]},{"value":[35,10]},{"value":[35,"-"]}]`
	if !bytes.Contains(page, []byte(bars)) || bytes.Contains(page, []byte(`"type":"dotted"`)) {
		t.Errorf("the page lacks the error bars %s, or draws a band", bars)
	}
	// Point labels, drawn right of their points, keep room on the page's right: "τ=0.156" is 7
	// characters of about 7 px; without labels the margin is 30 px.
	labelled := *f
	labelled.Panels = []Panel{f.Panels[0]}
	labelled.Panels[0].Series = []Series{s}
	labelled.Panels[0].Series[0].Labels = []string{"τ=0", "τ=0.156", "τ=+Inf"}
	for _, c := range []struct {
		f    *Figure
		want string
	}{{&labelled, `"right":"61"`}, {f, `"right":"30"`}} {
		if page, err := c.f.Bytes("html"); err != nil || !bytes.Contains(page, []byte(c.want)) {
			t.Errorf("grid right margin: want %s (%v)", c.want, err)
		}
	}
	// The PNG draws the bars, not the band the same Lo and Hi make without Bars.
	band := f.Panels[0]
	band.Series = []Series{s}
	withBars := mustPNG(t, &Figure{Title: "frontier", Panels: []Panel{band}})
	band.Series[0].Bars = false
	withBand := mustPNG(t, &Figure{Title: "frontier", Panels: []Panel{band}})
	if bytes.Equal(withBars, withBand) {
		t.Error("the PNG draws Bars as the band")
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back Figure
	if err := json.Unmarshal(b, &back); err != nil || !back.Panels[0].Series[0].Bars || back.Panels[0].Series[1].Bars ||
		bytes.Count(b, []byte(`"Bars"`)) != 1 {
		t.Errorf("JSON round trip: %v, bars %v; %d Bars fields written, want 1 (omitted when false)", err, back.Panels[0].Series[0].Bars, bytes.Count(b, []byte(`"Bars"`)))
	}
	if _, err := FrontierFigure("", "maze-I3D", []FrontierSeries{{Name: "a", NFE: []float64{1, 2}, FVD: []float64{1, 2}, FVDErr: []float64{1}}}); err == nil ||
		!strings.Contains(err.Error(), `method "a" has 1 FVDErr values for 2 FVD values`) {
		t.Errorf("FVDErr of the wrong length: %v", err)
	}
}

func mustPNG(t *testing.T, f *Figure) []byte {
	t.Helper()
	b, err := f.Bytes("png")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPointsErrorBarsHTML(t *testing.T) {
	long := "EqF budget-adaptive NAG μ=0.2" // 29 characters
	p := Panel{XLabel: "sampler", YLabel: "FVD", XTicks: []string{"FM Euler", long},
		Series: []Series{{Name: "mean", X: []float64{1, 2}, Y: []float64{20, 21}, Lo: []float64{19, 20.5}, Hi: []float64{21, 21.5}, Style: Points},
			{Name: "band", X: []float64{1, 2}, Y: []float64{10, 11}, Lo: []float64{9, 10}, Hi: []float64{11, 12}}}}
	page, err := (&Figure{Title: "bars", Panels: []Panel{p}}).Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	bars := `[{"value":[1,19]},{"value":[1,21]},{"value":[1,"-"]},{"value":[2,20.5]},{"value":[2,21.5]},{"value":[2,"-"]}]`
	if !bytes.Contains(page, []byte(bars)) {
		t.Errorf("the page has no error bars %s", bars)
	}
	// The line series keeps its band: two dotted edges, and only those.
	if n := bytes.Count(page, []byte(`"type":"dotted"`)); n != 2 {
		t.Errorf("%d dotted band edges, want the line series' two", n)
	}
	gap := regexp.MustCompile(`"nameGap":(\d+)`).FindAllSubmatch(page, -1)
	bottom := regexp.MustCompile(`"bottom":"(\d+)"`).FindSubmatch(page)
	if len(gap) < 1 || bottom == nil {
		t.Fatalf("no nameGap or grid bottom in the page")
	}
	g, _ := strconv.Atoi(string(gap[0][1]))
	b, _ := strconv.Atoi(string(bottom[1]))
	// 29 characters of about 7 px rotated by 20° reach about 69 px below the axis.
	if g < 30+69 || b < g+40 {
		t.Errorf("x axis name %d px below the axis, grid bottom %d px: want the name below the rotated names (≥ 99) and the legend below it", g, b)
	}
	left := func(p Panel) int {
		page, err := (&Figure{Title: "bars", Panels: []Panel{p}}).Bytes("html")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`"left":"(\d+)"`).FindSubmatch(page)
		if m == nil {
			t.Fatal("no grid left in the page")
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	if l := left(p); l != 70 {
		t.Errorf("grid left %d px with a short first name, want 70", l)
	}
	// A long first name reaches left of its tick by about 29·7·cos 20° = 191 px; its tick lies
	// half a category (of a 495-px chart's plot) right of the plot's edge.
	p.XTicks = []string{long, "FM Euler"}
	if l := left(p); l < 191-(495-l-30)/4 || l > 191+5-(495-l-30)/4+2 {
		t.Errorf("grid left %d px with a long first name: its label leaves the page", l)
	}
	if bytes.Contains(page, []byte(`"showMinLabel":false`)) {
		t.Error("a free axis hides its end labels")
	}
	p.YMin, p.YMax = 8.123456789, 22.98765
	page, err = (&Figure{Title: "bars", Panels: []Panel{p}}).Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`"showMinLabel":false,"showMaxLabel":false`)) {
		t.Error("a fixed y range prints its ends (8.123456789) as labels")
	}
}

// Point labels never overprint while a free place is left: a label whose default place
// (above right) is taken goes below right, then left; the last resort is the default place.
func TestPlaceLabel(t *testing.T) {
	text := vg.Rectangle{Max: vg.Point{X: 30, Y: 8}} // a label's box from its anchor
	off := vg.Point{X: 4, Y: 3}
	var placed []vg.Rectangle
	var anchors []vg.Point
	for k := 0; k < 5; k++ { // five labels on one point
		at, box := placeLabel(vg.Point{X: 100, Y: 100}, text, off, placed)
		if box != text.Add(at) {
			t.Fatalf("label %d: box %v is not the text box at %v", k, box, at)
		}
		for j, b := range placed {
			if k < 4 && overlaps(box, b) {
				t.Errorf("label %d at %v overlaps label %d's box %v", k, at, j, b)
			}
		}
		placed, anchors = append(placed, box), append(anchors, at)
	}
	want := []vg.Point{{X: 104, Y: 103}, {X: 104, Y: 89}, {X: 66, Y: 103}, {X: 66, Y: 89}, {X: 104, Y: 103}}
	for k := range want {
		if anchors[k] != want[k] {
			t.Errorf("label %d at %v, want %v", k, anchors[k], want[k])
		}
	}
	// Boxes that only touch do not overlap.
	if overlaps(vg.Rectangle{Max: vg.Point{X: 1, Y: 1}}, vg.Rectangle{Min: vg.Point{X: 1}, Max: vg.Point{X: 2, Y: 1}}) {
		t.Error("touching boxes reported as overlapping")
	}
}
