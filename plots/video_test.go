package plots

import (
	"bytes"
	"image"
	"image/gif"
	"image/png"
	"math"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// movingSquare is a [1, T, 3, 8, 8] video: a red 2×2 square moving right on black, in
// standardised units (pixel = 0.5·v + 0.5).
func movingSquare(T int) *eqflib.Window {
	x := eqflib.MustNewWindow(1, T, 3, 8, 8)
	for i := range x.Data {
		x.Data[i] = -1 // black after de-standardising
	}
	for t := 0; t < T; t++ {
		for y := 3; y < 5; y++ {
			for xx := t; xx < t+2 && xx < 8; xx++ {
				x.Data[((t*3+0)*8+y)*8+xx] = 1 // red channel
			}
		}
	}
	return x
}

func TestVideoOutputs(t *testing.T) {
	o := VideoOptions{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.5, 0.5, 0.5}, Scale: 3, FPS: 10}
	v := Video{Name: "square", Frames: movingSquare(5)}
	b, err := GIFBytes(v, o)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 5 || g.Delay[0] != 10 {
		t.Fatalf("GIF: %d frames with delay %d, want 5 frames of 10/100 s", len(g.Image), g.Delay[0])
	}
	// Frame 2: the square covers model pixels x = 2, 3 on rows 3, 4 → display (3·x, 3·y).
	r, gg, bb, _ := g.Image[2].At(3*2+1, 3*3+1).RGBA()
	if r>>8 < 200 || gg>>8 > 60 || bb>>8 > 60 {
		t.Errorf("GIF frame 2 inside the square is (%d, %d, %d), want red", r>>8, gg>>8, bb>>8)
	}
	if r, _, _, _ := g.Image[2].At(3*6+1, 3*3+1).RGBA(); r>>8 > 60 {
		t.Errorf("GIF frame 2 outside the square has red %d, want black", r>>8)
	}

	img := stripImage(t, []Video{v, {Name: "square again", Frames: movingSquare(5)}}, o)
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 120+5*(24+4) || h != 16+2*(24+4) {
		t.Fatalf("strip is %d×%d, want %d×%d (label column + 5 frames, 2 rows)", w, h, 120+5*28, 16+2*28)
	}
	// Row 1, frame 4 (index 4): square at model x = 4, 5.
	r, gg, _, _ = img.At(120+4*28+3*4+1, 16+28+3*3+1).RGBA()
	if r>>8 != 255 || gg>>8 != 0 {
		t.Errorf("strip row 1 frame 4 inside the square is (%d, %d), want (255, 0)", r>>8, gg>>8)
	}

	h, err := PlayerHTML("Two squares", []Video{v, {Name: "shorter", Frames: movingSquare(3)}}, o)
	if err != nil {
		t.Fatal(err)
	}
	page := string(h)
	if n := strings.Count(page, ";base64,"); n != 5+3 {
		t.Errorf("player inlines %d frames, want 8", n)
	}
	for _, want := range []string{`type="range"`, `max="4"`, "Two squares", "shorter", "frame 1 / 5"} {
		if !strings.Contains(page, want) {
			t.Errorf("player lacks %q", want)
		}
	}
	if strings.Contains(page, "http") {
		t.Error("player references a network resource")
	}

	// Bad input names the parameter.
	for _, bad := range []struct {
		v    Video
		o    VideoOptions
		want string
	}{
		{Video{Name: "x", Frames: movingSquare(2), Clip: 1}, VideoOptions{}, "Clip"},
		{Video{Name: "x", Frames: movingSquare(2)}, VideoOptions{Scale: -1}, "Scale"},
		{Video{Name: "x", Frames: movingSquare(2)}, VideoOptions{Mean: []float64{0}}, "Mean/Std"},
		{Video{Name: "x", Frames: eqflib.MustNewWindow(1, 2, 2, 4, 4)}, VideoOptions{}, "channels"},
		{Video{Name: "x"}, VideoOptions{}, "Video.Frames"},
	} {
		if _, err := GIFBytes(bad.v, bad.o); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("GIFBytes(%s): error %v, want one naming %s", bad.want, err, bad.want)
		}
	}
}

