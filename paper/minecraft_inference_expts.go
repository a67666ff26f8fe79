package paper

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// MinecraftInferenceExpts is Table minecraft_inference_expts (§5.3, "Closed-loop acceleration
// with NAG") on the maze: the EqF backbone under every η warp (c-function, linear log-SNR,
// SD3 r = 3, identity) × feedback (open loop on the warp's schedule, closed loop on h_ω) ×
// sampler (GD, NAG μ ∈ {0.1, 0.3, 0.5}: the μ values the paper's table names). The paper runs
// one seed and prints the best μ of each row, which stands beside our row of that μ; full mode
// runs one evaluation seed unless Config.Seeds says otherwise. The comparisons the paper draws
// from the table (inferenceClaims) are paired by training seed.
func MinecraftInferenceExpts(ctx context.Context, c Config) (*Result, error) {
	if c.Seeds == 0 {
		c.Seeds = 1
	}
	l, err := newSetup(ctx, c, "eqf")
	if err != nil {
		return nil, err
	}
	ms := inferenceMethods()
	rows, err := l.runAll(ms)
	if err != nil {
		return nil, err
	}
	r, err := l.table("minecraft_inference_expts", "EqF inference ablation: η warp × feedback × sampler", "§5.3, Table minecraft_inference_expts", rows)
	if err != nil {
		return nil, err
	}
	r.Notes = append(r.Notes, "The paper prints, for each warp × feedback × sampler, the FVD of its best μ (in brackets), shown beside our row of that μ; it has no closed-loop GD rows. "+
		"With the identity warp η ≡ 1, closed and open loop take the same steps (the paper's two 80.25 rows).")
	r.Numbers = append(r.Numbers, inferencePairs(rows, len(ms))...)
	r.Figures["fvd"], r.Figures["fvd_over_time"] = inferenceFigures(rows, len(ms), l.p.Chunk, l.p.Frames)
	l.stampStride(r)
	return r, nil
}

// inferenceFigures draw the table as the paper lays it out, in place of the generic figures'
// 32 numbered methods: fvd has a panel per warp, FVD against the sampler (GD, NAG μ) with open
// and closed loop side by side (mean ± standard error over training seeds, log scale: the
// rows span 20 to 600); fvd_over_time has a panel per warp and feedback (and stride), a curve
// per sampler. rows come stride by stride, perStride each, in inferenceMethods' order.
func inferenceFigures(rows []methodScores, perStride, chunk, frames int) (fvd, over *plots.Figure) {
	strides := len(rows) / perStride
	ticks := []string{"GD"}
	for _, mu := range inferenceMomenta[1:] {
		ticks = append(ticks, fmt.Sprintf("NAG μ=%.1f", mu))
	}
	fvd = &plots.Figure{Title: "EqF inference ablation: FVD by η warp, feedback and sampler", Cols: len(inferenceWarps), Width: 3.6, Height: 3.4}
	over = &plots.Figure{Title: fmt.Sprintf("FVD over time, %d-frame rollouts, by η warp, feedback and sampler", frames), Cols: len(inferenceWarps), Width: 3.6, Height: 3}
	legend := func(first bool) string {
		if first {
			return ""
		}
		return "none" // the panels share their series: one legend
	}
	for w, wp := range inferenceWarps {
		p := plots.Panel{Title: wp.name, XLabel: "sampler", YLabel: "FVD (maze-I3D features)", LogY: true, XTicks: ticks, Legend: legend(w == 0)}
		k := 0
		for s := range strides {
			for _, closed := range []bool{false, true} {
				name := map[bool]string{false: "open loop", true: "closed loop"}[closed]
				var ser plots.Series
				ser.Name, ser.Style, ser.Color = name, plots.Points, 1+k
				for j, mu := range inferenceMomenta {
					row := rows[s*perStride+inferenceRow(w, closed, mu)]
					if strides > 1 {
						ser.Name = fmt.Sprintf("%s, S=%d", name, row.m.Stride)
					}
					m, se := row.of(fvdOf)
					x := float64(j+1) + 0.3*(float64(k)+0.5)/float64(2*strides) - 0.15 // side by side within a sampler
					ser.X, ser.Y = append(ser.X, x), append(ser.Y, m)
					ser.Lo, ser.Hi = append(ser.Lo, max(m-se, m/10)), append(ser.Hi, m+se) // a log axis: the bar stays above zero
				}
				p.Series = append(p.Series, ser)
				k++
			}
		}
		fvd.Panels = append(fvd.Panels, p)
	}
	for s := range strides {
		for _, closed := range []bool{false, true} {
			for w, wp := range inferenceWarps {
				p := plots.Panel{Title: wp.name + map[bool]string{false: ", open loop", true: ", closed loop"}[closed],
					XLabel: fmt.Sprintf("rollout frame (chunks of %d)", chunk), YLabel: "FVD (maze-I3D features)", LogY: true, Legend: legend(s == 0 && !closed && w == 0)}
				if strides > 1 && w == 0 { // each row of panels names its stride once
					p.Title = fmt.Sprintf("S=%d: %s", rows[s*perStride].m.Stride, p.Title)
				}
				for j, mu := range inferenceMomenta {
					row := rows[s*perStride+inferenceRow(w, closed, mu)]
					c, _, _ := meanCurve(row, func(sc *scores) []float64 { return sc.FVDOverTime })
					ser := plots.Series{Name: ticks[j], Y: c, Style: plots.LinePoints, Color: 1 + j}
					for i := range c {
						ser.X = append(ser.X, float64((i+1)*chunk))
					}
					p.Series = append(p.Series, ser)
				}
				over.Panels = append(over.Panels, p)
			}
		}
	}
	shareY(fvd)
	shareY(over)
	return fvd, over
}

