package eqflib

import (
	"math"
	"strings"
	"testing"
)

// truthField knows the real frames: conditions carry each frame's timeline index, and its
// velocity v = (x − truth)/σ takes FM Euler exactly onto the frame `offset` steps later in the
// clip (offset 0: the real continuation itself).
type truthField struct {
	truth  *Window // [B, T, …]
	cond   []float64
	offset int
}

func (f *truthField) Info() FieldInfo { return FieldInfo{Name: "truth", NoiseConditional: true} }
func (f *truthField) WithConditions(cond []float64) Field {
	return &truthField{truth: f.truth, cond: cond, offset: f.offset}
}
func (f *truthField) Eval(x *Window, level []float64, _ EvalOptions) (*Output, error) {
	v := NewWindowLike(x)
	B, T := x.Batch(), x.Frames()
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			s := level[b*T+t]
			if s == 0 {
				continue
			}
			src := min(int(f.cond[b*T+t])+f.offset, f.truth.Frames()-1)
			want := f.truth.Frame(b*f.truth.Frames() + src)
			for i, xi := range x.Frame(b*T + t) {
				v.Frame(b*T + t)[i] = (xi - want[i]) / s
			}
		}
	}
	return &Output{V: v}, nil
}

func TestNextChunkErrorAlignsFrames(t *testing.T) {
	const B, T = 3, 9
	clips, _ := Randn(NewRNG(4), B, T, 2, 3, 3)
	cond := make([]float64, B*T) // each frame's index
	for b := 0; b < B; b++ {
		for i := 0; i < T; i++ {
			cond[b*T+i] = float64(i)
		}
	}
	opts := RollOptions{RollConfig: RollConfig{Context: 3, Horizon: 2, Stride: 1, Depth: 4}, Sampler: FrameSampler{Sampler: Euler}, CondDim: 1, Seed: 1}
	exact, err := NextChunkError(&truthField{truth: clips}, clips, cond, opts, 4)
	if err != nil {
		t.Fatal(err)
	}
	if exact.MSE > 1e-20 || len(exact.PerFrame) != T-3 {
		t.Errorf("a field that knows the continuation: MSE %g over %d frames, want 0 over %d", exact.MSE, len(exact.PerFrame), T-3)
	}
	// One frame ahead: the error is the mean squared difference of consecutive real frames
	// (the last generated frame repeats the clip's last frame: difference 0).
	ahead, err := NextChunkError(&truthField{truth: clips, offset: 1}, clips, cond, opts, 4)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for tt := 3; tt < T; tt++ {
		var s float64
		for b := 0; b < B; b++ {
			next := min(tt+1, T-1)
			for i, a := range clips.Frame(b*T + tt) {
				d := a - clips.Frame(b*T + next)[i]
				s += d * d
			}
		}
		want += s / float64(B*clips.FrameSize()) / float64(T-3)
	}
	if math.Abs(ahead.MSE-want) > 1e-9*want {
		t.Errorf("one frame ahead: MSE %.9g, want %.9g", ahead.MSE, want)
	}
	if p := 10 * math.Log10(16/want); math.Abs(ahead.PSNR-p) > 1e-9 {
		t.Errorf("PSNR %.6f, want %.6f", ahead.PSNR, p)
	}
	assertParamErr(t, "no continuation", second(NextChunkError(&truthField{truth: clips}, clips.sliceFrames(0, 3), cond[:9], opts, 4)), "clips frames")
	assertParamErr(t, "short cond", second(NextChunkError(&truthField{truth: clips}, clips, cond[:5], opts, 4)), "cond")
}

