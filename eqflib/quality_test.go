package eqflib

import (
	"math"
	"runtime"
	"slices"
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

// TestColourDrift: identical or reordered clips have none, clips that swap their colours do; one
// pixel against another matches the sliced distance worked by hand; pixel noise moves it by at
// most 0.8 of the noise's standard deviation (where the old 8-bin histogram distance read 0.2
// for 2 % noise on the maze); recolouring moves it far; bad input is named.
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
	// Clips 0 and 1 exchanged: the batch's colours pooled are the same, each clip's are not.
	swapped := x.Clone()
	copy(swapped.Data[:10*x.FrameSize()], x.Data[10*x.FrameSize():20*x.FrameSize()])
	copy(swapped.Data[10*x.FrameSize():20*x.FrameSize()], x.Data[:10*x.FrameSize()])
	if d, _ := ColourDrift(swapped, x, 10, -2, 2); d[0] < 1e-3 {
		t.Errorf("clips 0 and 1 swapped: drift %g, want > 0 (each clip against its own)", d[0])
	}
	// One red pixel against one black: |u·(1, 0, 0)| over the 13 directions is 1 on the red
	// axis, 1/√2 on the 4 face diagonals and 1/√3 on the 4 body diagonals with a red component,
	// 0 on the other 4.
	red, _ := NewWindow(1, 1, 3, 1, 1)
	red.Data[0] = 1
	black, _ := NewWindow(1, 1, 3, 1, 1)
	want := (1 + 4/math.Sqrt2 + 4/math.Sqrt(3)) / 13
	if d, err := ColourDrift(red, black, 1, 0, 1); err != nil || math.Abs(d[0]-want) > 1e-12 {
		t.Errorf("red against black: drift %v (%v), want %.12f", d, err, want)
	}
	for C, n := range map[int]int{1: 1, 2: 4, 3: 13, 4: 40} {
		dirs := driftDirections(C)
		for _, u := range dirs {
			var norm float64
			for _, v := range u {
				norm += v * v
			}
			if math.Abs(norm-1) > 1e-12 {
				t.Errorf("C = %d: direction %v is not a unit vector", C, u)
			}
		}
		if len(dirs) != n {
			t.Errorf("C = %d: %d directions, want %d", C, len(dirs), n)
		}
	}
	// A clip of four flat colours on the old histogram's bin edges (0.25, 0.75, as the maze's
	// wall palette): pixel noise of 2 % of the range moves it by at most E|u·n| = 0.8 · 0.02
	// (up to the sample's 1.5 % error); painting the sand pixels blue moves it far.
	palette := [][3]float64{{0.75, 0.25, 0.25}, {0.25, 0.5, 0.75}, {0.25, 0.75, 0.25}, {0.75, 0.75, 0.25}}
	flat, _ := NewWindow(4, 10, 3, 8, 8)
	rng := NewRNG(9)
	hw := 64
	kind := make([]int, flat.NumFrames()*hw)
	for f := 0; f < flat.NumFrames(); f++ {
		fr := flat.Frame(f)
		for i := 0; i < hw; i++ {
			k := rng.IntN(len(palette))
			kind[f*hw+i] = k
			for c := 0; c < 3; c++ {
				fr[c*hw+i] = palette[k][c]
			}
		}
	}
	noisy, blue := flat.Clone(), flat.Clone()
	for i := range noisy.Data {
		noisy.Data[i] += 0.02 * rng.NormFloat64()
	}
	for f := 0; f < blue.NumFrames(); f++ {
		fr := blue.Frame(f)
		for i := 0; i < hw; i++ {
			if kind[f*hw+i] == 3 {
				for c := 0; c < 3; c++ {
					fr[c*hw+i] = palette[1][c]
				}
			}
		}
	}
	dn, _ := ColourDrift(noisy, flat, 10, 0, 1)
	db, _ := ColourDrift(blue, flat, 10, 0, 1)
	// Its workers change nothing: with 1, 3 or 8 of them it gives, bit for bit, what one loop
	// over chunks, clips and directions in order gives (its order until 2026-12-01).
	serial := func(gen, real *Window, chunk int, lo, hi float64) (drift []float64) {
		dirs, n := driftDirections(gen.Shape[2]), chunk*gen.Shape[3]*gen.Shape[4]
		pg, pr := make([]float64, n), make([]float64, n)
		for s := 0; s+chunk <= min(gen.Frames(), real.Frames()); s += chunk {
			var d float64
			for b := 0; b < gen.Batch(); b++ {
				for _, u := range dirs {
					d += projectedDistance(gen, real, b, s, chunk, u, lo, hi, pg, pr)
				}
			}
			drift = append(drift, d/float64(gen.Batch()*len(dirs)))
		}
		return drift
	}
	want5 := serial(noisy, flat, 5, 0, 1)
	for _, procs := range []int{1, 3, 8} {
		old := runtime.GOMAXPROCS(procs)
		got, err := ColourDrift(noisy, flat, 5, 0, 1)
		runtime.GOMAXPROCS(old)
		if err != nil || !slices.Equal(got, want5) {
			t.Errorf("GOMAXPROCS %d: drift %v (%v), want the serial loop's %v bit for bit", procs, got, err, want5)
		}
	}
	t.Logf("drift: 2 %% noise %.4f, sand painted blue %.4f", dn[0], db[0])
	if dn[0] > 1.05*0.8*0.02 || db[0] < 5*dn[0] {
		t.Errorf("drift with 2 %% noise %.4f (want ≤ 0.0168), sand painted blue %.4f (want ≥ 5× that)", dn[0], db[0])
	}
	assertParamErr(t, "chunk", second(ColourDrift(x, x, 11, -2, 2)), "chunk")
	assertParamErr(t, "range", second(ColourDrift(x, x, 5, 2, 2)), "hi")
	y, _ := Randn(NewRNG(5), 4, 10, 3, 4, 4)
	assertParamErr(t, "shape", second(ColourDrift(x, y, 5, -2, 2)), "real.Shape")
	wide, _ := Randn(NewRNG(5), 1, 2, 5, 4, 4)
	assertParamErr(t, "channels", second(ColourDrift(wide, wide, 1, -2, 2)), "gen channels")
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
