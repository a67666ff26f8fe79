package plots

import (
	"fmt"
	"math"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// Trace is the raw material of App. B's "unfinished denoising" figures: for one sampler, the
// scheduled σ at each step and the readout's σ̂ of every frame after it.
type Trace struct {
	Name     string
	Sched    []float64   // the scheduled level ρ at each entry's solver progress
	SigmaHat [][]float64 // per entry, per frame: the estimate read there
	// At is each entry's solver progress; nil means i/N for entry i (step i's σ̂, read on the
	// state before the step, where the schedule is ρ(i/N)).
	At []float64
}

// TraceFromResult collects a Trace from a sampler run whose steps carry σ̂ (the EqF samplers
// that read h_ω): entry i is σ̂ as read at step i, beside the schedule's ρ(i/N) there. For an FM
// run, build the Trace in Options.Callback instead, where StepInfo.X is the state after step i:
// append g_φ's estimate on it to SigmaHat, the schedule's level after the step (mean of Level −
// StepSize for Euler) to Sched, and (i+1)/N to At.
func TraceFromResult(name string, res *eqflib.Result) (Trace, error) {
	if res == nil || len(res.Trace) == 0 {
		return Trace{}, fmt.Errorf("plots: TraceFromResult %q: the result has no steps", name)
	}
	t := Trace{Name: name}
	for i, st := range res.Trace {
		if st.SigmaHat == nil {
			return Trace{}, fmt.Errorf("plots: TraceFromResult %q: step %d has no σ̂ (the sampler read no readout)", name, i)
		}
		if st.Sched == nil {
			return Trace{}, fmt.Errorf("plots: TraceFromResult %q: step %d has no scheduled level", name, i)
		}
		t.SigmaHat = append(t.SigmaHat, st.SigmaHat)
		t.Sched = append(t.Sched, mean(st.Sched))
	}
	return t, nil
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// meanStd returns the mean and standard deviation of v.
func meanStd(v []float64) (m, sd float64) {
	m = mean(v)
	for _, x := range v {
		sd += (x - m) * (x - m)
	}
	if len(v) > 1 {
		sd = math.Sqrt(sd / float64(len(v)-1))
	}
	return m, sd
}

// TraceFigure draws σ̂ across sampling steps (mean over frames ± one standard deviation) against
// the scheduled σ (dashed), on solver progress i/N so samplers with different N share an axis;
// the second panel zooms into the last `zoom` fraction of sampling (default 0.2) near σ = 0;
// the third gives the miss rates, the fraction of frames whose final σ̂ is above each level.
func TraceFigure(traces []Trace, zoom float64) (*Figure, error) {
	if len(traces) == 0 {
		return nil, fmt.Errorf("plots: TraceFigure: no traces")
	}
	if zoom == 0 {
		zoom = 0.2
	}
	if zoom <= 0 || zoom > 1 {
		return nil, fmt.Errorf("plots: TraceFigure: zoom = %g out of range: must be in (0, 1]", zoom)
	}
	full := Panel{Title: "noise-level readout across sampling", XLabel: "solver progress (step / N)", YLabel: "noise level σ"}
	zoomed := Panel{Title: fmt.Sprintf("zoom: last %.0f%% of steps", 100*zoom), XLabel: "solver progress (step / N)", YLabel: "noise level σ", XMin: 1 - zoom, XMax: 1}
	miss := Panel{Legend: "bl", Title: "miss rate at termination", XLabel: "level σ", YLabel: "fraction of frames with final σ̂ > σ", LogX: true}
	at := make([]float64, 0, 25)
	for e := -4.0; e <= -0.99; e += 0.125 {
		at = append(at, math.Pow(10, e))
	}
	var zmax float64
	for k, tr := range traces {
		if len(tr.SigmaHat) == 0 || len(tr.Sched) != len(tr.SigmaHat) {
			return nil, fmt.Errorf("plots: TraceFigure: trace %q has %d σ̂ steps and %d scheduled levels: must be equal and > 0", tr.Name, len(tr.SigmaHat), len(tr.Sched))
		}
		if tr.At != nil && len(tr.At) != len(tr.SigmaHat) {
			return nil, fmt.Errorf("plots: TraceFigure: trace %q has %d positions (At) for %d steps: must be equal (or At nil)", tr.Name, len(tr.At), len(tr.SigmaHat))
		}
		N := float64(len(tr.SigmaHat))
		var x, m, lo, hi []float64
		for i, sh := range tr.SigmaHat {
			if len(sh) == 0 {
				return nil, fmt.Errorf("plots: TraceFigure: trace %q step %d has no frames", tr.Name, i)
			}
			mu, sd := meanStd(sh)
			at := float64(i) / N
			if tr.At != nil {
				at = tr.At[i]
			}
			x = append(x, at)
			m, lo, hi = append(m, mu), append(lo, mu-sd), append(hi, mu+sd)
			if at >= 1-zoom {
				zmax = math.Max(zmax, math.Max(mu+sd, tr.Sched[i]))
			}
		}
		sched := Series{Name: tr.Name + " scheduled σ", X: x, Y: tr.Sched, Style: Dashed, Color: k + 1}
		est := Series{Name: tr.Name + " σ̂ (mean ± sd over frames)", X: x, Y: m, Lo: lo, Hi: hi, Color: k + 1}
		full.Series = append(full.Series, est, sched)
		zoomed.Series = append(zoomed.Series, est, sched)
		miss.Series = append(miss.Series, Series{Name: tr.Name, X: at, Y: eqflib.MissRates(tr.SigmaHat[len(tr.SigmaHat)-1], at), Style: LinePoints, Color: k + 1})
	}
	zoomed.YMin, zoomed.YMax = 0, math.Max(zmax*1.1, 1e-3)
	return &Figure{Title: "Unfinished denoising: σ̂ vs the schedule", Panels: []Panel{full, zoomed, miss}}, nil
}
