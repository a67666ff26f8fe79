package eqflib

import (
	"fmt"
	"math"
)

// Rollout quality of an action-conditioned world model, beyond FVD: whether the generated
// frames follow the actions they were conditioned on (action agreement), whether their colours
// stay those of the world over a long rollout (colour drift), and how close one generated chunk
// is to the real continuation of a real context (teacher-forced next-chunk error). The paper
// reports FVD and VBench (Sec. 5, Table minecraft_main); these three make the failure modes of a
// small model visible as numbers: a rollout that ignores the actions, one that "melts into one
// colour", one that is wrong from its first chunk.

// ActionAgreementResult is the action agreement of generated video: the action net's balanced
// accuracy (the mean over actions of the fraction of each action's transitions it recognises)
// on the generated transitions against the actions the rollout was conditioned on, relative to
// its balanced accuracy on real clips. Balanced, because the maze's actions are mostly
// "forward": a model that always moves forward would score the forward share in plain accuracy,
// but 1/3 of the real score here. Ratio ≈ 1: the camera moves as the actions say, as well as the
// net can tell on real video.
type ActionAgreementResult struct {
	Generated   float64 // balanced accuracy on the generated transitions
	Real        float64 // balanced accuracy on the real clips
	Ratio       float64 // Generated / Real: the action agreement
	Transitions int     // generated transitions scored
}

func (a ActionAgreementResult) String() string {
	return fmt.Sprintf("action agreement %.2f (balanced action accuracy %.3f on generated, %.3f on real video; %d transitions)",
		a.Ratio, a.Generated, a.Real, a.Transitions)
}

// ActionAgreement scores gen [B, T, C, H, W] with its conditions genCond [B, T, Actions] (the
// one-hot action of frame t is the one that led into it, as in the maze world) against the
// action net's balanced accuracy on real clips with their conditions. To score a rollout's
// first transition too, pass the last context frame as gen's frame 0.
func ActionAgreement(net *ActionNet, gen *Window, genCond []float64, real *Window, realCond []float64) (a ActionAgreementResult, err error) {
	defer catch(&err)
	if net == nil {
		return a, paramErr("net", "nil", "a trained *ActionNet")
	}
	gr, gt, err := net.agree(gen, genCond)
	if err != nil {
		return a, fmt.Errorf("gen: %w", err)
	}
	rr, rt, err := net.agree(real, realCond)
	if err != nil {
		return a, fmt.Errorf("real: %w", err)
	}
	for _, n := range gt {
		a.Transitions += n
	}
	a.Generated, a.Real = balanced(gr, gt), balanced(rr, rt)
	if a.Real == 0 {
		return a, paramErr("real", "clips the net classifies with accuracy 0", "real clips the action net was trained for")
	}
	a.Ratio = a.Generated / a.Real
	return a, nil
}

// balanced is the mean over classes that occur of right/total.
func balanced(right, total []int) float64 {
	var s float64
	k := 0
	for i := range total {
		if total[i] > 0 {
			s += float64(right[i]) / float64(total[i])
			k++
		}
	}
	if k == 0 {
		return 0
	}
	return s / float64(k)
}

// DefaultDriftBins is the number of bins per colour channel of ColourDrift's joint histogram.
const DefaultDriftBins = 8

