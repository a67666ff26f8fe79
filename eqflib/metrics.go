package eqflib

import (
	"fmt"
	"math"
)

// Model-free video metrics (paper App. D.1): per-frame MSE and PSNR against ground truth, temporal
// flicker (VBench's model-free sub-metric: mean absolute difference of consecutive frames), and
// the Fréchet video distance on a pluggable feature space, overall and over time.

// FrameMSE returns the mean squared error of every frame of x against ref (same shape), per
// frame index t averaged over the batch.
func FrameMSE(x, ref *Window) ([]float64, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if err := sameShape("ref", x, ref); err != nil {
		return nil, err
	}
	B, T := x.Batch(), x.Frames()
	out := make([]float64, T)
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			xf, rf := x.Frame(b*T+t), ref.Frame(b*T+t)
			var s float64
			for i := range xf {
				d := xf[i] - rf[i]
				s += d * d
			}
			out[t] += s / float64(len(xf)) / float64(B)
		}
	}
	return out, nil
}

// PSNR converts MSEs to peak signal-to-noise ratios in dB for data of the given peak-to-peak
// range (e.g. 1 for [0, 1] pixels; the normalised data's range for standardised frames).
func PSNR(mse []float64, dataRange float64) ([]float64, error) {
	if !(dataRange > 0) {
		return nil, paramErr("dataRange", dataRange, "> 0")
	}
	out := make([]float64, len(mse))
	for i, m := range mse {
		out[i] = 10 * math.Log10(dataRange*dataRange/m)
	}
	return out, nil
}

// Flicker is the mean absolute difference between consecutive frames, averaged over frames,
// pixels and the batch (lower is steadier).
func Flicker(x *Window) (float64, error) {
	if err := x.Validate("x"); err != nil {
		return 0, err
	}
	B, T := x.Batch(), x.Frames()
	if T < 2 {
		return 0, paramErr("x", "1 frame", "at least 2 frames")
	}
	var s float64
	n := 0
	for b := 0; b < B; b++ {
		for t := 1; t < T; t++ {
			a, c := x.Frame(b*T+t-1), x.Frame(b*T+t)
			for i := range a {
				s += math.Abs(c[i] - a[i])
			}
			n += len(a)
		}
	}
	return s / float64(n), nil
}

// FeatureExtractor maps video clips [B, T, C, H, W] to one feature vector per clip. Name says
// which features they are, and every FVD output carries it: "FVD (maze-I3D features)", never a
// bare "FVD" unless the features are the real I3D network's.
type FeatureExtractor interface {
	Name() string
	Features(clips *Window) ([][]float64, error)
}

// FVD is a Fréchet video distance with the feature space it was computed in.
type FVD struct {
	Value    float64
	Features string // the extractor's Name
	Clips    int    // clips per side
}

// String reads "FVD (maze-I3D features) = 123.4 (n = 64)".
func (f FVD) String() string {
	return fmt.Sprintf("FVD (%s features) = %.4g (n = %d)", f.Features, f.Value, f.Clips)
}

// ComputeFVD is the Fréchet distance between the features of generated and reference clips.
func ComputeFVD(fe FeatureExtractor, gen, ref *Window) (res FVD, err error) {
	defer catch(&err)
	if fe == nil {
		return res, paramErr("fe", "nil", "a FeatureExtractor")
	}
	a, err := fe.Features(gen)
	if err != nil {
		return res, err
	}
	b, err := fe.Features(ref)
	if err != nil {
		return res, err
	}
	d, err := FrechetFeatures(a, b)
	return FVD{Value: d, Features: fe.Name(), Clips: min(len(a), len(b))}, err
}

// FVDOverTime splits generated and reference videos ([B, T, …]) into consecutive chunks of
// chunk frames (the paper uses 25) and returns the FVD of each chunk (Fig. 3 right).
func FVDOverTime(fe FeatureExtractor, gen, ref *Window, chunk int) ([]FVD, error) {
	if err := gen.Validate("gen"); err != nil {
		return nil, err
	}
	if err := ref.Validate("ref"); err != nil {
		return nil, err
	}
	T := min(gen.Frames(), ref.Frames())
	if chunk < 1 || chunk > T {
		return nil, paramErr("chunk", chunk, fmt.Sprintf("in [1, %d] (the shorter video's frames)", T))
	}
	var out []FVD
	for s := 0; s+chunk <= T; s += chunk {
		g, r := gen.sliceFrames(s, chunk), ref.sliceFrames(s, chunk)
		f, err := ComputeFVD(fe, g, r)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// PixelFeatures is the model-free baseline feature space: every frame average-pooled to
// Size × Size per channel, the clip's frames concatenated (so motion counts), named
// "pixels-NxN".
type PixelFeatures struct{ Size int }

// Name implements FeatureExtractor.
func (p PixelFeatures) Name() string { return fmt.Sprintf("pixels-%dx%d", p.Size, p.Size) }

// Features implements FeatureExtractor.
func (p PixelFeatures) Features(clips *Window) ([][]float64, error) {
	if err := clips.Validate("clips"); err != nil {
		return nil, err
	}
	B, T, C, H, W := clips.Shape[0], clips.Shape[1], clips.Shape[2], clips.Shape[3], clips.Shape[4]
	if p.Size < 1 || H%p.Size != 0 || W%p.Size != 0 {
		return nil, paramErr("PixelFeatures.Size", p.Size, fmt.Sprintf("a common divisor of H = %d and W = %d", H, W))
	}
	ph, pw := H/p.Size, W/p.Size
	out := make([][]float64, B)
	for b := 0; b < B; b++ {
		v := make([]float64, 0, T*C*p.Size*p.Size)
		for t := 0; t < T; t++ {
			f := clips.Frame(b*T + t)
			for c := 0; c < C; c++ {
				for i := 0; i < p.Size; i++ {
					for j := 0; j < p.Size; j++ {
						var s float64
						for y := i * ph; y < (i+1)*ph; y++ {
							for x := j * pw; x < (j+1)*pw; x++ {
								s += f[(c*H+y)*W+x]
							}
						}
						v = append(v, s/float64(ph*pw))
					}
				}
			}
		}
		out[b] = v
	}
	return out, nil
}
