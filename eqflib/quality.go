package eqflib

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
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
// first transition too, pass the last context frame as gen's frame 0. It is
// ActionAgreementAgainst with the real side's BalancedActionAccuracy.
func ActionAgreement(net *ActionNet, gen *Window, genCond []float64, real *Window, realCond []float64) (a ActionAgreementResult, err error) {
	if net == nil {
		return a, paramErr("net", "nil", "a trained *ActionNet")
	}
	r, err := BalancedActionAccuracy(net, real, realCond)
	if err != nil {
		return a, fmt.Errorf("real: %w", err)
	}
	return ActionAgreementAgainst(net, gen, genCond, r)
}

// BalancedActionAccuracy is the action net's balanced accuracy on the transitions of clips
// [B, T, C, H, W] whose conditions are cond [B, T, Actions]: the real side of ActionAgreement,
// which a caller scoring many rollouts against the same real clips computes once.
func BalancedActionAccuracy(net *ActionNet, clips *Window, cond []float64) (acc float64, err error) {
	defer catch(&err)
	if net == nil {
		return 0, paramErr("net", "nil", "a trained *ActionNet")
	}
	right, total, err := net.agree(clips, cond)
	if err != nil {
		return 0, err
	}
	return balanced(right, total), nil
}

// ActionAgreementAgainst is ActionAgreement with the real side given as the action net's
// balanced accuracy on real clips (BalancedActionAccuracy), which must be > 0.
func ActionAgreementAgainst(net *ActionNet, gen *Window, genCond []float64, real float64) (a ActionAgreementResult, err error) {
	defer catch(&err)
	if net == nil {
		return a, paramErr("net", "nil", "a trained *ActionNet")
	}
	if !(real > 0 && real <= 1) {
		return a, paramErr("real", fmt.Sprintf("balanced accuracy %v", real), "in (0, 1]: real clips the action net was trained for")
	}
	gr, gt, err := net.agree(gen, genCond)
	if err != nil {
		return a, fmt.Errorf("gen: %w", err)
	}
	for _, n := range gt {
		a.Transitions += n
	}
	a.Generated, a.Real = balanced(gr, gt), real
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

// ColourDrift measures whether generated frames keep the colours of the clips they follow: for
// each consecutive chunk of `chunk` frames it is the sliced 1-Wasserstein distance between the
// colours of a generated clip's pixels and of its real clip's, averaged over the batch, in units
// of the colour range hi − lo (values outside [lo, hi] are clamped). Along each of the fixed
// unit directions of driftDirections (for three channels the 3 axes, 6 face and 4 body
// diagonals of the colour cube) it takes the earth mover's distance between the two sets of
// projected colours — the mean distance the pixels' colours must move to match, sorted
// projections paired — and averages over the directions (Rabin et al. 2011's sliced Wasserstein
// distance for colour distributions). It is 0 for the same colours in the same proportions and
// grows with how far the colours are: pixel noise of standard deviation s (in range units) adds
// at most 0.8·s, a blur or a slightly darker frame little, walls painted another colour a lot;
// it is at most √C. Positions within a chunk do not count (a clip played backwards has the
// drift of itself); clips do (two rollouts that swap their real clips' colours drift).
//
// Until 2026-11-28 it was the total-variation distance between 8-bin joint colour histograms
// pooled over the batch, which the maze's colours defeat: its wall palette lies on bin edges, so
// real clips with pixel noise of 2 % of the range scored 0.20 against themselves and 5 % 0.47
// (docs/zoo.md).
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
		return nil, paramErr("gen channels", C, "1 to 4 (a distance between colour distributions)")
	case !(hi > lo) || math.IsInf(hi-lo, 0):
		return nil, paramErr("hi", hi, fmt.Sprintf("finite and > lo = %g", lo))
	}
	T := min(gen.Frames(), real.Frames())
	if chunk < 1 || chunk > T {
		return nil, paramErr("chunk", chunk, fmt.Sprintf("in [1, %d] (the shorter video's frames)", T))
	}
	dirs := driftDirections(C)
	B, n := gen.Batch(), chunk*gen.Shape[3]*gen.Shape[4]
	// Every (chunk, clip, direction) is sorted apart (one worker per CPU) and summed in order
	// afterwards, so the result does not depend on the number of workers.
	chunks := T / chunk
	w := make([]float64, chunks*B*len(dirs)) // the earth mover's distance of each, / n
	jobs := make(chan int, len(w))
	for j := range w {
		jobs <- j
	}
	close(jobs)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(w)) {
		wg.Go(func() {
			pg, pr := make([]float64, n), make([]float64, n)
			for j := range jobs {
				s, b, u := j/(B*len(dirs))*chunk, j/len(dirs)%B, dirs[j%len(dirs)]
				w[j] = projectedDistance(gen, real, b, s, chunk, u, lo, hi, pg, pr)
			}
		})
	}
	wg.Wait()
	for k := range chunks {
		var d float64
		for _, v := range w[k*B*len(dirs) : (k+1)*B*len(dirs)] {
			d += v
		}
		drift = append(drift, d/float64(B*len(dirs)))
	}
	return drift, nil
}

// driftDirections are ColourDrift's directions in C-channel colour space: every nonzero vector
// of {−1, 0, 1}^C whose first nonzero entry is 1 (one of each ± pair), normalised: (3^C − 1)/2
// of them, 13 for three channels.
func driftDirections(C int) [][]float64 {
	var dirs [][]float64
	v := make([]int, C)
	for k := 0; k < pow3(C); k++ {
		first, norm := 0, 0.0
		for c, m := 0, k; c < C; c, m = c+1, m/3 {
			v[c] = m%3 - 1
			if first == 0 {
				first = v[c]
			}
			norm += float64(v[c] * v[c])
		}
		if first != 1 {
			continue
		}
		u := make([]float64, C)
		for c := range u {
			u[c] = float64(v[c]) / math.Sqrt(norm)
		}
		dirs = append(dirs, u)
	}
	return dirs
}

func pow3(n int) int {
	p := 1
	for range n {
		p *= 3
	}
	return p
}

// projectedDistance is the earth mover's distance between the colours of frames [start,
// start+n) of clip b of gen and of real projected onto u (each sorted into pg and pr, buffers of
// n·H·W), per pixel.
func projectedDistance(gen, real *Window, b, start, n int, u []float64, lo, hi float64, pg, pr []float64) float64 {
	projectColours(gen, b, start, n, u, lo, hi, pg)
	projectColours(real, b, start, n, u, lo, hi, pr)
	slices.Sort(pg)
	slices.Sort(pr)
	var sum float64
	for i := range pg {
		sum += math.Abs(pg[i] - pr[i])
	}
	return sum / float64(len(pg))
}

// projectColours writes into out the projection onto u of the colour of every pixel of frames
// [start, start+n) of clip b of x [B, T, C, H, W], each channel mapped to [0, 1] from [lo, hi]
// and clamped.
func projectColours(x *Window, b, start, n int, u []float64, lo, hi float64, out []float64) {
	C, hw := x.Shape[2], x.Shape[3]*x.Shape[4]
	k := 0
	for t := start; t < start+n; t++ {
		fr := x.Frame(b*x.Frames() + t)
		for i := 0; i < hw; i++ {
			var p float64
			for c := 0; c < C; c++ {
				p += u[c] * min(max((fr[c*hw+i]-lo)/(hi-lo), 0), 1)
			}
			out[k] = p
			k++
		}
	}
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