// ColourDrift measures whether generated frames keep the world's colours: for each consecutive
// chunk of `chunk` frames it is the total-variation distance between the joint colour histograms
// (DefaultDriftBins per channel over [lo, hi]; values outside are clamped) of the generated and
// the real frames of that chunk, pooled over the batch. It lies in [0, 1]: 0 for the same
// colours in the same proportions, 1 for disjoint colours. A rollout that melts into one colour
// has a growing drift; positions do not count (a clip played backwards has the drift of itself).
func ColourDrift(gen, real *Window, chunk int, lo, hi float64) (drift []float64, err error) {
	if err := gen.Validate("gen"); err != nil {
		return nil, err
	}
	if err := real.Validate("real"); err != nil {
		return nil, err
	}
	C := gen.Shape[2]
	switch {
	case gen.Shape[2] != real.Shape[2] || gen.Shape[3] != real.Shape[3] || gen.Shape[4] != real.Shape[4] || gen.Batch() != real.Batch():
		return nil, paramErr("real.Shape", real.Shape, fmt.Sprintf("[%d, T, %d, %d, %d] (gen's batch and frames)", gen.Batch(), C, gen.Shape[3], gen.Shape[4]))
	case C > 4:
		return nil, paramErr("gen channels", C, "1 to 4 (a joint histogram over channels)")
	case !(hi > lo) || math.IsInf(hi-lo, 0):
		return nil, paramErr("hi", hi, fmt.Sprintf("finite and > lo = %g", lo))
	}
	T := min(gen.Frames(), real.Frames())
	if chunk < 1 || chunk > T {
		return nil, paramErr("chunk", chunk, fmt.Sprintf("in [1, %d] (the shorter video's frames)", T))
	}
	for s := 0; s+chunk <= T; s += chunk {
		p := colourHistogram(gen.sliceFrames(s, chunk), lo, hi)
		q := colourHistogram(real.sliceFrames(s, chunk), lo, hi)
		var tv float64
		for i := range p {
			tv += math.Abs(p[i] - q[i])
		}
		drift = append(drift, tv/2)
	}
	return drift, nil
}

// colourHistogram is the normalised joint histogram of the pixels' colours of x [B, T, C, H, W].
func colourHistogram(x *Window, lo, hi float64) []float64 {
	C, hw := x.Shape[2], x.Shape[3]*x.Shape[4]
	bins := DefaultDriftBins
	size := 1
	for c := 0; c < C; c++ {
		size *= bins
	}
	h := make([]float64, size)
	n := 0
	for f := 0; f < x.NumFrames(); f++ {
		fr := x.Frame(f)
		for i := 0; i < hw; i++ {
			cell := 0
			for c := 0; c < C; c++ {
				b := int((fr[c*hw+i] - lo) / (hi - lo) * float64(bins))
				cell = cell*bins + min(max(b, 0), bins-1)
			}
			h[cell]++
			n++
		}
	}
	for i := range h {
		h[i] /= float64(n)
	}
	return h
}

// ChunkError is the teacher-forced error of one generated chunk.
type ChunkError struct {
	MSE      float64   // mean over the chunk's frames, pixels and clips
	PSNR     float64   // of MSE, in dB, for the given data range
	PerFrame []float64 // MSE of each generated frame (averaged over clips)
}

// NextChunkError is the teacher-forced next-chunk error: the first opts.Context frames of each
// real clip [B, Context + n, C, H, W] are the clean context, the model rolls out the next n
// frames with opts (its RollConfig and sampler; opts.Frames is set to n, a multiple of Stride),
// conditioned on the clip's own conditions cond [B, Context + n, CondDim] (nil for none; the
// last is repeated past the clip's end), and the generated frames are compared with the real
// continuation. dataRange is the data's peak-to-peak range for the PSNR (4 for standardised
// frames: ±2 standard deviations).
func NextChunkError(f Field, clips *Window, cond []float64, opts RollOptions, dataRange float64) (e ChunkError, err error) {
	defer catch(&err)
	if err := clips.Validate("clips"); err != nil {
		return e, err
	}
	B, C := clips.Batch(), opts.Context
	n := clips.Frames() - C
	if C < 1 || n < 1 {
		return e, paramErr("clips frames", clips.Frames(), fmt.Sprintf("> opts.Context = %d ≥ 1 (context, then the real continuation)", C))
	}
	if cond != nil && len(cond) != B*clips.Frames()*opts.CondDim {
		return e, paramErr("cond", fmt.Sprintf("len %d", len(cond)), fmt.Sprintf("len %d = B·T·CondDim", B*clips.Frames()*opts.CondDim))
	}
	o := opts
	o.Frames = n
	if cond != nil {
		o.Conditions = extendConditions(cond, B, clips.Frames(), C+n+o.Horizon-o.Stride, o.CondDim)
	}
	ctx := clips.sliceFrames(0, C)
	res, err := Roll(f, ctx, o)
	if err != nil {
		return e, err
	}
	truth := clips.sliceFrames(C, n)
	if e.PerFrame, err = FrameMSE(res.Frames, truth); err != nil {
		return e, err
	}
	for _, m := range e.PerFrame {
		e.MSE += m / float64(n)
	}
	p, err := PSNR([]float64{e.MSE}, dataRange)
	if err != nil {
		return e, err
	}
	e.PSNR = p[0]
	return e, nil
}

