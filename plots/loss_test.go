package plots

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

func fakeRun(name string, scale float64) Run {
	r := Run{Name: name}
	for s := 1; s <= 300; s++ {
		pt := eqflib.LossPoint{Step: s, Loss: scale * (0.4 + 1.6*math.Exp(-float64(s)/80) + 0.05*math.Sin(float64(s)))}
		if s%50 == 0 {
			pt.ValLoss = scale * (0.45 + 1.6*math.Exp(-float64(s)/80))
		}
		r.History = append(r.History, pt)
	}
	return r
}

// The figure is drawn: the PNG decodes at the requested size and its plot area holds coloured
// (non-grey) pixels from the curves.
func TestLossCurvesDraws(t *testing.T) {
	dir := t.TempDir()
	for _, logScale := range []bool{false, true} {
		path := filepath.Join(dir, "loss.png")
		if err := LossCurves(path, []Run{fakeRun("EqF", 1), fakeRun("FM", 0.9)}, LossOptions{LogScale: logScale}); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(path)
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		if b.Dx() < 400 || b.Dy() < 250 {
			t.Fatalf("image %v", b)
		}
		if c := colouredPixels(img); c < 500 {
			t.Errorf("log=%v: only %d coloured pixels: the curves are missing", logScale, c)
		}
	}
	svg := filepath.Join(dir, "loss.svg")
	if err := LossCurves(svg, []Run{fakeRun("EqF", 1)}, LossOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(svg)
	for _, want := range []string{"optimiser step", "loss (MSE", "EqF train", "EqF validation"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if err := LossCurves(filepath.Join(dir, "x.jpg"), []Run{fakeRun("a", 1)}, LossOptions{}); err == nil {
		t.Error(".jpg accepted")
	}
	if err := LossCurves(filepath.Join(dir, "x.png"), nil, LossOptions{}); err == nil {
		t.Error("no runs accepted")
	}
}

func colouredPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			mx := max(r, g, bl)
			mn := min(r, g, bl)
			if mx-mn > 0x3000 {
				n++
			}
		}
	}
	return n
}
