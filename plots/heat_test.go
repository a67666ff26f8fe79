package plots

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// A heat map's cells take the ramp's colours at their values (min dark blue, max yellow, the
// middle teal), a NaN cell stays blank, and the echarts page carries a heatmap series.
func TestHeatMapColours(t *testing.T) {
	h := &Heat{X: []float64{1, 2}, Y: []float64{1, 2}, Z: [][]float64{{0, 1}, {0.5, math.NaN()}}, Label: "σ̂"}
	f := &Figure{Title: "heat", Panels: []Panel{{XLabel: "x", YLabel: "y", Heat: h}}}
	b, err := f.Bytes("png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	count := func(want [3]uint8) int {
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if d := math.Abs(float64(r>>8)-float64(want[0])) + math.Abs(float64(g>>8)-float64(want[1])) + math.Abs(float64(b>>8)-float64(want[2])); d < 12 {
					n++
				}
			}
		}
		return n
	}
	lo, mid, hi := ramp(0), ramp(float64(31)/63), ramp(1)
	for name, c := range map[string][3]uint8{"min": {lo.R, lo.G, lo.B}, "middle": {mid.R, mid.G, mid.B}, "max": {hi.R, hi.G, hi.B}} {
		if n := count(c); n < 2000 {
			t.Errorf("%s colour %v covers %d pixels, want a cell's worth (≥ 2000)", name, c, n)
		}
	}
	page, err := f.Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `"type":"heatmap"`) || !strings.Contains(string(page), `"visualMap"`) {
		t.Error("the echarts page has no heatmap series with a visual map")
	}
	bad := &Figure{Panels: []Panel{{Heat: &Heat{X: []float64{1}, Y: []float64{1}, Z: [][]float64{{1, 2}}}}}}
	if _, err := bad.Bytes("png"); err == nil || !strings.Contains(err.Error(), "row 0 has 2 values") {
		t.Errorf("a ragged heat map: %v", err)
	}
}

// The rolling staircase as a heat map: one column per evaluation, one row per frame; every
// frame enters at σ = 1 and its scheduled level only falls.
func TestRollHeatFigure(t *testing.T) {
	g, _ := eqflib.NewGaussian(make([]float64, 8), 0.5)
	fm, _ := eqflib.NewOracle(g, eqflib.OracleFM)
	ctx, _ := g.Sample(eqflib.NewRNG(1), 1, 2, 8, 1, 1)
	res, err := eqflib.Roll(fm, ctx, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 4, Stride: 1, Depth: 4},
		Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler}, Frames: 6, Seed: 1, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := RollHeatFigure("staircase", res.Trace, 6, "sched")
	if err != nil {
		t.Fatal(err)
	}
	h := f.Panels[0].Heat
	if len(h.X) != res.NFE || len(h.Z) != 6 {
		t.Fatalf("heat map %d×%d, want %d evaluations × 6 frames", len(h.X), len(h.Z), res.NFE)
	}
	for fr, row := range h.Z {
		first, prev := true, 2.0
		for _, v := range row {
			if math.IsNaN(v) {
				continue
			}
			if first && v != 1 {
				t.Errorf("frame %d enters at σ = %g, want 1", fr+1, v)
			}
			if v > prev {
				t.Errorf("frame %d: scheduled level rose from %g to %g", fr+1, prev, v)
			}
			first, prev = false, v
		}
		if first {
			t.Errorf("frame %d never in the window", fr+1)
		}
	}
	if _, err := f.Bytes("png"); err != nil {
		t.Fatal(err)
	}
	if _, err := RollHeatFigure("x", res.Trace, 6, "sigma_hat"); err == nil {
		t.Error("σ̂ of an open-loop Euler rollout: no error")
	}
}
