package eqflib

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
)

// readoutFieldGraph is a toy field with a readout, as a graph: v̂ = x − 0.3, σ̂ = sigmoid(mean x²
// − 1) per frame. Any graph serves: the test compares where the sampler's state lives.
func readoutFieldGraph(x, level *graph.Node) (*graph.Node, *graph.Node) {
	v := graph.AddScalar(x, -0.3)
	ms := graph.ReduceMean(graph.Square(x), 2, 3, 4)
	return v, graph.Sigmoid(graph.AddScalar(ms, -1))
}

// Every rule gives the same result with its state on the backend (one executor call per step) as
// on the host, for window samplers, rollouts (context, bake-in, sliding, emission) and
// inpainting, up to float64 rounding on a float64 graph.
func TestBackendStateMatchesHost(t *testing.T) {
	dev, err := NewGraphField(FieldInfo{Name: "toy", HasReadout: true}, dtypes.Float64, readoutFieldGraph)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := NewGraphField(FieldInfo{Name: "toy", HasReadout: true}, dtypes.Float64, readoutFieldGraph)
	host.HostState = true
	c := mustWarp(t, "c")
	const tol = 1e-12
	maxDiff := func(a, b *Window) float64 {
		d := 0.0
		for i := range a.Data {
			d = math.Max(d, math.Abs(a.Data[i]-b.Data[i]))
		}
		return d
	}
	for _, fs := range []FrameSampler{
		{Sampler: Euler, Options: Options{Warp: c}},
		{Sampler: GD, Options: Options{Warp: c, ClosedLoop: true}},
		{Sampler: NAG, Options: Options{Warp: c, ClosedLoop: true, Momentum: 0.3}},
		{Sampler: NAG, Options: Options{Warp: c, Momentum: 0.5}},
		{Sampler: LGD, Options: Options{Warp: c, ClosedLoop: true, Momentum: 0.3}},
		{Sampler: Budget, Options: Options{Momentum: 0.3}},
		{Sampler: EarlyStop, Options: Options{Warp: c, Momentum: 0.3, SigmaThresh: 0.5, Cleanup: 2}},
	} {
		t.Run(fs.String(), func(t *testing.T) {
			x0, _ := Randn(NewRNG(5), 2, 4, 3, 2, 2)
			o := fs.Options
			o.Steps = 8
			steps := 0
			o.Callback = func(StepInfo) { steps++ }
			a, err := sampleWindow(fs.Sampler, dev, x0, o)
			if err != nil {
				t.Fatal(err)
			}
			b, err := sampleWindow(fs.Sampler, host, x0, o)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(a.X, b.X); d > tol || a.NFE != b.NFE || steps != a.NFE+b.NFE {
				t.Fatalf("window: backend and host differ by %.3g (NFE %d vs %d, callbacks %d)", d, a.NFE, b.NFE, steps)
			}
			for i := range a.Trace {
				for fr := range a.Trace[i].StepSize {
					if d := math.Abs(a.Trace[i].StepSize[fr] - b.Trace[i].StepSize[fr]); d > tol {
						t.Fatalf("step %d frame %d: step size differs by %.3g", i, fr, d)
					}
				}
			}
			ctx, _ := Randn(NewRNG(6), 2, 2, 3, 2, 2)
			ro := RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Sampler: fs, Frames: 6, Seed: 9}
			ra, err := Roll(dev, ctx, ro)
			if err != nil {
				t.Fatal(err)
			}
			rb, err := Roll(host, ctx, ro)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(ra.Frames, rb.Frames); d > tol || ra.NFE != rb.NFE {
				t.Fatalf("rollout: backend and host differ by %.3g (NFE %d vs %d)", d, ra.NFE, rb.NFE)
			}
			known, _ := InpaintEnds(5, 1, 1)
			x5, _ := Randn(NewRNG(7), 2, 5, 3, 2, 2)
			fs.Depth = 8
			ia, err := Inpaint(dev, x5, known, InpaintOptions{Sampler: fs, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			ib, _ := Inpaint(host, x5, known, InpaintOptions{Sampler: fs, Seed: 3})
			if d := maxDiff(ia.X, ib.X); d > tol {
				t.Fatalf("inpainting: backend and host differ by %.3g", d)
			}
		})
	}
	// One graph per window shape (4, 6 and 5 frames); on the backend also one per warp (c, and the
	// identity of Budget), and a masked variant where early stopping keeps finished frames still:
	// compiled once, reused by every step.
	if dev.Compiles() != 7 || host.Compiles() != 3 {
		t.Errorf("compiles: backend %d, host %d (want 7 and 3)", dev.Compiles(), host.Compiles())
	}
}

// A velocity that turns NaN on the backend path stops sampling with the step and frame.
func TestBackendStateStopsOnNaN(t *testing.T) {
	gf, _ := NewGraphField(FieldInfo{Name: "nan", HasReadout: true}, dtypes.Float32, func(x, level *graph.Node) (*graph.Node, *graph.Node) {
		v, s := readoutFieldGraph(x, level)
		return graph.Div(v, graph.ReduceMax(graph.Abs(x), 2, 3, 4, 1, 0)), s // finite until x reaches 0
	})
	x0, _ := Randn(NewRNG(5), 1, 2, 1, 1, 1)
	x0.Data[0], x0.Data[1] = 0, 0
	_, err := SampleNAG(gf, x0, Options{Steps: 4, ClosedLoop: true, Momentum: 0.3})
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Step != 1 || nf.What != "velocity" {
		t.Fatalf("got %v, want a NonFiniteError at step 1", err)
	}
}

// A noise-unconditional DiT steps on modulations computed once per window (openStepState): a
// rollout whose actions change from frame to frame, so that every slide of the window changes
// them, equals the host path's (Forward with the conditioning in the graph, every step) to
// float64 rounding, computing the modulations once per window rather than once per step. A
// fresh DiT whose first graph is a sampler step creates its variables in Forward's order.
func TestModulatedStepMatchesForward(t *testing.T) {
	cfg := DiTPresets["tiny"]
	d, err := NewDiT(cfg, false, 1, dtypes.Float64)
	if err != nil {
		t.Fatal(err)
	}
	const L = 2 + 8 + 4 - 2 // context, generated frames and the last window's look-ahead
	cond := make([]float64, L*cfg.CondDim)
	for i := range cond {
		cond[i] = float64((i*7)%5)/2 - 1
	}
	ctx, _ := Randn(NewRNG(1), 1, 2, cfg.Channels, cfg.Height, cfg.Width)
	if _, err := d.WithConditions(cond[:2*cfg.CondDim]).Eval(ctx, nil, EvalOptions{}); err != nil {
		t.Fatal(err)
	}
	randomiseZeroInit(t, d, 2) // non-zero AdaLN layers and head
	warp := mustWarp(t, "c")
	ro := RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 8}, Frames: 8, Seed: 2,
		Conditions: cond, CondDim: cfg.CondDim,
		Sampler: FrameSampler{Sampler: NAG, Options: Options{Warp: warp, Momentum: 0.3}}}
	a, err := Roll(d, ctx, ro)
	if err != nil {
		t.Fatal(err)
	}
	runs := d.modRuns.Load()
	d.HostState = true
	b, err := Roll(d, ctx, ro)
	if err != nil {
		t.Fatal(err)
	}
	diff := maxAbsDiff(a.Frames.Data, b.Frames.Data)
	scale := maxAbsDiff(b.Frames.Data, make([]float64, len(b.Frames.Data))) // max |x|
	if diff > 1e-10*scale || a.NFE != b.NFE {
		t.Fatalf("modulated and host rollouts differ by %.3g (scale %.3g), NFE %d vs %d", diff, scale, a.NFE, b.NFE)
	}
	// Windows slide by the stride, 2 frames, and each slide brings new actions: 8 frames take 4
	// or 5 windows (the last may be shorter), each computing its modulations once.
	if runs < 4 || runs > 6 || int(runs) >= a.NFE {
		t.Errorf("the modulations ran %d times over %d steps, want once per window (4–6)", runs, a.NFE)
	}
	t.Logf("max |modulated − host| = %.3g (scale %.3g); modulations %d times, %d steps", diff, scale, runs, a.NFE)

	// Variables created by a first sampler step come in Forward's order.
	paths := func(d *DiT) (p []string) {
		for v := range d.Store.IterVariables() {
			p = append(p, v.Path())
		}
		return p
	}
	fresh, _ := NewDiT(cfg, false, 1, dtypes.Float64)
	if _, err := SampleGD(fresh.WithConditions(cond[:2*cfg.CondDim]), ctx, Options{Steps: 2}); err != nil {
		t.Fatal(err)
	}
	evaluated, _ := NewDiT(cfg, false, 1, dtypes.Float64)
	if _, err := evaluated.WithConditions(cond[:2*cfg.CondDim]).Eval(ctx, nil, EvalOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, q := paths(fresh), paths(evaluated); !slices.Equal(p, q) {
		t.Errorf("variables created by a first sampler step:\n%v\nby a first Eval:\n%v", p, q)
	}
}