// ExtendConditions is a rollout's condition timeline: per-frame conditions cond [B, T, d]
// (the actions taken into each frame of B clips) lengthened, or cut, to [B, L, d], each clip's
// last action repeated past its end. A rollout with context C, R new frames, horizon H and
// stride S reads L = C + R + H − S.
func ExtendConditions(cond []float64, B, T, L, d int) ([]float64, error) {
	switch {
	case B < 1 || T < 1 || d < 0:
		return nil, paramErr("B, T, d", fmt.Sprint(B, T, d), "B ≥ 1, T ≥ 1, d ≥ 0")
	case L < 1:
		return nil, paramErr("L", L, "≥ 1")
	case len(cond) != B*T*d:
		return nil, paramErr("len(cond)", len(cond), fmt.Sprintf("B·T·d = %d", B*T*d))
	}
	return extendConditions(cond, B, T, L, d), nil
}

func extendConditions(cond []float64, B, T, L, d int) []float64 {
	out := make([]float64, 0, B*L*d)
	for b := 0; b < B; b++ {
		for t := 0; t < L; t++ {
			src := min(t, T-1)
			out = append(out, cond[(b*T+src)*d:(b*T+src+1)*d]...)
		}
	}
	return out
}

// PatchSeams measures the patch grid a patch-based backbone can leave in its frames: the mean
// absolute difference between horizontally or vertically adjacent pixels that straddle a
// patch boundary (columns or rows p·k − 1 and p·k) over the same mean for adjacent pixels
// inside a patch, over every frame, channel and clip of x [B, T, C, H, W]. Natural frames have
// no preferred boundary, so their ratio is about 1; frames whose p×p patches settle on
// different shades show edges on the boundaries, a ratio above 1. H and W must be multiples of
// patch ≥ 2.
func PatchSeams(x *Window, patch int) (float64, error) {
	if err := x.Validate("x"); err != nil {
		return 0, err
	}
	H, W := x.Shape[3], x.Shape[4]
	switch {
	case patch < 2:
		return 0, paramErr("patch", patch, "≥ 2 (a patch of one pixel has no inside)")
	case H%patch != 0 || W%patch != 0 || H < 2*patch || W < 2*patch:
		return 0, paramErr("patch", patch, fmt.Sprintf("a divisor of H = %d and W = %d with at least two patches a side", H, W))
	}
	var across, inside float64
	var na, ni int
	add := func(d float64, boundary bool) {
		if boundary {
			across, na = across+d, na+1
		} else {
			inside, ni = inside+d, ni+1
		}
	}
	plane := H * W
	for f := 0; f < x.NumFrames(); f++ {
		fr := x.Frame(f)
		for c := 0; c+plane <= len(fr); c += plane {
			p := fr[c : c+plane]
			for i := 0; i < H; i++ {
				for j := 0; j < W; j++ {
					if j+1 < W {
						add(math.Abs(p[i*W+j+1]-p[i*W+j]), (j+1)%patch == 0)
					}
					if i+1 < H {
						add(math.Abs(p[(i+1)*W+j]-p[i*W+j]), (i+1)%patch == 0)
					}
				}
			}
		}
	}
	if inside == 0 {
		if across == 0 {
			return 1, nil // flat frames: no seams
		}
		return math.Inf(1), nil
	}
	return (across / float64(na)) / (inside / float64(ni)), nil
}
