package eqf

import (
	"image/png"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/gomlx/gomlx/core/graph"
)

func TestHelpers(t *testing.T) {
	// Σ (x·w) with its gradient, against float64 arithmetic.
	f, err := ExecN(2, 2, func(g *graph.Graph, in []*graph.Node) []*graph.Node {
		loss := graph.ReduceAllSum(graph.Mul(in[0], in[1]))
		return []*graph.Node{loss, graph.Gradient(loss, in[0])[0]}
	})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Tensor32([]float64{0.5, -2, 3})
	w, _ := Tensor32([]int{4, 5, 6})
	outs, err := f.CallAll(x, w)
	if err != nil {
		t.Fatal(err)
	}
	loss, _ := Floats(outs[0])
	grad, _ := Floats(outs[1])
	if math.Abs(loss[0]-(0.5*4-2*5+3*6)) > 1e-5 || len(grad) != 3 || grad[0] != 4 || grad[1] != 5 || grad[2] != 6 {
		t.Errorf("loss %v grad %v", loss, grad)
	}
	if d := Describe(outs[1]); d != "Float32[3] [4 5 6]  mean 5 std 0.8165 min 4 max 6" {
		t.Errorf("Describe = %q", d)
	}
	i64, _ := Tensor([]int64{1, 2})
	if d := Describe(i64); d != "Int64[2] [1 2]" {
		t.Errorf("Describe(int64) = %q", d)
	}
	half, _ := Exec1(func(x *graph.Node) *graph.Node { return graph.Mul(x, ScalarLike(x, 0.5)) })
	y, err := half.Call(float64(3))
	if v, _ := Floats(y); err != nil || len(v) != 1 || v[0] != 1.5 {
		t.Errorf("half(3) = %v %v", v, err)
	}

	// Errors, not panics.
	for name, err := range map[string]error{
		"Exec1(nil)": func() error { _, err := Exec1(nil); return err }(),
		"ExecN outputs": func() error {
			_, err := ExecN(1, 0, func(*graph.Graph, []*graph.Node) []*graph.Node { return nil })
			return err
		}(),
		"nil Func": func() error { _, err := (*Func)(nil).Call(1); return err }(),
		"wrong count": func() error {
			g, _ := ExecN(1, 2, func(_ *graph.Graph, in []*graph.Node) []*graph.Node { return in })
			_, err := g.Call(x)
			return err
		}(),
		"bad arg":         func() error { _, err := half.Call("x"); return err }(),
		"Tensor32 string": func() error { _, err := Tensor32("x"); return err }(),
		"Tensor32 empty":  func() error { _, err := Tensor32([]float64{}); return err }(),
		"Floats nil":      func() error { _, err := Floats(nil); return err }(),
		"Show int":        func() error { _, err := Show(1); return err }(),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "eqf.") {
			t.Errorf("%s: error %v, want one naming the helper", name, err)
		}
	}
}

// TestShowVideos: Show writes videos as a labelled strip (PNG), a GIF and a player, and
// Videos' options turn values into pixels (a zoo model's standardised frames), where plain
// []plots.Video take values as pixels.
func TestShowVideos(t *testing.T) {
	SetSessionDir(t.TempDir())
	defer SetSessionDir("")
	w, err := eqflib.NewWindow(1, 3, 1, 2, 2) // all zeros
	if err != nil {
		t.Fatal(err)
	}
	list := []plots.Video{{Name: "zeros", Frames: w}, {Name: "again", Frames: w}}
	// The first frame's pixel in the strip: right of the label column (16 characters), below
	// the frame numbers.
	grey := func(paths []string) uint32 {
		t.Helper()
		if len(paths) != 3 || !strings.HasSuffix(paths[0], "video.png") || !strings.HasSuffix(paths[1], "video.gif") || !strings.HasSuffix(paths[2], "video.html") {
			t.Fatalf("paths %v: want the strip, the GIF and the player", paths)
		}
		f, err := os.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dy() < 16+2*(8+4) {
			t.Fatalf("strip %v: want two rows of 8-pixel frames", b)
		}
		r, _, _, _ := img.At(8+7*16+4, 16+4).RGBA()
		return r >> 8
	}
	paths, err := Show(list)
	if err != nil {
		t.Fatal(err)
	}
	if g := grey(paths); g != 0 {
		t.Errorf("[]plots.Video of zeros: pixel %d, want 0 (values as pixels)", g)
	}
	paths, err = Show(Videos{List: list, Options: plots.VideoOptions{Mean: []float64{0.5}, Std: []float64{2}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := grey(paths); g != 128 {
		t.Errorf("Videos of zeros with Mean 0.5: pixel %d, want 128 (0·2 + 0.5)", g)
	}
	if _, err := Show(Videos{List: list, Options: plots.VideoOptions{Mean: []float64{0, 0, 0}}}); err == nil || !strings.Contains(err.Error(), "Mean") {
		t.Errorf("Videos with 3 means for 1 channel: %v, want an error naming Mean", err)
	}
	if _, err := Show(Videos{}); err == nil || !strings.Contains(err.Error(), "no videos") {
		t.Errorf("empty Videos: %v, want \"no videos\"", err)
	}
}
