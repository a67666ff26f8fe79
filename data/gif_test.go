package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An animated GIF is a clip: the frames a viewer shows, each drawn over what the previous
// frame's disposal left (none, background, previous), transparent pixels showing what lies below.
func TestLoadGIFDisposal(t *testing.T) {
	red, blue, green, white := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{0, 255, 0, 255}, color.RGBA{255, 255, 255, 255}
	pal := color.Palette{color.Transparent, red, blue, green, white}
	frame := func(r image.Rectangle, c color.Color) *image.Paletted {
		p := image.NewPaletted(r, pal)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				p.Set(x, y, c)
			}
		}
		return p
	}
	last := frame(image.Rect(2, 2, 4, 3), white)
	last.Set(3, 2, color.Transparent) // shows the red below
	g := &gif.GIF{
		Image: []*image.Paletted{frame(image.Rect(0, 0, 4, 4), red), frame(image.Rect(0, 0, 2, 2), blue), frame(image.Rect(3, 3, 4, 4), green), last},
		Delay: []int{5, 5, 5, 5},
		// after frame 1 its rectangle is cleared; after frame 2 the screen before it comes back
		Disposal: []byte{gif.DisposalNone, gif.DisposalBackground, gif.DisposalPrevious, gif.DisposalNone},
		Config:   image.Config{ColorModel: pal, Width: 4, Height: 4},
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "walk.gif")
	os.WriteFile(path, b.Bytes(), 0o644)
	c, err := LoadGIF(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Frames != 4 || c.Channels != 3 || c.Height != 4 || c.Width != 4 || c.CondDim != 0 {
		t.Fatalf("clip %d×[%d, %d, %d], %d actions", c.Frames, c.Channels, c.Height, c.Width, c.CondDim)
	}
	rgb := func(t0, x, y int) [3]float64 {
		var v [3]float64
		for ch := range 3 {
			v[ch] = c.Pixels[((t0*3+ch)*4+y)*4+x]
		}
		return v
	}
	R, B, G, W, K := [3]float64{1, 0, 0}, [3]float64{0, 0, 1}, [3]float64{0, 1, 0}, [3]float64{1, 1, 1}, [3]float64{}
	for _, w := range []struct {
		t, x, y int
		want    [3]float64
	}{
		{0, 0, 0, R}, {0, 3, 3, R},
		{1, 1, 1, B}, {1, 2, 1, R}, // blue over red
		{2, 0, 0, K}, {2, 1, 1, K}, {2, 2, 2, R}, {2, 3, 3, G}, // frame 1's rectangle cleared
		{3, 3, 3, R}, {3, 0, 0, K}, {3, 2, 2, W}, {3, 3, 2, R}, // green gone, transparency shows red
	} {
		if got := rgb(w.t, w.x, w.y); got != w.want {
			t.Errorf("frame %d pixel (%d, %d) = %v, want %v", w.t, w.x, w.y, got, w.want)
		}
	}
}

// SaveGIF's clips read back as the same clip (to the byte), with their actions beside them,
// alone or in a folder of clips; what is not a GIF, or actions of another length, is named.
func TestLoadGIFClips(t *testing.T) {
	dir := t.TempDir()
	m := NewMaze(DefaultMazeConfig())
	var clips []*Clip
	for k, name := range []string{"walk-2", "walk-10"} {
		c, err := RenderClip(m, uint64(k+1), 6, 16, 16)
		if err != nil {
			t.Fatal(err)
		}
		clips = append(clips, c)
		if err := SaveGIF(filepath.Join(dir, name+".gif"), c, 1, 10); err != nil {
			t.Fatal(err)
		}
		var rows []string
		for f := range c.Frames {
			rows = append(rows, fmt.Sprint(c.Cond[3*f], ",", c.Cond[3*f+1], ",", c.Cond[3*f+2]))
		}
		os.WriteFile(filepath.Join(dir, name+".actions.csv"), []byte(strings.Join(rows, "\n")+"\n"), 0o644)
	}
	got, names, err := LoadClips(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "walk-2.gif,walk-10.gif" {
		t.Fatalf("names %v", names)
	}
	for k, c := range got {
		want := clips[k]
		if c.Frames != 6 || c.Height != 16 || c.CondDim != 3 || c.Cond[3*4+1] != want.Cond[3*4+1] {
			t.Fatalf("%s: %d frames of %d, %d actions", names[k], c.Frames, c.Height, c.CondDim)
		}
		// 16×16 frames have at most 256 colours, which SaveGIF keeps exactly: each pixel is the
		// clip's to the byte
		var worst float64
		for i, v := range c.Pixels {
			worst = math.Max(worst, math.Abs(v-want.Pixels[i]))
		}
		if worst > 0.5/255+1e-12 {
			t.Errorf("%s: largest pixel error %.4f against the clip saved, want at most half a byte", names[k], worst)
		}
	}
	one, names, err := LoadClips(filepath.Join(dir, "walk-10.gif"))
	if err != nil || len(one) != 1 || names[0] != "walk-10.gif" || one[0].CondDim != 3 {
		t.Errorf("one GIF: %v %v", names, err)
	}
	// errors
	os.WriteFile(filepath.Join(dir, "walk-10.actions.csv"), []byte("1,0,0\n"), 0o644)
	if _, _, err := LoadClips(dir); err == nil || !strings.Contains(err.Error(), "walk-10.actions.csv has 1 rows: must have one per frame (6)") {
		t.Errorf("actions of another length: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "walk.gif")
	os.WriteFile(bad, []byte("GIF89a not really"), 0o644)
	if _, _, err := LoadClips(bad); err == nil || !strings.Contains(err.Error(), "data: GIF "+bad) {
		t.Errorf("not a GIF: %v", err)
	}
}
