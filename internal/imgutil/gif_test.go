package imgutil

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"math"
	"testing"
)

// A frame of at most 256 colours is kept exactly; one of more is dithered onto the Plan 9
// palette, keeping its mean colour.
func TestEncodeGIF(t *testing.T) {
	few, many := image.NewRGBA(image.Rect(0, 0, 32, 32)), image.NewRGBA(image.Rect(0, 0, 32, 32))
	for y := range 32 {
		for x := range 32 {
			X, Y := x/2, y/2 // a 16×16 frame scaled up: 256 colours
			few.Set(x, y, color.RGBA{uint8(16 * X), uint8(16*Y + 3), uint8(X * Y), 255})
		}
	}
	for y := range 32 {
		for x := range 32 {
			many.Set(x, y, color.RGBA{uint8(8 * x), uint8(8 * y), 100, 255}) // 1024 colours
		}
	}
	edge := image.NewRGBA(few.Rect) // 257 colours: one too many to keep
	copy(edge.Pix, few.Pix)
	edge.Set(0, 0, color.RGBA{1, 2, 3, 255})
	b, err := EncodeGIF([]image.Image{few, many, edge}, 5)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil || len(g.Image) != 3 || g.Delay[1] != 5 {
		t.Fatalf("decoded %v", err)
	}
	for y := range 32 {
		for x := range 32 {
			if got, want := color.RGBAModel.Convert(g.Image[0].At(x, y)), few.At(x, y); got != want {
				t.Fatalf("a 256-colour frame's pixel (%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	if !samePalette(g.Image[1].Palette, palette.Plan9) || !samePalette(g.Image[2].Palette, palette.Plan9) {
		t.Error("a frame of 1024 or 257 colours is not on the Plan 9 palette")
	}
	var mean [2]float64 // red: decoded, original
	for y := range 32 {
		for x := range 32 {
			r, _, _, _ := g.Image[1].At(x, y).RGBA()
			r0, _, _, _ := many.At(x, y).RGBA()
			mean[0] += float64(r>>8) / 1024
			mean[1] += float64(r0>>8) / 1024
		}
	}
	if math.Abs(mean[0]-mean[1]) > 3 {
		t.Errorf("dithered frame's mean red %.1f, the frame's %.1f", mean[0], mean[1])
	}
}

func samePalette(a, b color.Palette) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		r, g, bl, _ := a[i].RGBA()
		r2, g2, bl2, _ := b[i].RGBA()
		if r != r2 || g != g2 || bl != bl2 {
			return false
		}
	}
	return true
}
