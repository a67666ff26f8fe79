package plots

import (
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// DefaultWarps are the four warps of the paper's Fig. inference_schedule_vis and App. G: the
// identity and SD3 (transport), the c-function and linear log-SNR (attractor), with the
// paper's parameters.
func DefaultWarps() []eqflib.Warp {
	var ws []eqflib.Warp
	for _, spec := range []string{"identity", "sd3", "c", "logsnr"} {
		w, err := eqflib.ParseWarp(spec)
		if err != nil {
			panic(err) // the specs are constants
		}
		ws = append(ws, w)
	}
	return ws
}

func warpLabel(w eqflib.Warp) string {
	kind := "transport"
	if w.Attractor() {
		kind = "attractor"
	}
	return fmt.Sprintf("%s (%s)", w.Name(), kind)
}

// WarpFigure is App. G's figure (a)–(c) and the paper's Fig. inference_schedule_vis: (a) the
// speed η(σ), (b) the induced noise trajectory ρ(s), (c) the multiplier η(ρ(s)) applied over
// solver time, and (d) the open-loop step sizes η(ρ(i/N))/N of an N-step sampler, the gradient
// multiplier the sampler really applies. Attractors (η → 0 at σ = 0) are labelled as such and
// drawn dashed; transports solid. steps is N (default 10).
func WarpFigure(warps []eqflib.Warp, steps int) (*Figure, error) {
	if len(warps) == 0 {
		return nil, fmt.Errorf("plots: WarpFigure: no warps (try DefaultWarps())")
	}
	if steps == 0 {
		steps = 10
	}
	if steps < 1 || steps > 10000 {
		return nil, fmt.Errorf("plots: WarpFigure: steps = %d out of range: must be in [1, 10000]", steps)
	}
	const n = 400
	eta := Panel{Legend: "none", Title: "(a) warp η(σ)", XLabel: "noise level σ", YLabel: "speed η(σ) (per unit solver time)"}
	rho := Panel{Legend: "bl", Title: "(b) induced trajectory ρ(s)", XLabel: "solver time s (0 = noise, 1 = data)", YLabel: "noise level σ = ρ(s)"}
	comp := Panel{Legend: "none", Title: "(c) multiplier over solver time η(ρ(s))", XLabel: "solver time s", YLabel: "η(ρ(s))"}
	step := Panel{Legend: "none", Title: fmt.Sprintf("(d) step sizes of an N = %d sampler", steps), XLabel: "step i", YLabel: "gradient multiplier η(ρ(i/N))/N", LogY: true}
	for k, w := range warps {
		if w == nil {
			return nil, fmt.Errorf("plots: WarpFigure: warp %d is nil", k)
		}
		style := Line
		if w.Attractor() {
			style = Dashed
		}
		name := warpLabel(w)
		var sx, ex, rx, ry, cy []float64
		for i := 0; i <= n; i++ {
			u := float64(i) / n
			sx = append(sx, u)
			ex = append(ex, w.Eta(u))
			r := w.Rho(u)
			rx = append(rx, u)
			ry = append(ry, r)
			cy = append(cy, w.Eta(r))
		}
		eta.Series = append(eta.Series, Series{Name: name, X: sx, Y: ex, Style: style, Color: k + 1})
		rho.Series = append(rho.Series, Series{Name: name, X: rx, Y: ry, Style: style, Color: k + 1})
		comp.Series = append(comp.Series, Series{Name: name, X: rx, Y: cy, Style: style, Color: k + 1})
		levels, err := eqflib.Levels(w, steps)
		if err != nil {
			return nil, err
		}
		var ix, iy []float64
		for i := 0; i < steps; i++ {
			ix = append(ix, float64(i))
			iy = append(iy, w.Eta(levels[i])/float64(steps))
		}
		st := LinePoints
		step.Series = append(step.Series, Series{Name: name, X: ix, Y: iy, Style: st, Color: k + 1})
	}
	return &Figure{Title: "η warps: speed, trajectory, composed multiplier and step sizes", Panels: []Panel{eta, rho, comp, step}, Cols: 2}, nil
}
