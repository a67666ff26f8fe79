// Package data provides offline video worlds and loaders for real frame and latent files.
//
// It knows no model: clips are plain float64 buffers in [T, C, H, W] order with per-frame
// conditions [T, condDim], so eqflib's dataset interface (defined on builtin types) is satisfied
// structurally without data importing eqflib.
package data

import (
	"fmt"
	"math/rand/v2"
)

// World renders deterministic clips: the same seed always gives the same frames and conditions.
type World interface {
	// Name identifies the world, e.g. "maze".
	Name() string
	// CondDim is the number of per-frame condition values (0 for unconditional worlds).
	CondDim() int
	// CondNames names the condition values, e.g. {"forward", "left", "right"}.
	CondNames() []string
	// Render fills pixels ([frames, 3, h, w], RGB in [0, 1]) and cond ([frames, CondDim()]) for
	// the clip with this seed.
	Render(seed uint64, frames, h, w int, pixels, cond []float64) error
}

// Clip is one rendered or loaded video clip.
type Clip struct {
	Frames, Channels, Height, Width int
	Pixels                          []float64 // [Frames, Channels, Height, Width]
	CondDim                         int
	Cond                            []float64 // [Frames, CondDim]
}

// RenderClip renders the clip with this seed from a world.
func RenderClip(w World, seed uint64, frames, h, wd int) (*Clip, error) {
	if err := checkClipShape(frames, h, wd); err != nil {
		return nil, err
	}
	c := &Clip{Frames: frames, Channels: 3, Height: h, Width: wd, CondDim: w.CondDim(),
		Pixels: make([]float64, frames*3*h*wd), Cond: make([]float64, frames*w.CondDim())}
	if err := w.Render(seed, frames, h, wd, c.Pixels, c.Cond); err != nil {
		return nil, err
	}
	return c, nil
}

// Head returns the clip's first `frames` frames and their actions (at most its length), aliasing
// its pixels and actions.
func (c *Clip) Head(frames int) *Clip {
	frames = max(0, min(frames, c.Frames))
	n, k := c.Channels*c.Height*c.Width, c.CondDim
	return &Clip{Frames: frames, Channels: c.Channels, Height: c.Height, Width: c.Width,
		Pixels: c.Pixels[: frames*n : frames*n], CondDim: k, Cond: c.Cond[: frames*k : frames*k]}
}

// Frame returns frame t ([Channels, Height, Width]) aliasing the clip's pixels.
func (c *Clip) Frame(t int) []float64 {
	n := c.Channels * c.Height * c.Width
	return c.Pixels[t*n : (t+1)*n]
}

func checkClipShape(frames, h, w int) error {
	if frames < 1 {
		return fmt.Errorf("data: frames = %d out of range: must be ≥ 1", frames)
	}
	if h < 4 || h > 4096 {
		return fmt.Errorf("data: height = %d out of range: must be in [4, 4096]", h)
	}
	if w < 4 || w > 4096 {
		return fmt.Errorf("data: width = %d out of range: must be in [4, 4096]", w)
	}
	return nil
}

func checkBuffers(w World, frames, h, wd int, pixels, cond []float64) error {
	if err := checkClipShape(frames, h, wd); err != nil {
		return err
	}
	if len(pixels) != frames*3*h*wd {
		return fmt.Errorf("data: pixels has length %d: must be frames·3·h·w = %d", len(pixels), frames*3*h*wd)
	}
	if len(cond) != frames*w.CondDim() {
		return fmt.Errorf("data: cond has length %d: must be frames·condDim = %d", len(cond), frames*w.CondDim())
	}
	return nil
}

// newRNG is the seeded generator of every world (PCG), one stream per seed.
func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0xda7a5eed))
}

// Worlds lists the built-in worlds with their default settings.
func Worlds() map[string]World {
	return map[string]World{
		"maze":   NewMaze(DefaultMazeConfig()),
		"shapes": NewShapes(DefaultShapesConfig()),
		"pan":    NewPan(DefaultPanConfig()),
	}
}

// WorldByName returns a built-in world.
func WorldByName(name string) (World, error) {
	w, ok := Worlds()[name]
	if !ok {
		return nil, fmt.Errorf("data: world %q unknown: must be one of \"maze\", \"shapes\", \"pan\"", name)
	}
	return w, nil
}
