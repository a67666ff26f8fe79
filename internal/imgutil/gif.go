// Package imgutil holds image helpers shared by data and plots.
package imgutil

import (
	"bytes"
	"image"
	"image/color/palette"
	"image/draw"
	"image/gif"
)

// EncodeGIF encodes frames as a looping animated GIF, each shown for delay hundredths of a
// second, dithered (Floyd–Steinberg) onto the Plan 9 palette.
func EncodeGIF(frames []image.Image, delay int) ([]byte, error) {
	anim := &gif.GIF{}
	for _, fr := range frames {
		pal := image.NewPaletted(fr.Bounds(), palette.Plan9)
		draw.FloydSteinberg.Draw(pal, fr.Bounds(), fr, image.Point{})
		anim.Image = append(anim.Image, pal)
		anim.Delay = append(anim.Delay, delay)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