// Clamped counts the values of the clip shown that map outside [0, 1]: movingSquare's −1s without
// its statistics, none with them; another clip of the batch is not counted, nor a bad video.
func TestClamped(t *testing.T) {
	sq := movingSquare(5) // per frame 3·64 values: 4 of them +1 (the square), the rest −1
	half := VideoOptions{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.5, 0.5, 0.5}}
	frac, lo, hi := Clamped([]Video{{Name: "raw", Frames: sq}}, VideoOptions{})
	if frac != 188.0/192 || lo != -1 || hi != 1 {
		t.Errorf("Clamped without statistics = %g in [%g, %g], want %g in [-1, 1]", frac, lo, hi, 188.0/192)
	}
	if frac, _, _ := Clamped([]Video{{Name: "mapped", Frames: sq}}, half); frac != 0 {
		t.Errorf("Clamped with the square's statistics = %g, want 0", frac)
	}
	// Twice the spread: the square's +1s map to 1.5 and clamp too.
	wide := VideoOptions{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{1, 1, 1}}
	if frac, _, _ := Clamped([]Video{{Name: "wide", Frames: sq}}, wide); frac != 1 {
		t.Errorf("Clamped with twice the spread = %g, want 1", frac)
	}
	// Only the red channel's mean shifted down: its −1s (64 − 4 a frame) map to −0.5 and clamp.
	redLow := VideoOptions{Mean: []float64{0, 0.5, 0.5}, Std: []float64{0.5, 0.5, 0.5}}
	if frac, _, _ := Clamped([]Video{{Name: "red", Frames: sq}}, redLow); frac != 60.0/192 {
		t.Errorf("Clamped with the red channel's mean at 0 = %g, want %g", frac, 60.0/192)
	}
	two := eqflib.MustNewWindow(2, 5, 3, 8, 8) // clip 0 the square, clip 1 zeros (mid-grey in [0, 1])
	copy(two.Data, sq.Data)
	if frac, lo, hi := Clamped([]Video{{Name: "second", Frames: two, Clip: 1}}, VideoOptions{}); frac != 0 || lo != 0 || hi != 0 {
		t.Errorf("Clamped of clip 1 = %g in [%g, %g], want 0 in [0, 0]", frac, lo, hi)
	}
	both := []Video{{Name: "first", Frames: two}, {Name: "second", Frames: two, Clip: 1}, {Name: "bad", Frames: two, Clip: 2}}
	if frac, _, _ := Clamped(both, VideoOptions{}); frac != 188.0/384 {
		t.Errorf("Clamped of clips 0 and 1 (and a bad one) = %g, want %g", frac, 188.0/384)
	}
	if frac, lo, hi := Clamped(nil, VideoOptions{}); frac != 0 || lo != 0 || hi != 0 {
		t.Errorf("Clamped of no videos = %g, %g, %g", frac, lo, hi)
	}
}

// Figures reject bad data with errors that name what is wrong.
func TestFigureErrors(t *testing.T) {
	for _, c := range []struct {
		f    *Figure
		want string
	}{
		{&Figure{Title: "t"}, "no panels"},
		{&Figure{Panels: []Panel{{Title: "p"}}}, "no series"},
		{&Figure{Panels: []Panel{{Series: []Series{{Name: "s", X: []float64{1}, Y: []float64{1, 2}}}}}}, "len(X) = 1, len(Y) = 2"},
		{&Figure{Panels: []Panel{{Series: []Series{{Name: "s", X: []float64{1}, Y: []float64{1}, Lo: []float64{0}}}}}}, "band"},
		{&Figure{Panels: []Panel{{Legend: "middle", Series: []Series{{X: []float64{1}, Y: []float64{1}}}}}}, "Legend"},
	} {
		_, err := c.f.Bytes("png")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	ok := &Figure{Panels: []Panel{{Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}}}}}}
	if _, err := ok.Bytes("jpg"); err == nil || !strings.Contains(err.Error(), "png, svg or html") {
		t.Errorf("jpg: %v", err)
	}
	if _, err := WarpFigure(nil, 10); err == nil {
		t.Error("WarpFigure with no warps")
	}
	if _, err := TraceFigure([]Trace{{Name: "x", Sched: []float64{1}}}, 0); err == nil {
		t.Error("TraceFigure with mismatched trace")
	}
	if _, err := RolloutFigure(nil, []Curve{{Name: "a", Values: []float64{1}}}, 25, ""); err == nil {
		t.Error("RolloutFigure without a feature-space name")
	}
	if _, err := FrontierFigure("", "maze-I3D", []FrontierSeries{{Name: "a", NFE: []float64{1}}}); err == nil {
		t.Error("FrontierFigure with mismatched lengths")
	}
}

