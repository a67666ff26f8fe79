package plots

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// go test ./plots -run TestGoldenFigures -regen rewrites testdata/golden/*.png (look at them
// before committing).
var regen = flag.Bool("regen", false, "rewrite the golden figures in testdata/golden")

// galleryFigures builds every static figure from data computed here: the exact Gaussian oracle
// (traces, bowls, field agreement, a traced rolling rollout), the warps, and fixed numbers for
// the figures whose inputs come from trained models (frontier, FVD over time, loss).
func galleryFigures(t *testing.T) map[string]*Figure {
	t.Helper()
	must := func(f *Figure, err error) *Figure {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Two sharp modes (std 0.05) in 64 dimensions: the oracle's σ posterior is narrow.
	const C, H, W = 1, 8, 8
	m1, m2 := make([]float64, C*H*W), make([]float64, C*H*W)
	for i := range m1 {
		m1[i] = 0.6 * math.Sin(float64(i))
		m2[i] = -0.5 * math.Cos(float64(i))
	}
	data, err := eqflib.NewMixture([]float64{0.5, 0.5}, [][]float64{m1, m2}, []float64{0.05, 0.05})
	if err != nil {
		t.Fatal(err)
	}
	oracle := func(kind eqflib.OracleKind) *eqflib.Oracle {
		o, err := eqflib.NewOracle(data, kind)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	fm, eqf := oracle(eqflib.OracleFM), oracle(eqflib.OracleEqF)
	rng := eqflib.NewRNG(3)
	x0, _ := eqflib.Randn(rng, 4, 4, C, H, W)
	warp, _ := eqflib.ParseWarp("c")

	// Traces: closed-loop EqF NAG (σ̂ from the readout) and FM Euler (σ̂ from g_φ, here the
	// oracle's estimator, in the callback).
	nag, err := eqflib.SampleNAG(eqf, x0, eqflib.Options{Steps: 20, Warp: warp, ClosedLoop: true, Momentum: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	trNAG, err := TraceFromResult("EqF NAG (closed loop)", nag)
	if err != nil {
		t.Fatal(err)
	}
	trFM := Trace{Name: "FM Euler"}
	if _, err := eqflib.SampleEuler(fm, x0, eqflib.Options{Steps: 20, Warp: warp, Callback: func(s eqflib.StepInfo) {
		est, err := fm.EstimateSigma(s.X)
		if err != nil {
			t.Fatal(err)
		}
		trFM.Sched = append(trFM.Sched, mean1(s.Level)-mean1(s.StepSize)) // the level after the step, where X is
		trFM.SigmaHat = append(trFM.SigmaHat, est)
		trFM.At = append(trFM.At, float64(s.Step+1)/20)
	}}); err != nil {
		t.Fatal(err)
	}

	// Bowls and agreement on clean samples of the oracle's data.
	clean, _ := data.Sample(rng, 8, 4, C, H, W)
	deltas := []float64{-0.07, -0.05, -0.03, -0.01, 0, 0.01, 0.03, 0.05, 0.07}
	bowls, err := eqflib.Bowls(fm, clean, 2, 0.3, deltas, 5)
	if err != nil {
		t.Fatal(err)
	}
	agree, err := eqflib.CompareFields(fm, eqf, clean, 9)
	if err != nil {
		t.Fatal(err)
	}

	// Noise-level divergence of a traced rolling rollout (the oracle's estimator as g_φ).
	ctx, _ := data.Sample(rng, 2, 2, C, H, W)
	var div []Curve
	for _, m := range []struct {
		name string
		f    eqflib.Field
		s    eqflib.FrameSampler
	}{
		{"FM Euler", fm, eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: warp}, Probe: fm}},
		{"EqF NAG closed loop", eqf, eqflib.FrameSampler{Sampler: eqflib.NAG, Options: eqflib.Options{Warp: warp, ClosedLoop: true, Momentum: 0.3}, Probe: fm}},
	} {
		roll, err := eqflib.Roll(m.f, ctx, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 10},
			Sampler: m.s, Frames: 12, Seed: 4, KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		d, err := eqflib.NoiseDivergence(roll.Trace, 12)
		if err != nil {
			t.Fatal(err)
		}
		div = append(div, Curve{Name: m.name, Values: d})
	}
	// FVD over time measured once by `eqf compare` (small maze models, 100 frames, 8 clips),
	// typed in; the frontier's numbers are illustrative, not measurements.
	fvd := []Curve{{Name: "FM Euler", Values: []float64{216.9, 292.2, 239.2, 322.5}}, {Name: "EqF NAG closed loop", Values: []float64{175.6, 223.6, 258.2, 354.1}}}
	frontier := []FrontierSeries{
		{Name: "FM Euler", NFE: []float64{2.5, 5, 10}, FVD: []float64{310, 232, 215}, FVDErr: []float64{14, 9, 11}, Labels: []string{"D=5", "D=10", "D=20"}},
		{Name: "EqF budget-adaptive NAG", NFE: []float64{2.5, 5, 10}, FVD: []float64{260, 224, 198}, FVDErr: []float64{12, 0, 8}, Labels: []string{"D=5", "D=10", "D=20"}},
	}
	var lossRuns []Run
	for k, name := range []string{"EqF", "FM"} {
		r := Run{Name: name}
		for s := 1; s <= 300; s++ {
			pt := eqflib.LossPoint{Step: s, Loss: (1 - 0.1*float64(k)) * (0.4 + 1.6*math.Exp(-float64(s)/80) + 0.05*math.Sin(float64(s)))}
			if s%50 == 0 {
				pt.ValLoss = (1 - 0.1*float64(k)) * (0.45 + 1.6*math.Exp(-float64(s)/80))
			}
			r.History = append(r.History, pt)
		}
		lossRuns = append(lossRuns, r)
	}
	return map[string]*Figure{
		"warps":     must(WarpFigure(DefaultWarps(), 10)),
		"traces":    must(TraceFigure([]Trace{trFM, trNAG}, 0.25)),
		"rollout":   must(RolloutFigure(div, fvd, 25, "maze-I3D")),
		"frontier":  must(FrontierFigure("Budget-adaptive sampling (illustrative numbers)", "maze-I3D", frontier)),
		"bowls":     must(BowlFigure([]NamedBowls{{Name: "FM (oracle)", Bowls: bowls}})),
		"agreement": must(AgreementFigure(agree)),
		"xpred":     must(XPredWeightFigure(4, 0.8)),
		"loss":      must(LossFigure(lossRuns, LossOptions{LogScale: true})),
	}
}

func mean1(v []float64) float64 { return mean(v) }

// TestGoldenFigures renders every static figure and compares it with its golden PNG, pixel by
// pixel (a pixel differs when a channel moves by more than 24/255; at most 0.3% may differ, for
// font rasterisation). Run with -regen to rewrite them.
func TestGoldenFigures(t *testing.T) {
	figs := galleryFigures(t)
	dir := filepath.Join("testdata", "golden")
	if *regen {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range figs {
		got, err := f.Bytes("png")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(dir, name+".png")
		if *regen {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run `go test ./plots -run TestGoldenFigures -regen`)", name, err)
		}
		if frac, err := pixelDiff(got, want); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if frac > 0.003 {
			_ = os.WriteFile(filepath.Join(t.TempDir(), name+".png"), got, 0o644)
			t.Errorf("%s: %.2f%% of pixels differ from %s", name, 100*frac, path)
		}
		// Every figure also renders as SVG and as an echarts page.
		if _, err := f.Bytes("svg"); err != nil {
			t.Errorf("%s svg: %v", name, err)
		}
		if _, err := f.Bytes("html"); err != nil {
			t.Errorf("%s html: %v", name, err)
		}
	}
}

func pixelDiff(a, b []byte) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 1, fmt.Errorf("size %v, golden %v", ia.Bounds(), ib.Bounds())
	}
	r := ia.Bounds()
	diff := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if differs(ia, ib, x, y) {
				diff++
			}
		}
	}
	return float64(diff) / float64(r.Dx()*r.Dy()), nil
}

func differs(a, b image.Image, x, y int) bool {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := func(p, q uint32) bool { return max(p, q)-min(p, q) > 24*257 }
	return d(r1, r2) || d(g1, g2) || d(b1, b2)
}
