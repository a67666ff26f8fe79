package eqflib

import (
	"math"
	"strings"
	"testing"
)

// Prop. 4.1 on the exact oracle: L_EqF − L_FM = E‖f_FM − f_EqF‖² (up to Monte-Carlo error),
// and the identity fails when the roles are swapped (the EqF field is not the conditional
// expectation given σ), so the check can fail.
func TestRiskDecompositionOnOracle(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 4)
	x, _ := data.Sample(NewRNG(5), 64, 8, 4, 1, 1)
	a, err := CompareFields(fm, eqf, x, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gap %.5f field MSE %.5f (SE %.5f), Pearson %.4f, relative %.4f", a.Gap, a.FieldMSE, a.GapSE, a.Pearson, a.RelFieldMSE)
	if a.FieldMSE <= 0 || math.Abs(a.Gap-a.FieldMSE) > 4*a.GapSE {
		t.Errorf("identity: gap %.6f vs field MSE %.6f (4 SE = %.6f)", a.Gap, a.FieldMSE, 4*a.GapSE)
	}
	if !(a.LossEqF > a.LossFM && a.Pearson > 0.9 && a.Pearson < 1 && a.RelFieldMSE > 0 && a.RelFieldMSE < 0.2) {
		t.Errorf("agreement out of range: %+v", a)
	}
	sw, _ := CompareFields(eqf, fm, x, 1)
	if math.Abs(sw.Gap-sw.FieldMSE) < 4*sw.GapSE {
		t.Errorf("swapped roles still satisfy the identity: gap %.6f field %.6f SE %.6f", sw.Gap, sw.FieldMSE, sw.GapSE)
	}
}

func TestBowlsOnOracle(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 4)
	x, _ := data.Sample(NewRNG(5), 512, 6, 4, 1, 1)
	deltas := []float64{-0.07, -0.03, 0, 0.03, 0.07}
	b, err := Bowls(fm, x, 2, 0.3, deltas, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.HorizonOnly[2] != 0 || b.WithContext[2] != 0 {
		t.Errorf("δ = 0 must add nothing: %v %v", b.HorizonOnly[2], b.WithContext[2])
	}
	if !(b.HorizonOnly[0] > b.HorizonOnly[1] && b.HorizonOnly[1] > 0 && b.HorizonOnly[4] > b.HorizonOnly[3] && b.HorizonOnly[3] > 0) {
		t.Errorf("not a bowl: %v", b.HorizonOnly)
	}
	// The oracle's frames are independent, so telling the context a wrong level changes nothing.
	for i := range deltas {
		if b.WithContext[i] != b.HorizonOnly[i] {
			t.Errorf("δ=%v: context term %v ≠ horizon-only %v on frame-independent data", deltas[i], b.WithContext[i], b.HorizonOnly[i])
		}
	}
	if _, err := Bowls(eqf, x, 2, 0.3, deltas, 3); err == nil {
		t.Error("Bowls accepted a noise-unconditional field")
	}
}

func TestDivergenceAndTermination(t *testing.T) {
	data, _, fm, eqf := gaussianOracles(t, 64)
	ctx, _ := Randn(NewRNG(3), 2, 2, 64, 1, 1)
	res, err := Roll(fm, ctx, RollOptions{RollConfig: RollConfig{Context: 2, Horizon: 4, Stride: 2, Depth: 40},
		Sampler: FrameSampler{Sampler: Euler, Probe: eqf}, Frames: 6, KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	div, err := NoiseDivergence(res.Trace, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range div {
		// The exact FM field on its own schedule stays on the noise level it is told (to within
		// the posterior's spread, which concentrates in 64 dimensions).
		if !(d >= 0 && d < 0.1) {
			t.Errorf("frame %d: divergence %v", i, d)
		}
	}
	if _, err := NoiseDivergence(res.Trace[:0], 6); err == nil {
		t.Error("empty trace accepted")
	}
	// Termination levels read the noise left in finished frames: half-denoised (σ = 0.3)
	// frames miss the 0.2 level, clean frames do not miss 0.05.
	clean, _ := data.Sample(NewRNG(4), 8, 2, 64, 1, 1)
	eps, _ := Randn(NewRNG(6), 8, 2, 64, 1, 1)
	noisy, _ := Noise(clean, eps, fill(16, 0.3))
	ln, _ := TerminationLevels(eqf, noisy)
	lc, _ := TerminationLevels(eqf, clean)
	mn, mc := MissRates(ln, []float64{0.05, 0.2, 0.5}), MissRates(lc, []float64{0.05, 0.2, 0.5})
	if !(mn[0] == 1 && mn[1] > 0.8 && mn[2] == 0 && mc[0] < 0.2 && mc[1] == 0) {
		t.Errorf("miss rates σ=0.3 %v, clean %v", mn, mc)
	}
	if _, err := TerminationLevels(fm, clean); err != nil {
		t.Errorf("the FM oracle has a readout too: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	x := MustNewWindow(1, 3, 1, 2, 2)
	ref := NewWindowLike(x)
	for i := range x.Data {
		x.Data[i] = float64(i / 4) // frame t is constant t
	}
	mse, _ := FrameMSE(x, ref)
	if mse[0] != 0 || mse[1] != 1 || mse[2] != 4 {
		t.Errorf("MSE %v", mse)
	}
	p, _ := PSNR(mse[1:], 2)
	if math.Abs(p[0]-10*math.Log10(4)) > 1e-12 {
		t.Errorf("PSNR %v", p)
	}
	fl, _ := Flicker(x)
	if fl != 1 {
		t.Errorf("flicker %v, want 1", fl)
	}
	big := MustNewWindow(4, 6, 1, 4, 4)
	for i := range big.Data {
		big.Data[i] = float64(i % 7)
	}
	pf := PixelFeatures{Size: 2}
	feats, err := pf.Features(big)
	if err != nil || len(feats) != 4 || len(feats[0]) != 6*4 {
		t.Fatalf("pixel features %v, %d×%d", err, len(feats), len(feats[0]))
	}
	// First 2×2 block of frame 0 of clip 0: indices 0,1,4,5 → values 0,1,4,5 → mean 2.5.
	if feats[0][0] != 2.5 {
		t.Errorf("pooled value %v, want 2.5", feats[0][0])
	}
	over, err := FVDOverTime(pf, big, big, 3)
	if err != nil || len(over) != 2 || over[0].Value != 0 || !strings.Contains(over[0].String(), "pixels-2x2 features") {
		t.Errorf("FVD over time %v %v", over, err)
	}
	if _, err := (PixelFeatures{Size: 3}).Features(big); err == nil {
		t.Error("size 3 accepted for 4×4 frames")
	}
}
