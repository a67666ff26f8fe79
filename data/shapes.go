package data

import (
	"fmt"
	"math"
)

// The bouncing-shapes world (unconditional): coloured discs and squares move at constant
// speed on a dark background and bounce off the borders.

// ShapesConfig configures the bouncing-shapes world.
type ShapesConfig struct {
	Shapes   int     // number of shapes
	MinSize  float64 // radius range, as a fraction of the frame side
	MaxSize  float64
	MaxSpeed float64 // per frame, as a fraction of the frame side
}

// DefaultShapesConfig has three shapes.
func DefaultShapesConfig() ShapesConfig {
	return ShapesConfig{Shapes: 3, MinSize: 0.08, MaxSize: 0.18, MaxSpeed: 0.06}
}

// Shapes is the bouncing-shapes world.
type Shapes struct{ cfg ShapesConfig }

// NewShapes returns the bouncing-shapes world.
func NewShapes(cfg ShapesConfig) *Shapes { return &Shapes{cfg: cfg} }

func (s *Shapes) Name() string        { return "shapes" }
func (s *Shapes) CondDim() int        { return 0 }
func (s *Shapes) CondNames() []string { return nil }

// Render implements World.
func (s *Shapes) Render(seed uint64, frames, h, w int, pixels, cond []float64) error {
	c := s.cfg
	switch {
	case c.Shapes < 1 || c.Shapes > 32:
		return fmt.Errorf("data: ShapesConfig.Shapes = %d out of range: must be in [1, 32]", c.Shapes)
	case !(c.MinSize > 0 && c.MinSize <= c.MaxSize && c.MaxSize < 0.5):
		return fmt.Errorf("data: ShapesConfig sizes %g…%g out of range: must satisfy 0 < MinSize ≤ MaxSize < 0.5", c.MinSize, c.MaxSize)
	case !(c.MaxSpeed > 0 && c.MaxSpeed < 0.5):
		return fmt.Errorf("data: ShapesConfig.MaxSpeed = %g out of range: must be in (0, 0.5)", c.MaxSpeed)
	}
	if err := checkBuffers(s, frames, h, w, pixels, cond); err != nil {
		return err
	}
	rng := newRNG(seed)
	type shape struct {
		x, y, vx, vy, r float64
		square          bool
		rgb             [3]float64
	}
	sh := make([]shape, c.Shapes)
	for i := range sh {
		r := c.MinSize + rng.Float64()*(c.MaxSize-c.MinSize)
		ang := rng.Float64() * 2 * math.Pi
		sp := (0.3 + 0.7*rng.Float64()) * c.MaxSpeed
		hue := rng.Float64()
		sh[i] = shape{x: r + rng.Float64()*(1-2*r), y: r + rng.Float64()*(1-2*r), vx: sp * math.Cos(ang), vy: sp * math.Sin(ang),
			r: r, square: rng.IntN(2) == 0, rgb: hueToRGB(hue)}
	}
	hw := h * w
	for t := 0; t < frames; t++ {
		px := pixels[t*3*hw : (t+1)*3*hw]
		for i := 0; i < hw; i++ { // background
			px[i], px[hw+i], px[2*hw+i] = 0.08, 0.08, 0.12
		}
		for _, o := range sh {
			for row := 0; row < h; row++ {
				y := (float64(row) + 0.5) / float64(h)
				for col := 0; col < w; col++ {
					x := (float64(col) + 0.5) / float64(w)
					dx, dy := x-o.x, y-o.y
					in := dx*dx+dy*dy <= o.r*o.r
					if o.square {
						in = math.Abs(dx) <= o.r*0.85 && math.Abs(dy) <= o.r*0.85
					}
					if in {
						for ch := 0; ch < 3; ch++ {
							px[ch*hw+row*w+col] = o.rgb[ch]
						}
					}
				}
			}
		}
		for i := range sh { // move and bounce
			o := &sh[i]
			o.x += o.vx
			o.y += o.vy
			if o.x < o.r || o.x > 1-o.r {
				o.vx = -o.vx
				o.x = math.Min(math.Max(o.x, o.r), 1-o.r)
			}
			if o.y < o.r || o.y > 1-o.r {
				o.vy = -o.vy
				o.y = math.Min(math.Max(o.y, o.r), 1-o.r)
			}
		}
	}
	return nil
}

// hueToRGB returns a saturated colour for a hue in [0, 1).
func hueToRGB(h float64) [3]float64 {
	var rgb [3]float64
	for i := range rgb {
		v := math.Abs(math.Mod(h*6+float64(4-2*i), 6)-3) - 1
		rgb[i] = 0.15 + 0.8*math.Min(math.Max(v, 0), 1)
	}
	return rgb
}
