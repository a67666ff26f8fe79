package data

import (
	"fmt"
	"math"
)

// The panning world (camera-conditioned): a camera glides over an endless procedural texture;
// each frame's condition is the camera's 2-D velocity (vx, vy) that moved it there, in frame
// widths per frame. The velocity changes smoothly with persistence.

// PanConfig configures the panning world.
type PanConfig struct {
	MaxSpeed    float64 // largest |v| per axis, in frame widths per frame
	Persistence float64 // probability of keeping the previous velocity
	Octaves     int     // texture detail
}

// DefaultPanConfig pans at up to 0.15 frame widths per frame.
func DefaultPanConfig() PanConfig { return PanConfig{MaxSpeed: 0.15, Persistence: 0.8, Octaves: 3} }

// Pan is the panning world.
type Pan struct{ cfg PanConfig }

// NewPan returns the panning world.
func NewPan(cfg PanConfig) *Pan { return &Pan{cfg: cfg} }

func (p *Pan) Name() string        { return "pan" }
func (p *Pan) CondDim() int        { return 2 }
func (p *Pan) CondNames() []string { return []string{"vx", "vy"} }

// Render implements World.
func (p *Pan) Render(seed uint64, frames, h, w int, pixels, cond []float64) error {
	c := p.cfg
	switch {
	case !(c.MaxSpeed > 0 && c.MaxSpeed <= 1):
		return fmt.Errorf("data: PanConfig.MaxSpeed = %g out of range: must be in (0, 1]", c.MaxSpeed)
	case !(c.Persistence >= 0 && c.Persistence < 1):
		return fmt.Errorf("data: PanConfig.Persistence = %g out of range: must be in [0, 1)", c.Persistence)
	case c.Octaves < 1 || c.Octaves > 8:
		return fmt.Errorf("data: PanConfig.Octaves = %d out of range: must be in [1, 8]", c.Octaves)
	}
	if err := checkBuffers(p, frames, h, w, pixels, cond); err != nil {
		return err
	}
	rng := newRNG(seed)
	// The texture: a sum of random plane waves per channel (smooth, unbounded, seeded).
	type wave struct{ kx, ky, phase, amp float64 }
	var waves [3][]wave
	for ch := range waves {
		for o := 0; o < c.Octaves; o++ {
			for k := 0; k < 3; k++ {
				f := 2 * math.Pi * math.Pow(2, float64(o)) * (0.6 + 0.8*rng.Float64())
				a := rng.Float64() * 2 * math.Pi
				waves[ch] = append(waves[ch], wave{f * math.Cos(a), f * math.Sin(a), rng.Float64() * 2 * math.Pi, math.Pow(0.55, float64(o))})
			}
		}
	}
	norm := 0.0
	for _, wv := range waves[0] {
		norm += wv.amp
	}
	cx, cy := rng.Float64()*10, rng.Float64()*10
	vx, vy := 0.0, 0.0
	hw := h * w
	for t := 0; t < frames; t++ {
		if t == 0 || rng.Float64() >= c.Persistence {
			vx = (2*rng.Float64() - 1) * c.MaxSpeed
			vy = (2*rng.Float64() - 1) * c.MaxSpeed
		}
		cx, cy = cx+vx, cy+vy
		cond[2*t], cond[2*t+1] = vx, vy
		px := pixels[t*3*hw : (t+1)*3*hw]
		for row := 0; row < h; row++ {
			y := cy + (float64(row)+0.5)/float64(w) // square pixels: one frame width across
			for col := 0; col < w; col++ {
				x := cx + (float64(col)+0.5)/float64(w)
				for ch := 0; ch < 3; ch++ {
					var v float64
					for _, wv := range waves[ch] {
						v += wv.amp * math.Sin(wv.kx*x+wv.ky*y+wv.phase)
					}
					px[ch*hw+row*w+col] = 0.5 + 0.45*v/norm
				}
			}
		}
	}
	return nil
}