// A closed-loop trace puts the schedule ρ(i/N), not σ̂, on its dashed line, and each σ̂ at the
// progress i/N of the step that read it (the first, read on pure noise, at 0).
func TestTraceFromResultPairsReadoutWithItsStep(t *testing.T) {
	mean := make([]float64, 16)
	for i := range mean {
		mean[i] = 0.3 * float64(i%5)
	}
	data, _ := eqflib.NewGaussian(mean, 0.2)
	eqf, _ := eqflib.NewOracle(data, eqflib.OracleEqF)
	x0, _ := eqflib.Randn(eqflib.NewRNG(1), 3, 2, 16, 1, 1)
	warp, _ := eqflib.ParseWarp("c")
	const N = 10
	res, err := eqflib.SampleNAG(eqf, x0, eqflib.Options{Steps: N, Warp: warp, ClosedLoop: true, Momentum: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := TraceFromResult("nag", res)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range tr.Sched {
		if want := warp.Rho(float64(i) / N); math.Abs(s-want) > 1e-12 {
			t.Fatalf("step %d: scheduled σ %.6f, want ρ(%d/%d) = %.6f", i, s, i, N, want)
		}
	}
	fig, err := TraceFigure([]Trace{tr}, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	est := fig.Panels[0].Series[0]
	if est.X[0] != 0 || math.Abs(est.X[N-1]-float64(N-1)/N) > 1e-12 {
		t.Errorf("σ̂ drawn at progress %v…%v, want 0…%v", est.X[0], est.X[N-1], float64(N-1)/N)
	}
	if est.Y[0] < 0.9 { // read on pure noise
		t.Errorf("first σ̂ %.3f, want ≈ 1 (read on the initial noise)", est.Y[0])
	}
}

// Row labels spell out the symbols the toolkit's method names use, and the label column widens
// so that two names that differ only after 16 characters stay apart (up to 40 characters).
func TestStripLabels(t *testing.T) {
	if got := asciiLabel("FM → EqF finetune, NAG μ=0.2 (σ ≤ 1)", 100); got != "FM -> EqF finetune, NAG mu=0.2 (sigma <= 1)" {
		t.Errorf("asciiLabel spelt %q", got)
	}
	if got := asciiLabel("漢 a very long name indeed", 10); got != "? a very.." {
		t.Errorf("asciiLabel cut %q", got)
	}
	o := VideoOptions{Scale: 3}
	long := []Video{{Name: "FM → EqF finetune, NAG", Frames: movingSquare(5)}, {Name: "FM → EqF finetune, GD", Frames: movingSquare(5)}}
	img := stripImage(t, long, o)
	chars := len("FM -> EqF finetune, NAG")
	if w := img.Bounds().Dx(); w != 8+7*chars+5*(24+4) {
		t.Errorf("strip width %d, want a label column of %d characters (%d pixels) + 5 frames", w, chars, 8+7*chars)
	}
	// The two rows' labels differ: some pixel of the label column does.
	differ := false
	for y := 0; y < 24 && !differ; y++ {
		for x := 0; x < 8+7*chars; x++ {
			a, _, _, _ := img.At(x, 16+y).RGBA()
			b, _, _, _ := img.At(x, 16+28+y).RGBA()
			if a != b {
				differ = true
				break
			}
		}
	}
	if !differ {
		t.Error("the two rows' labels are drawn the same")
	}
}

// stripImage draws the videos' strip and decodes it.
func stripImage(t *testing.T, videos []Video, o VideoOptions) image.Image {
	t.Helper()
	s, err := StripPNG(videos, o)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// A figure has one title: with one panel left, RolloutFigure's panel title becomes the
// figure's; with both, each panel keeps its own under the figure's.
func TestRolloutFigureOneTitle(t *testing.T) {
	c := []Curve{{Name: "a", Values: []float64{1, 2}}}
	one, err := RolloutFigure(nil, c, 25, "maze-I3D")
	if err != nil {
		t.Fatal(err)
	}
	if one.Title != "FVD over time" || len(one.Panels) != 1 || one.Panels[0].Title != "" {
		t.Errorf("one panel: figure %q, panel %q; want the figure titled \"FVD over time\" and the panel untitled", one.Title, one.Panels[0].Title)
	}
	two, err := RolloutFigure(c, c, 25, "maze-I3D")
	if err != nil {
		t.Fatal(err)
	}
	if two.Title != "Autoregressive rollouts" || two.Panels[0].Title == "" || two.Panels[1].Title == "" {
		t.Errorf("two panels: figure %q, panels %q, %q", two.Title, two.Panels[0].Title, two.Panels[1].Title)
	}
}
