package paper

import (
	"context"
	"fmt"
	"math"
	"slices"

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
	// The figure's claims (§3 and the caption of Fig. 3), at every stride: FM's divergence grows
	// over the rollout and so does its FVD (growth, below); conditioning FM on g_φ's estimate
	// helps slightly; EqF does best. Each is a difference paired by training seed, signed as the
	// paper states it.
	for _, fm := range rows {
		if fm.m.Model != "fm" || fm.m.GPhi {
			continue
		}
		at := func(ok func(method) bool) (methodScores, bool) { // the row at fm's stride
			i := slices.IndexFunc(rows, func(r methodScores) bool { return r.m.Stride == fm.m.Stride && ok(r.m) })
			if i < 0 {
				return methodScores{}, false
			}
			return rows[i], true
		}
		g, hasG := at(func(m method) bool { return m.GPhi })
		e, hasE := at(func(m method) bool { return m.Model == "eqf" })
		for _, c := range []struct {
			a, b  methodScores
			ok    bool
			bName string
			claim string
		}{
			{g, fm, hasG, shortName(fm.m.Name), "< 0 (conditioning on g_φ helps slightly, Fig. 3 right)"},
			{e, fm, hasE, shortName(fm.m.Name), "< 0 (EqF best, Fig. 3 right)"},
			{e, g, hasE && hasG, g.m.Name, "< 0 (EqF best, Fig. 3 right)"},
		} {
			if !c.ok {
				continue
			}
			if n, ok := pairOf(fvdOf, c.a, c.b, fmt.Sprintf("%s: FVD − %s's", c.a.m.Name, c.bName), -1, c.claim); ok {
				r.Numbers = append(r.Numbers, n)
			}
		}
	}
	if eff := strideEffects(rows, ""); len(eff) > 0 { // S = 1 against S = H, when both ran
		r.Numbers = append(r.Numbers, eff...)
		r.Notes = append(r.Notes, strideEffectNote)
	}
	for _, row := range rows {
		// The paper's claims of growth are FM's, told its schedule: the divergence from it
		// (Fig. 3 left) and FVD (right) rise over the rollout.
		told := row.m.Model == "fm" && !row.m.GPhi
		if fot := row.per[0].FVDOverTime; len(fot) > 1 {
			stem := fmt.Sprintf("%s: FVD of frames %d–%d − of frames 1–%d", row.m.Name, (len(fot)-1)*l.p.Chunk+1, len(fot)*l.p.Chunk, l.p.Chunk)
			if n, ok := growth(row, stem, func(s *scores) []float64 { return s.FVDOverTime }, 1, told, "> 0 (FM's FVD worsens over the rollout, Fig. 3 right)"); ok {
				r.Numbers = append(r.Numbers, n)
			}
		}
		if row.per[0].Divergence == nil {
			continue
		}
		d, _, _ := meanCurve(row, func(s *scores) []float64 { return s.Divergence })
		first, last := chunkMean(d, 0, l.p.Chunk), chunkMean(d, len(d)-l.p.Chunk, len(d))
		name := func(a, b int) string { return fmt.Sprintf("|σ_sched − g_φ(x)|, frames %d–%d", a, b) }
		r.Numbers = append(r.Numbers,
			Number{Name: row.m.Name + ": " + name(1, l.p.Chunk), Ours: first, Stride: row.m.Stride},
			Number{Name: row.m.Name + ": " + name(len(d)-l.p.Chunk+1, len(d)), Ours: last, Stride: row.m.Stride})
		stem := fmt.Sprintf("%s: %s − %s", row.m.Name, name(len(d)-l.p.Chunk+1, len(d)), name(1, l.p.Chunk))
		if n, ok := growth(row, stem, func(s *scores) []float64 { return s.Divergence }, l.p.Chunk, told, "> 0 (grows over the rollout, Fig. 3 left)"); ok {
			r.Numbers = append(r.Numbers, n)
		}
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

// growth is how much a row's curve rises over the rollout: the mean of its last chunk points
// minus that of its first (chunk: the protocol's chunk for a per-frame curve, 1 for a per-chunk
// one), per rollout set, paired as pairedNumber pairs. claimed says the paper states it positive
// for this row: text is then the paper's column and the number gets a verdict.
func growth(row methodScores, stem string, curve func(*scores) []float64, chunk int, claimed bool, text string) (Number, bool) {
	d := make([]float64, len(row.per))
	for j, p := range row.per {
		v := curve(p)
		d[j] = chunkMean(v, len(v)-chunk, len(v)) - chunkMean(v, 0, chunk)
	}
	if !claimed {
		return pairedNumber(row, d, stem, math.NaN(), "")
	}
	return pairedNumber(row, d, stem, 1, text)
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