func TestColourDrift(t *testing.T) {
	x, _ := Randn(NewRNG(5), 4, 10, 3, 8, 8)
	same, err := ColourDrift(x, x, 5, -2, 2)
	if err != nil || len(same) != 2 || same[0] != 0 || same[1] != 0 {
		t.Errorf("identical clips: drift %v (%v), want [0 0]", same, err)
	}
	// A clip played backwards has the same colours: over the whole clip the drift is 0.
	back := NewWindowLike(x)
	for b := 0; b < 4; b++ {
		for tt := 0; tt < 10; tt++ {
			copy(back.Frame(b*10+tt), x.Frame(b*10+9-tt))
		}
	}
	if d, _ := ColourDrift(back, x, 10, -2, 2); d[0] > 1e-12 {
		t.Errorf("backwards clip: drift %g, want 0", d[0])
	}
	// Recoloured (red and blue swapped, then brightened): a large drift; one flat colour: ≈ 1.
	re := x.Clone()
	hw := 64
	for f := 0; f < re.NumFrames(); f++ {
		fr := re.Frame(f)
		for i := 0; i < hw; i++ {
			fr[i], fr[2*hw+i] = fr[2*hw+i]+1, fr[i]+1
		}
	}
	flat := NewWindowLike(x)
	for i := range flat.Data {
		flat.Data[i] = 1.9
	}
	dr, _ := ColourDrift(re, x, 10, -2, 2)
	df, _ := ColourDrift(flat, x, 10, -2, 2)
	t.Logf("drift: recoloured %.3f, one colour %.3f", dr[0], df[0])
	if dr[0] < 0.3 || df[0] < 0.95 || df[0] > 1 {
		t.Errorf("recoloured drift %.3f (want ≥ 0.3), one-colour drift %.3f (want in [0.95, 1])", dr[0], df[0])
	}
	assertParamErr(t, "chunk", second(ColourDrift(x, x, 11, -2, 2)), "chunk")
	assertParamErr(t, "range", second(ColourDrift(x, x, 5, 2, 2)), "hi")
	y, _ := Randn(NewRNG(5), 4, 10, 3, 4, 4)
	assertParamErr(t, "shape", second(ColourDrift(x, y, 5, -2, 2)), "real.Shape")
}

// TestPatchSeams: a smooth scene with pixel noise has no seams (ratio ≈ 1) wherever the grid
// falls; the same scene with every 8×8 patch shifted by its own shade has them (ratio well
// above 1); the ratio reads the grid of the patch it is given; bad patches are refused.
func TestPatchSeams(t *testing.T) {
	const B, T, C, H, W, p = 2, 3, 3, 32, 32, 8
	rng := NewRNG(5)
	scene, _ := NewWindow(B, T, C, H, W)
	for f := 0; f < scene.NumFrames(); f++ {
		fr := scene.Frame(f)
		for c := 0; c < C; c++ {
			for i := 0; i < H; i++ {
				for j := 0; j < W; j++ {
					fr[(c*H+i)*W+j] = math.Sin(0.3*float64(i+f)+float64(c)) + 0.5*math.Cos(0.2*float64(j)) + 0.1*rng.NormFloat64()
				}
			}
		}
	}
	seamed := &Window{Shape: scene.Shape, Data: append([]float64(nil), scene.Data...)}
	for f := 0; f < seamed.NumFrames(); f++ {
		fr := seamed.Frame(f)
		shade := make([]float64, (H/p)*(W/p))
		for k := range shade {
			shade[k] = 0.3 * rng.NormFloat64()
		}
		for c := 0; c < C; c++ {
			for i := 0; i < H; i++ {
				for j := 0; j < W; j++ {
					fr[(c*H+i)*W+j] += shade[(i/p)*(W/p)+j/p]
				}
			}
		}
	}
	smooth, err := PatchSeams(scene, p)
	if err != nil {
		t.Fatal(err)
	}
	grid, _ := PatchSeams(seamed, p)
	other, _ := PatchSeams(seamed, 16) // the 16-pixel grid is every other 8-pixel line
	if math.Abs(smooth-1) > 0.1 || grid < 2 || other < 1.5 || other >= grid {
		t.Errorf("PatchSeams: smooth scene %.3f (want ≈ 1), 8×8 shades %.3f (want ≥ 2), read on a 16-grid %.3f (want in [1.5, %.3f))", smooth, grid, other, grid)
	}
	for _, bad := range []int{1, 3, 32} {
		if _, err := PatchSeams(scene, bad); err == nil || !strings.Contains(err.Error(), "patch") {
			t.Errorf("PatchSeams(patch = %d): err = %v, want one naming patch", bad, err)
		}
	}
}
