// Package imgutil holds image helpers shared by data and plots.
package imgutil

import (
	"bytes"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
)

// EncodeGIF encodes frames as a looping animated GIF, each shown for delay hundredths of a
// second. A frame of at most 256 colours (a small frame, or one scaled up from one) keeps them
// exactly, in a palette of its own; a frame of more is dithered (Floyd–Steinberg) onto the Plan 9
// palette.
func EncodeGIF(frames []image.Image, delay int) ([]byte, error) {
	anim := &gif.GIF{}
	for _, fr := range frames {
		var pal *image.Paletted
		if own := exactPalette(fr); own != nil {
			pal = image.NewPaletted(fr.Bounds(), own)
			draw.Draw(pal, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
		} else {
			pal = image.NewPaletted(fr.Bounds(), palette.Plan9)
			draw.FloydSteinberg.Draw(pal, fr.Bounds(), fr, fr.Bounds().Min)
		}
		anim.Image = append(anim.Image, pal)
		anim.Delay = append(anim.Delay, delay)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// exactPalette is the frame's colours (opaque), when there are at most 256; nil otherwise.
func exactPalette(fr image.Image) color.Palette {
	seen := map[color.RGBA]bool{}
	var pal color.Palette
	b := fr.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := fr.At(x, y).RGBA()
			c := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
			if !seen[c] {
				if len(pal) == 256 {
					return nil
				}
				seen[c] = true
				pal = append(pal, c)
			}
		}
	}
	return pal
}
