package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Window is a batch of video windows held on the host: shape [B, T, C, H, W] in row-major
// order, float64. Samplers keep their state in Windows; a Field converts to whatever its
// compute backend needs. A frame is the C·H·W block at (b, t); frames are numbered b·T + t,
// and every per-frame quantity (σ, σ̂, step sizes, masks) is a slice of length B·T in that order.
type Window struct {
	Shape [5]int    // B, T, C, H, W
	Data  []float64 // len = B·T·C·H·W
}

// NewWindow allocates a zero window of shape [b, t, c, h, w].
func NewWindow(b, t, c, h, w int) (*Window, error) {
	for i, d := range [5]int{b, t, c, h, w} {
		if d < 1 {
			return nil, paramErr("shape["+string("BTCHW"[i])+"]", d, "≥ 1")
		}
	}
	return &Window{Shape: [5]int{b, t, c, h, w}, Data: make([]float64, b*t*c*h*w)}, nil
}

// MustNewWindow is NewWindow for shapes known to be valid.
func MustNewWindow(b, t, c, h, w int) *Window {
	x, err := NewWindow(b, t, c, h, w)
	if err != nil {
		panic(err)
	}
	return x
}

// NewWindowLike returns a zero window of x's shape.
func NewWindowLike(x *Window) *Window {
	if x == nil {
		return &Window{} // nothing to be like: an empty window, which Validate refuses
	}
	return &Window{Shape: x.Shape, Data: make([]float64, len(x.Data))}
}

// Batch is B, Frames is T, FrameSize is C·H·W.
func (x *Window) Batch() int     { return x.Shape[0] }
func (x *Window) Frames() int    { return x.Shape[1] }
func (x *Window) NumFrames() int { return x.Shape[0] * x.Shape[1] }
func (x *Window) FrameSize() int { return x.Shape[2] * x.Shape[3] * x.Shape[4] }

// Frame returns frame i (= b·T + t) as a slice aliasing x.Data.
func (x *Window) Frame(i int) []float64 {
	n := x.FrameSize()
	return x.Data[i*n : (i+1)*n]
}

// Clone returns a deep copy.
func (x *Window) Clone() *Window {
	return &Window{Shape: x.Shape, Data: append([]float64(nil), x.Data...)}
}

// CopyFrom copies y's data into x (same shape required).
func (x *Window) CopyFrom(y *Window) error {
	if err := sameShape("y", x, y); err != nil {
		return err
	}
	copy(x.Data, y.Data)
	return nil
}

// Validate checks that Data matches Shape.
func (x *Window) Validate(name string) error {
	if x == nil {
		return paramErr(name, "nil", "a non-nil *Window")
	}
	n := 1
	for i, d := range x.Shape {
		if d < 1 {
			return paramErr(name+".Shape["+string("BTCHW"[i])+"]", d, "≥ 1")
		}
		n *= d
	}
	if len(x.Data) != n {
		return paramErr(name+".Data", fmt.Sprintf("len %d", len(x.Data)), fmt.Sprintf("len %d = B·T·C·H·W for shape %v", n, x.Shape))
	}
	return nil
}

func sameShape(name string, ref, x *Window) error {
	if err := x.Validate(name); err != nil {
		return err
	}
	if x.Shape != ref.Shape {
		return paramErr(name+".Shape", x.Shape, fmt.Sprintf("equal to %v", ref.Shape))
	}
	return nil
}

func perFrame(name string, x *Window, v []float64) error {
	if len(v) != x.NumFrames() {
		return paramErr(name, fmt.Sprintf("len %d", len(v)), fmt.Sprintf("len %d (one value per frame, B·T)", x.NumFrames()))
	}
	return nil
}

// NewRNG returns the seeded generator used everywhere in eqflib (PCG), so that a seed names
// one stream on every platform.
func NewRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// Randn returns a window of i.i.d. N(0, 1) entries drawn from rng.
func Randn(rng *rand.Rand, b, t, c, h, w int) (*Window, error) {
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	x, err := NewWindow(b, t, c, h, w)
	if err != nil {
		return nil, err
	}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x, nil
}

// Moments returns the mean and (population) variance of all entries of x.
func (x *Window) Moments() (mean, variance float64) {
	var s, s2 float64
	for _, v := range x.Data {
		s += v
	}
	mean = s / float64(len(x.Data))
	for _, v := range x.Data {
		d := v - mean
		s2 += d * d
	}
	return mean, s2 / float64(len(x.Data))
}

// HasNaN reports whether x holds a NaN or an infinity.
func (x *Window) HasNaN() bool {
	for _, v := range x.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// axpyFrames sets dst = x + a_f · y framewise (a has one coefficient per frame).
func axpyFrames(dst, x *Window, a []float64, y *Window) {
	n := x.FrameSize()
	for f, af := range a {
		d, xs, ys := dst.Data[f*n:(f+1)*n], x.Data[f*n:(f+1)*n], y.Data[f*n:(f+1)*n]
		for i := range d {
			d[i] = xs[i] + af*ys[i]
		}
	}
}

// SliceFrames copies frames [start, start+n) of every video: [B, n, C, H, W].
func (x *Window) SliceFrames(start, n int) (*Window, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if start < 0 || start >= x.Frames() {
		return nil, paramErr("start", start, fmt.Sprintf("in [0, %d)", x.Frames()))
	}
	if n < 1 || start+n > x.Frames() {
		return nil, paramErr("n", n, fmt.Sprintf("in [1, %d] (frames left after start = %d)", x.Frames()-start, start))
	}
	return x.sliceFrames(start, n), nil
}

func (x *Window) sliceFrames(start, n int) *Window {
	out := MustNewWindow(x.Batch(), n, x.Shape[2], x.Shape[3], x.Shape[4])
	copyFrames(out, 0, x, start, n)
	return out
}

// Subclips cuts every video into ⌊T/n⌋ non-overlapping clips of n frames, [B·⌊T/n⌋, n, C, H,
// W], dropping a shorter remainder: the clip sets FVD is computed on.
func (x *Window) Subclips(n int) (*Window, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if n < 1 || n > x.Frames() {
		return nil, paramErr("n", n, fmt.Sprintf("in [1, %d] (the video's frames)", x.Frames()))
	}
	k := x.Frames() / n
	out := MustNewWindow(x.Batch()*k, n, x.Shape[2], x.Shape[3], x.Shape[4])
	fs := x.FrameSize()
	for b := 0; b < x.Batch(); b++ {
		for j := 0; j < k; j++ {
			src := (b*x.Frames() + j*n) * fs
			dst := (b*k + j) * n * fs
			copy(out.Data[dst:dst+n*fs], x.Data[src:src+n*fs])
		}
	}
	return out, nil
}
