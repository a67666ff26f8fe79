package plots

import (
	"context"
	"encoding/json"
	"html"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/browser"
)

// chromium runs Debian's chromium headless, offline (internal/browser), and returns its
// standard output. `make test` installs chromium (make browser).
func chromium(t *testing.T, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := browser.Headless(ctx, t.TempDir(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEChartsPageDrawsInChromium opens a figure's echarts page (script inlined, no network) in
// headless Chromium and checks from the screenshot that the chart is drawn: the plot area holds
// pixels of the series' colours. A page whose script failed to load shows only the title.
func TestEChartsPageDrawsInChromium(t *testing.T) {
	f, err := WarpFigure(DefaultWarps(), 10)
	if err != nil {
		t.Fatal(err)
	}
	f.Panels = f.Panels[1:2] // ρ(s) alone: one chart of 495×374 px at the page's top left
	page, err := f.Bytes("html")
	if err != nil {
		t.Fatal(err)
	}
	if regexp.MustCompile(`<script[^>]+src=`).Match(page) {
		t.Fatal("the page loads a script from elsewhere; it must be inlined")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "chart.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	chromium(t, "--window-size=700,500", "--screenshot="+shot, "file://"+path)
	fh, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	// Count pixels near each series colour inside the plot area (grid: top 70, left 70).
	found := make([]int, 4)
	for y := 80; y < 330 && y < img.Bounds().Dy(); y++ {
		for x := 80; x < 480 && x < img.Bounds().Dx(); x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for k := 0; k < 4; k++ {
				c := Palette[k]
				if absd(r>>8, uint32(c.R)) < 40 && absd(g>>8, uint32(c.G)) < 40 && absd(b>>8, uint32(c.B)) < 40 {
					found[k]++
				}
			}
		}
	}
	for k, n := range found {
		if n < 50 {
			t.Errorf("series %d (%s): %d pixels of its colour in the plot area; the chart is not drawn (counts %v)", k, f.Panels[0].Series[k].Name, n, found)
		}
	}
}

func absd(a, b uint32) uint32 { return max(a, b) - min(a, b) }

// TestWarpExplorerMatchesEqflib loads the η-warp explorer with parameters in its URL, lets its
// script compute the four warps, and compares the values it publishes with eqflib's warps.
func TestWarpExplorerMatchesEqflib(t *testing.T) {
	page, err := WarpExplorerHTML()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "explorer.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, "--dump-dom", "file://"+path+"?r=2.5&alpha=0.7&send=0.01&lmin=-10&lmax=12&n=7")
	m := regexp.MustCompile(`(?s)<pre id="values">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil || len(m[1]) == 0 {
		t.Fatalf("the explorer published no values; DOM starts %q", string(dom[:min(len(dom), 300)]))
	}
	var got struct {
		A               float64
		Eta, Rho, Steps [][]float64
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
		t.Fatal(err)
	}
	var warps []eqflib.Warp
	for _, spec := range []string{"identity", "sd3:2.5", "c:0.7:0.01", "logsnr:-10:12"} {
		w, err := eqflib.ParseWarp(spec)
		if err != nil {
			t.Fatal(err)
		}
		warps = append(warps, w)
	}
	close := func(what string, a, b float64) {
		t.Helper()
		if math.Abs(a-b) > 1e-9*(1+math.Abs(b)) {
			t.Errorf("%s: explorer %.12g, eqflib %.12g", what, a, b)
		}
	}
	close("c-function A", got.A, warps[2].(*eqflib.CFunction).A)
	if len(got.Eta) != 4 || len(got.Rho) != 4 || len(got.Steps) != 4 {
		t.Fatalf("explorer values for %d/%d/%d warps, want 4", len(got.Eta), len(got.Rho), len(got.Steps))
	}
	for k, w := range warps {
		for i := 0; i <= 10; i++ {
			u := float64(i) / 10
			close(w.Name()+" η", got.Eta[k][i], w.Eta(u))
			close(w.Name()+" ρ", got.Rho[k][i], w.Rho(u))
		}
		levels, _ := eqflib.Levels(w, 7)
		if len(got.Steps[k]) != 7 {
			t.Fatalf("%s: %d step sizes, want N = 7", w.Name(), len(got.Steps[k]))
		}
		for i := 0; i < 7; i++ {
			close(w.Name()+" step size", got.Steps[k][i], w.Eta(levels[i])/7)
		}
	}
}