// inferenceMethods are the table's rows: warp × feedback (open, closed) × μ (inferenceMomenta),
// in that order (inferenceRow indexes them).
func inferenceMethods() []method {
	var ms []method
	for i, w := range inferenceWarps {
		for _, closed := range []bool{false, true} {
			fb := "open loop"
			if closed {
				fb = "closed loop"
			}
			for _, mu := range inferenceMomenta {
				m := method{Model: "eqf", Color: i + 1,
					Sampler: eqflib.FrameSampler{Sampler: eqflib.GD, Options: eqflib.Options{Warp: warp(w.spec), ClosedLoop: closed}}}
				switch {
				case mu == 0:
					m.Name = fmt.Sprintf("%s, %s, GD", w.name, fb)
					if !closed {
						m.Paper = w.gd
					}
				default:
					m.Name = fmt.Sprintf("%s, %s, NAG μ=%.1f", w.name, fb, mu)
					m.Sampler.Sampler, m.Sampler.Momentum = eqflib.NAG, mu
					p := w.openNAG
					if closed {
						p = w.closedNAG
					}
					if bestMomentum(p) == mu { // the paper's value stands beside the row of its μ
						m.Paper = p
					}
				}
				ms = append(ms, m)
			}
		}
	}
	return ms
}

// inferenceRow is the index in inferenceMethods of warp w (an index into inferenceWarps),
// feedback closed and momentum mu (an element of inferenceMomenta; 0: GD).
func inferenceRow(w int, closed bool, mu float64) int {
	k := slices.Index(inferenceMomenta, mu)
	if k < 0 {
		panic(fmt.Sprintf("paper: μ = %g is not in the table's grid %v", mu, inferenceMomenta))
	}
	i := w*2*len(inferenceMomenta) + k
	if closed {
		i += len(inferenceMomenta)
	}
	return i
}

// A cell of Table minecraft_inference_expts: warp (index into inferenceWarps), feedback, μ.
type inferenceCell struct {
	warp   int
	closed bool
	mu     float64
}

