package paper

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// ForwardCompute is Table forward_compute (App. D.6): GFLOPs of one forward pass on one window
// of the zoo's length, for the FM and EqF backbones, g_φ (on every frame of the window) and h_ω.
// Matrix products are counted as 2 FLOPs per multiply-add, read off the models' own weight
// shapes (every dense layer applied to each token or each frame) plus self-attention's two
// products over the window's tokens; element-wise operations are not counted (as is usual).
func ForwardCompute(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "eqf", "gphi")
	if err != nil {
		return nil, err
	}
	T := l.z.Recipe.Frames
	fm, err := DiTFLOPs(l.models["fm"].DiT, T)
	if err != nil {
		return nil, err
	}
	eq, err := DiTFLOPs(l.models["eqf"].DiT, T)
	if err != nil {
		return nil, err
	}
	g := GPhiFLOPs(l.gphi) * float64(T)
	cfg := l.models["eqf"].DiT.Config
	proj := l.z.Recipe.Train.Readout.Proj
	if proj == 0 {
		proj = eqflib.DefaultReadoutProj
	}
	h := ReadoutFLOPs(cfg.Depth, cfg.Hidden, proj) * float64(T)
	r := l.withProvenance(&Result{Name: "forward_compute", Title: "Compute per forward pass", Where: "App. D.6, Table forward_compute", Figures: map[string]*plots.Figure{}})
	r.Numbers = []Number{
		{Name: "FM backbone (GFLOPs/forward)", Ours: fm / 1e9, Paper: "6895.50"},
		{Name: "EqF backbone (GFLOPs/forward)", Ours: eq / 1e9, Paper: "6895.50"},
		{Name: "noise-level predictor g_φ (GFLOPs/forward)", Ours: g / 1e9, Paper: "61.39"},
		{Name: "noise-level readout h_ω (GFLOPs/forward)", Ours: h / 1e9, Paper: "0.30"},
		{Name: "g_φ / backbone (%)", Ours: 100 * g / eq, Paper: "0.89"},
		{Name: "h_ω / backbone (%)", Ours: 100 * h / eq, Paper: "< 0.01"},
	}
	p := plots.Panel{XLabel: "model", YLabel: "GFLOPs per forward (one window)", LogY: true, Legend: "none"}
	for i, n := range r.Numbers[:4] {
		p.XTicks = append(p.XTicks, strings.SplitN(n.Name, " (", 2)[0])
		p.Series = append(p.Series, plots.Series{Name: n.Name, X: []float64{float64(i + 1)}, Y: []float64{n.Ours}, Style: plots.Points,
			Labels: []string{strconv.FormatFloat(n.Ours, 'g', 3, 64)}, Color: i + 1})
	}
	r.Figures["forward_compute"] = &plots.Figure{Title: fmt.Sprintf("Forward compute, %d-frame window", T), Panels: []plots.Panel{p}, Width: 6, Height: 4}
	r.Notes = append(r.Notes, fmt.Sprintf("One %d-frame window of %d×%d frames (the paper: a 50-frame latent window of its CogVideoX backbone).", T, cfg.Height, cfg.Width))
	return r, nil
}

// DiTFLOPs counts a DiT's matrix-product FLOPs for one window of T frames from its stored weight
// shapes: each dense layer's [in, out] weights cost 2·in·out per token (N tokens a frame) or per
// frame (level, action and AdaLN layers), and each block's attention 2·2·(T·N)²·D.
func DiTFLOPs(m *eqflib.DiT, T int) (float64, error) {
	if m == nil || m.Store == nil || m.Config.Patch < 1 {
		return 0, fmt.Errorf("paper: DiTFLOPs: m must be a DiT with weights (NewDiT, LoadDiT)")
	}
	c := m.Config
	N := (c.Height / c.Patch) * (c.Width / c.Patch)
	L := float64(T * N)
	var total float64
	seen := 0
	for v := range m.Store.IterVariables() {
		p := v.Path()
		if !strings.HasPrefix(p, "/dit/") || !strings.HasSuffix(p, "/weights") {
			continue
		}
		d := v.Shape().Dimensions
		if len(d) != 2 {
			return 0, fmt.Errorf("paper: DiTFLOPs: %s has shape %v, want [in, out]", p, d)
		}
		rows := L
		if perFrame(p) {
			rows = float64(T)
		}
		total += 2 * float64(d[0]*d[1]) * rows
		seen++
	}
	if seen == 0 {
		return 0, fmt.Errorf("paper: DiTFLOPs: the DiT has no weights yet (load a checkpoint or evaluate it once: its variables are created by the first forward pass)")
	}
	if want := 5 + 5*c.Depth + map[bool]int{true: 1}[c.CondDim > 0]; seen != want {
		return 0, fmt.Errorf("paper: DiTFLOPs: found %d weight matrices, want %d for depth %d", seen, want, c.Depth)
	}
	total += float64(c.Depth) * 2 * 2 * L * L * float64(c.Hidden)
	return total, nil
}

