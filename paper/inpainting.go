package paper

import (
	"context"
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Inpainting is App. C.3's inpainting task (Table re10k_inpaint) on the maze: in every window of
// the zoo's length T, the first and the last frame are known and the frames between them are
// generated under the clip's actions; PSNR of the generated frames against the real ones (pixels
// in [0, 1]). FM Euler, EqF GD (open loop) and EqF NAG (closed loop), all on the c-function warp.
func Inpainting(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "eqf")
	if err != nil {
		return nil, err
	}
	cw := warp(warpC)
	ms := []method{
		{Name: "FM Euler (c-function)", Model: "fm", Color: 1, Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw}}},
		{Name: "EqF GD (open loop, c-function)", Model: "eqf", Color: 3, Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: cw}}},
		{Name: "EqF NAG μ=0.3 (closed loop, c-function)", Model: "eqf", Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, ClosedLoop: true, Momentum: 0.3}}},
	}
	T := l.z.Recipe.Frames
	known, err := eqflib.InpaintEnds(T, 1, 1)
	if err != nil {
		return nil, err
	}
	psnr := make([][][]float64, len(ms)) // [method][training seed][evaluation seed]
	var vids []plots.Video
	err = l.eachRun(func(k int) error {
		for i, m := range ms {
			zm := l.models[m.Model]
			var run []float64
			err := l.eachSeed(zm, func(seed uint64, cl *zoo.Clips) error {
				x, cond := windows(cl, T)
				res, err := eqflib.Inpaint(zm.DiT, x, known, eqflib.InpaintOptions{Sampler: withDepth(m.Sampler, l.p.Depth), Conditions: cond, CondDim: zoo.CondDim, Seed: seed})
				if err != nil {
					return fmt.Errorf("paper: %s: %w", m.Name, err)
				}
				v, err := inpaintPSNR(res.X, x, known, zm)
				if err != nil {
					return err
				}
				run = append(run, v)
				l.logf("  %-40s seed %d: in-between PSNR %.2f dB (%d windows, %d NFE)\n", m.Name, seed, v, x.Batch(), res.NFE)
				if k == l.runs[0] && len(run) == 1 { // the strip: the first training and evaluation seed
					if i == 0 {
						vids = append(vids, plots.Video{Name: "ground truth", Frames: x})
					}
					vids = append(vids, plots.Video{Name: shortName(m.Name), Frames: res.X})
				}
				return nil
			})
			if err != nil {
				return err
			}
			psnr[i] = append(psnr[i], run)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := l.withProvenance(&Result{Name: "inpainting", Title: "Inpainting the frames between a known first and last frame", Where: "App. C.3, Table re10k_inpaint",
		Figures: map[string]*plots.Figure{}, Files: map[string][]byte{}})
	p := plots.Panel{XLabel: "method", YLabel: "PSNR of the generated frames (dB)", Legend: "none"}
	for i, m := range ms {
		mean, se := runStat(psnr[i])
		r.Numbers = append(r.Numbers, Number{Name: m.Name + ": PSNR of the in-between frames (dB)", Ours: mean, Err: se})
		p.XTicks = append(p.XTicks, shortName(m.Name))
		p.Series = append(p.Series, plots.Series{Name: shortName(m.Name), X: []float64{float64(i + 1)}, Y: []float64{mean},
			Lo: []float64{mean - se}, Hi: []float64{mean + se}, Style: plots.Points, Labels: []string{fmt.Sprintf("%.1f", mean)}, Color: m.Color})
	}
	r.Figures["inpainting"] = &plots.Figure{Title: "Inpainting PSNR", Panels: []plots.Panel{p}, Width: 6, Height: 4}
	st := l.models["eqf"].Stats
	strip, err := plots.StripPNG(vids, plots.VideoOptions{Mean: st.Mean, Std: st.Std, Scale: 4, Every: 1})
	if err != nil {
		return nil, err
	}
	r.Files["inpainting_windows.png"] = strip
	r.Notes = append(r.Notes, fmt.Sprintf("%d-frame windows cut from the protocol's clips (first and last frame known, %d generated), D = %d steps per frame; "+
		"the strip shows training seed %d, evaluation seed %d. "+
		"The paper's inpainting numbers are on RealEstate10K with Wan 2.1 finetunes; none compares here.", T, T-2, l.p.Depth, l.runs[0], l.cfg.seeds()[0]))
	return r, nil
}

// windows cuts the clips into consecutive T-frame windows: [B·K, T, …] and their conditions.
func windows(cl *zoo.Clips, T int) (*eqflib.Window, []float64) {
	B, L, d := cl.All.Batch(), cl.All.Frames(), zoo.CondDim
	K := L / T
	sh := cl.All.Shape
	out := eqflib.MustNewWindow(B*K, T, sh[2], sh[3], sh[4])
	fs := cl.All.FrameSize()
	cond := make([]float64, 0, B*K*T*d)
	for b := 0; b < B; b++ {
		for k := 0; k < K; k++ {
			src := b*L + k*T
			copy(out.Data[(b*K+k)*T*fs:(b*K+k+1)*T*fs], cl.All.Data[src*fs:(src+T)*fs])
			cond = append(cond, cl.Cond[src*d:(src+T)*d]...)
		}
	}
	return out, cond
}

// inpaintPSNR is the PSNR (pixels in [0, 1]) over the unknown frames.
func inpaintPSNR(gen, ref *eqflib.Window, known []bool, m *zoo.Model) (float64, error) {
	mse, err := eqflib.FrameMSE(pixels(gen, m), pixels(ref, m))
	if err != nil {
		return 0, err
	}
	var s float64
	n := 0
	for t, k := range known {
		if !k {
			s += mse[t]
			n++
		}
	}
	return 10 * math.Log10(1/(s/float64(n))), nil
}

// pixels maps normalised frames back to [0, 1].
func pixels(x *eqflib.Window, m *zoo.Model) *eqflib.Window {
	hw := x.Shape[3] * x.Shape[4]
	out := m.Stats.Denormalise(x.Data, hw)
	for i, v := range out {
		out[i] = min(1, max(0, v))
	}
	return &eqflib.Window{Shape: x.Shape, Data: out}
}
