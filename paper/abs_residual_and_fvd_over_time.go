package paper

import (
	"context"
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// AbsResidualAndFVDOverTime is Fig. abs_residual_and_fvd_over_time (§3, Fig. 3): over long
// rollouts, (left) the divergence |σ_sched − g_φ(x)| between the level FM is told and the level
// g_φ reads from the sample, per frame, and (right) FVD over consecutive chunks, for FM Euler
// (told its schedule), FM closed loop on g_φ (told g_φ's estimate) and EqF (closed-loop NAG,
// told nothing). g_φ only watches FM Euler and EqF (a probe that steers nothing).
func AbsResidualAndFVDOverTime(ctx context.Context, c Config) (*Result, error) {
	l, err := newSetup(ctx, c, "fm", "eqf", "gphi")
	if err != nil {
		return nil, err
	}
	cw := warp(warpC)
	ms := []method{
		{Name: "FM Euler (c-function)", Model: "fm", Probe: true, Color: 1,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw}}},
		{Name: "FM Euler conditioned on g_φ", Model: "fm", GPhi: true, Color: 4,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: cw, ClosedLoop: true}}},
		{Name: "EqF NAG μ=0.3 (closed loop, c-function)", Model: "eqf", Probe: true, Color: 2,
			Sampler: eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: cw, ClosedLoop: true, Momentum: 0.3}}},
	}
	rows, err := l.runAll(ms)
	if err != nil {
		return nil, err
	}
	r, err := l.table("abs_residual_and_fvd_over_time", "Noise-level divergence and FVD over long rollouts", "§3, Fig. abs_residual_and_fvd_over_time", rows)
	if err != nil {
		return nil, err
	}
	for i, row := range rows { // each row's FVD against FM Euler's at the same stride
		if row.m.Model == "fm" && !row.m.GPhi {
			r.Numbers = append(r.Numbers, paired(rows, i)...)
		}
	}
	if eff := strideEffects(rows, ""); len(eff) > 0 { // S = 1 against S = H, when both ran
		r.Numbers = append(r.Numbers, eff...)
		r.Notes = append(r.Notes, strideEffectNote)
	}
	for _, row := range rows {
		if row.per[0].Divergence == nil {
			continue
		}
		d, _, _ := meanCurve(row, func(s *scores) []float64 { return s.Divergence })
		first, last := chunkMean(d, 0, l.p.Chunk), chunkMean(d, len(d)-l.p.Chunk, len(d))
		r.Numbers = append(r.Numbers,
			Number{Name: row.m.Name + fmt.Sprintf(": |σ_sched − g_φ(x)|, frames 1–%d", l.p.Chunk), Ours: first, Stride: row.m.Stride},
			Number{Name: row.m.Name + fmt.Sprintf(": |σ_sched − g_φ(x)|, frames %d–%d", len(d)-l.p.Chunk+1, len(d)), Ours: last, Stride: row.m.Stride,
				Paper: map[bool]string{true: "grows over the rollout (Fig. 3 left)", false: ""}[row.m.Model == "fm"]})
	}
	fig, err := rolloutFigure(rows, true, l.p.Chunk)
	if err != nil {
		return nil, err
	}
	fig.Title = fmt.Sprintf("Noise-level divergence and FVD over %d-frame rollouts", l.p.Frames)
	if len(fig.Panels) == 2 {
		fig.Panels[0].Legend = "none" // the panels share colours; the FVD panel's legend names them
	}
	r.Figures["abs_residual_and_fvd_over_time"] = fig
	r.Notes = append(r.Notes, "For EqF the scheduled level is the c-function's ρ(i/N) that closed-loop NAG does not follow: "+
		"its divergence measures how far ahead of the schedule its own readout drives the sample, not a conditioning error (EqF is told no level).")
	l.stampStride(r)
	return r, nil
}

// chunkMean is the mean of v[a:b], skipping NaN.
func chunkMean(v []float64, a, b int) float64 {
	var s float64
	n := 0
	for _, x := range v[max(a, 0):b] {
		if x == x {
			s += x
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