// inferenceClaims are the comparisons the paper draws from Table minecraft_inference_expts and
// §5.3's "Closed-loop acceleration with NAG": FVD of a minus FVD of b. Where the paper prints
// both cells its difference is the claim (and its sign the verdict's side); where it prints
// one or neither, sign is the claim's side and why says whose words it is.
var inferenceClaims = []struct {
	a, b inferenceCell
	sign float64 // the claim's side when the paper prints no difference
	why  string
}{
	// Caption: "Closed loop inference is necessary for higher settings of μ" (the attractor warps;
	// the paper prints no open-loop row at μ = 0.3 or 0.5).
	{inferenceCell{0, false, 0.3}, inferenceCell{0, true, 0.3}, +1, "closed loop needed for higher μ, Table caption"},
	{inferenceCell{0, false, 0.5}, inferenceCell{0, true, 0.5}, +1, "closed loop needed for higher μ, Table caption"},
	{inferenceCell{1, false, 0.3}, inferenceCell{1, true, 0.3}, +1, "closed loop needed for higher μ, Table caption"},
	{inferenceCell{1, false, 0.5}, inferenceCell{1, true, 0.5}, +1, "closed loop needed for higher μ, Table caption"},
	// §5.3: "The best setting combines attractor-like schedules …, closed-loop prediction, and the
	// higher μ that closed-loop prediction enables": each attractor warp's best rows.
	{inferenceCell{0, true, 0.3}, inferenceCell{0, false, 0.1}, -1, "closed-loop NAG best, §5.3"},
	{inferenceCell{1, true, 0.3}, inferenceCell{1, false, 0.1}, -1, "closed-loop NAG best, §5.3"},
	// The table's open-loop NAG rows against its GD rows, every warp that has both.
	{inferenceCell{0, false, 0.1}, inferenceCell{0, false, 0}, -1, "NAG below GD, Table"},
	{inferenceCell{1, false, 0.1}, inferenceCell{1, false, 0}, -1, "NAG below GD, Table"},
	{inferenceCell{2, false, 0.1}, inferenceCell{2, false, 0}, -1, "NAG below GD, Table"},
	// §5.3: SD3 "is prone to overshooting the fixed-point, exhibiting unreliable performance and
	// lagging behind other schedules".
	{inferenceCell{2, true, 0.1}, inferenceCell{0, true, 0.3}, +1, "SD3 lags behind, §5.3"},
	{inferenceCell{2, false, 0.1}, inferenceCell{0, false, 0.1}, +1, "SD3 lags behind, §5.3"},
	{inferenceCell{2, true, 0.1}, inferenceCell{2, false, 0.1}, +1, "NAG on SD3 overshoots in closed loop, §5.3"},
}

// inferencePairs is every claim of inferenceClaims within each stride's block of perStride rows
// (runAll's order): a − b paired by training seed with its 95 % t-interval and the verdict
// against the paper's difference (or the claim's side).
func inferencePairs(rows []methodScores, perStride int) []Number {
	var out []Number
	for s := 0; s+perStride <= len(rows); s += perStride {
		for _, c := range inferenceClaims {
			a, b := rows[s+inferenceRow(c.a.warp, c.a.closed, c.a.mu)], rows[s+inferenceRow(c.b.warp, c.b.closed, c.b.mu)]
			paper, text := c.sign, "< 0 ("+c.why+")"
			if c.sign > 0 {
				text = "> 0 (" + c.why + ")"
			}
			if pa, pb := paperValue(a.m.Paper), paperValue(b.m.Paper); !math.IsNaN(pa) && !math.IsNaN(pb) {
				paper = pa - pb
				text = fmt.Sprintf("%+.2f (%.2f − %.2f: %s)", paper, pa, pb, c.why)
			}
			bName := baseName(b) // one stride tag is enough
			if n, ok := pairOf(fvdOf, a, b, fmt.Sprintf("%s − %s: FVD", a.m.Name, bName), paper, text); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// inferenceMomenta are the rows' μ: 0 (GD) and every μ the paper's table names as a best μ.
var inferenceMomenta = []float64{0, 0.1, 0.3, 0.5}

// bestMomentum reads the μ of a value the paper prints as "64.12 (μ=0.3)"; NaN without one.
func bestMomentum(paper string) float64 {
	_, after, ok := strings.Cut(paper, "(μ=")
	if !ok {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(after, ")"), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// inferenceWarps are Table minecraft_inference_expts's warps with its FVDs (best μ in brackets).
var inferenceWarps = []struct{ name, spec, closedNAG, openNAG, gd string }{
	{"c-function", warpC, "64.12 (μ=0.3)", "67.94 (μ=0.1)", "78.69"},
	{"linear log-SNR", warpLogSNR, "67.70 (μ=0.3)", "90.59 (μ=0.1)", "92.54"},
	{"SD3 r=3", warpSD3, "203.73 (μ=0.1)", "114.11 (μ=0.1)", "137.85"},
	{"identity", "identity", "80.25 (μ=0.1)", "80.25 (μ=0.1)", "105.44"},
}