// perFrame says whether a DiT weight applies once per frame (conditioning) rather than per token.
func perFrame(path string) bool {
	for _, s := range []string{"/level_embed/", "/cond_embed/", "/adaln/", "/final_adaln/"} {
		if strings.Contains(path, s) {
			return true
		}
	}
	return false
}

// GPhiFLOPs is g_φ's FLOPs on one frame: its stride-2 3×3 convolutions ("same" padding) and two
// dense layers.
func GPhiFLOPs(g *eqflib.NoisePredictor) float64 {
	if g == nil {
		return 0
	}
	h, w, in := g.Height, g.Width, g.Channels
	var f float64
	for _, out := range g.Widths {
		h, w = (h+1)/2, (w+1)/2
		f += 2 * float64(h*w*9*in*out)
		in = out
	}
	return f + 2*float64(in*in) + 2*float64(in)
}

// ReadoutFLOPs is h_ω's FLOPs on one frame: the shared projection of every block's pooled
// activations (D → proj), then proj → proj → 1.
func ReadoutFLOPs(depth, hidden, proj int) float64 {
	return 2*float64(depth*hidden*proj) + 2*float64(proj*proj) + 2*float64(proj)
}

// SamplingRuntime is Table sampling_runtime (App. D.6): wall-clock milliseconds per sampling
// step on one window (batch 1) of the zoo's EqF and FM, measured on this machine's backend: FM
// Euler, EqF GD, EqF NAG, closed-loop EqF NAG (with h_ω, from the same forward pass) and FM Euler
// closed loop on g_φ (a second network). Each is timed over a short rollout after a warm-up
// rollout (compilation), the median of several repeats.
func SamplingRuntime(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "eqf", "gphi")
	if err != nil {
		return nil, err
	}
	cw := warp(warpC)
	ms := []method{
		{Name: "FM Euler", Model: "fm", Paper: "34.41", Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw}}},
		{Name: "EqF GD", Model: "eqf", Paper: "34.46", Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: cw}}},
		{Name: "EqF NAG", Model: "eqf", Paper: "34.46", Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, Momentum: 0.3}}},
		{Name: "EqF NAG + h_ω", Model: "eqf", Paper: "34.86", Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, ClosedLoop: true, Momentum: 0.3}}},
		{Name: "FM Euler + g_φ", Model: "fm", Paper: "35.10", GPhi: true, Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw, ClosedLoop: true}}},
	}
	repeats, frames := 5, 10
	if c.Quick {
		repeats, frames = 2, 4
	}
	g := l.geometry(0)
	zm := l.models["eqf"]
	cl, err := l.z.Clips(zm.Stats, 1, frames, 7)
	if err != nil {
		return nil, err
	}
	r := l.withProvenance(&Result{Name: "sampling_runtime", Title: "Wall-clock time per sampling step", Where: "App. D.6, Table sampling_runtime", Figures: map[string]*plots.Figure{}})
	p := plots.Panel{XLabel: "method", YLabel: "ms per sampling step (batch 1)", Legend: "none"}
	for i, m := range ms {
		fs := m.Sampler
		if m.GPhi {
			fs.Estimator = l.gphi
		}
		opts := eqflib.RollOptions{RollConfig: g, Sampler: fs, Frames: frames, Conditions: cl.Timeline(g.Horizon, g.Stride), CondDim: zoo.CondDim, Seed: 7}
		var ms []float64
		for k := 0; k <= repeats; k++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			start := time.Now()
			res, err := eqflib.Roll(l.models[m.Model].DiT, cl.Context, opts)
			if err != nil {
				return nil, fmt.Errorf("paper: %s: %w", m.Name, err)
			}
			if k > 0 { // the first run compiles
				ms = append(ms, float64(time.Since(start).Microseconds())/1e3/float64(res.NFE))
			}
		}
		sort.Float64s(ms)
		med := ms[len(ms)/2]
		r.Numbers = append(r.Numbers, Number{Name: m.Name + " (ms/step)", Ours: med, Paper: m.Paper, Note: fmt.Sprintf("median of %d; range %.2f–%.2f", len(ms), ms[0], ms[len(ms)-1])})
		p.XTicks = append(p.XTicks, m.Name)
		p.Series = append(p.Series, plots.Series{Name: m.Name, X: []float64{float64(i + 1)}, Y: []float64{med}, Lo: []float64{ms[0]}, Hi: []float64{ms[len(ms)-1]},
			Style: plots.Points, Labels: []string{fmt.Sprintf("%.2f", med)}, Color: i + 1})
		l.logf("  %-20s %.2f ms/step\n", m.Name, med)
	}
	b, _ := eqflib.Backend()
	r.Figures["sampling_runtime"] = &plots.Figure{Title: "Time per sampling step", Panels: []plots.Panel{p}, Width: 6, Height: 4}
	r.Notes = append(r.Notes, fmt.Sprintf("Backend %s, batch 1, one %d-frame window, %d frames rolled out per timing (paper: one H200, 50-frame window).",
		b.Name(), g.Window(), frames))
	return r, nil
}
