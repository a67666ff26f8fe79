package data

import (
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"os"
	"path/filepath"
	"strings"
)

// LoadGIF reads an animated GIF as a clip: its frames as the browser shows them (each drawn over
// what the previous one's disposal left, transparency showing what lies below, black at first),
// RGB in [0, 1], with the actions of NAME.actions.csv, .json or .npy beside NAME.gif (none
// without one). A GIF's 256-colour palettes make its frames lossy: frames saved as PNG keep
// every colour. Frame delays are not read.
func LoadGIF(path string) (*Clip, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		return nil, fmt.Errorf("data: GIF %s: %w", path, err)
	}
	w, h := g.Config.Width, g.Config.Height
	if len(g.Image) == 0 || w < 1 || h < 1 {
		return nil, fmt.Errorf("data: GIF %s has %d frames of %d×%d: a clip needs frames", path, len(g.Image), w, h)
	}
	T, hw := len(g.Image), w*h
	// Every frame is the whole screen, drawn from the frames' own pixels: a screen that its frames
	// could not paint even once (a few bytes declaring a 20000×20000 screen over 1×1 frames)
	// would make the clip's size anything but what the file holds.
	painted := 0
	for _, fr := range g.Image {
		painted += fr.Bounds().Dx() * fr.Bounds().Dy()
	}
	switch {
	case painted < hw:
		return nil, fmt.Errorf("data: GIF %s: its %d frames hold %d pixels, fewer than its %d×%d screen: frames must paint the screen", path, T, painted, w, h)
	case T*3*hw > maxGIFValues:
		return nil, fmt.Errorf("data: GIF %s: %d frames of %d×%d are %d values, more than a clip read whole holds (%d at most): cut it into shorter clips",
			path, T, w, h, T*3*hw, maxGIFValues)
	}
	c := &Clip{Frames: T, Channels: 3, Height: h, Width: w, Pixels: make([]float64, T*3*hw)}
	screen := image.NewRGBA(image.Rect(0, 0, w, h)) // what is shown
	for t, fr := range g.Image {
		var before *image.RGBA // what DisposalPrevious restores
		if t < len(g.Disposal) && g.Disposal[t] == gif.DisposalPrevious {
			before = image.NewRGBA(screen.Rect)
			copy(before.Pix, screen.Pix)
		}
		draw.Draw(screen, fr.Bounds(), fr, fr.Bounds().Min, draw.Over)
		for y := range h {
			for x := range w {
				p := screen.PixOffset(x, y)
				for ch := range 3 {
					c.Pixels[(t*3+ch)*hw+y*w+x] = float64(screen.Pix[p+ch]) / 255
				}
			}
		}
		switch {
		case t >= len(g.Disposal):
		case g.Disposal[t] == gif.DisposalBackground: // the frame's rectangle cleared
			draw.Draw(screen, fr.Bounds(), image.Transparent, image.Point{}, draw.Src)
		case before != nil:
			screen = before
		}
	}
	if c.Cond, c.CondDim, err = latentActions(path, false, 1, T); err != nil {
		return nil, err
	}
	return c, nil
}

// maxGIFValues bounds a GIF clip's values (frames × 3 × height × width; 2 GiB as float64): a
// GIF's frames may repeat the screen from a few bytes each, so its file's size does not bound them.
const maxGIFValues = 1 << 28

// isGIF tells an animated GIF's file by its name.
func isGIF(name string) bool { return strings.EqualFold(filepath.Ext(name), ".gif") }
