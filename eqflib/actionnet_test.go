package eqflib_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

func TestActionNetFeatures(t *testing.T) {
	train, val := tinyMaze(t, 4)
	cfg := eqflib.DefaultProbeConfig()
	cfg.Batch, cfg.LR = 16, 3e-3
	n, err := eqflib.NewActionNet(3, 16, 16, 3, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Train(train, 300); err != nil {
		t.Fatal(err)
	}
	acc, err := n.Accuracy(val, 32)
	if err != nil {
		t.Fatal(err)
	}
	// The majority class's share of the validation transitions is the bar to beat.
	counts := make([]float64, 3)
	idx := make([]int, 32)
	for i := range idx {
		idx[i] = i
	}
	_, cond, _ := eqflib.LoadBatch(val, idx)
	for b := 0; b < 32; b++ {
		for tt := 1; tt < 4; tt++ {
			for a := 0; a < 3; a++ {
				counts[a] += cond[(b*4+tt)*3+a]
			}
		}
	}
	majority := max(counts[0], counts[1], counts[2]) / (32 * 3)
	t.Logf("action accuracy %.3f (majority class %.3f)", acc, majority)
	if acc < majority+0.15 {
		t.Errorf("action net accuracy %.3f does not beat the majority class %.3f by 0.15", acc, majority)
	}

	// Action agreement (balanced accuracy: chance is 1/3 whatever the class shares): real clips scored against themselves give exactly 1; the same clips played
	// backwards (forward motion reversed, left and right swapped) with the original actions fall
	// far below it.
	all, allCond, _ := eqflib.LoadBatch(val, idx)
	self, err := eqflib.ActionAgreement(n, all, allCond, all, allCond)
	if err != nil || self.Ratio != 1 || self.Real < 0.5 || self.Transitions != 32*3 {
		t.Errorf("real vs real: %v (%v), want ratio 1, balanced accuracy above 0.5, 96 transitions", self, err)
	}
	back := all.Clone()
	for b := 0; b < 32; b++ {
		for tt := 0; tt < 4; tt++ {
			copy(back.Frame(b*4+tt), all.Frame(b*4+3-tt))
		}
	}
	rev, err := eqflib.ActionAgreement(n, back, allCond, all, allCond)
	t.Logf("backwards clips: %v", rev)
	if err != nil || rev.Ratio > 0.6 {
		t.Errorf("backwards clips: %v (%v), want an agreement ≤ 0.6", rev, err)
	}
	if _, err := eqflib.ActionAgreement(n, all, allCond[:10], all, allCond); err == nil {
		t.Error("conditions of the wrong length were accepted")
	}
	// The real side computed once (what zoo's Clips.Score keeps) gives the same agreement.
	realAcc, err := eqflib.BalancedActionAccuracy(n, all, allCond)
	if err != nil || realAcc != self.Real {
		t.Errorf("BalancedActionAccuracy = %v (%v), want ActionAgreement's Real %v", realAcc, err, self.Real)
	}
	if again, err := eqflib.ActionAgreementAgainst(n, back, allCond, realAcc); err != nil || again != rev {
		t.Errorf("ActionAgreementAgainst = %v (%v), want ActionAgreement's %v", again, err, rev)
	}
	for _, bad := range []float64{0, -0.1, 1.5, math.NaN()} {
		if _, err := eqflib.ActionAgreementAgainst(n, back, allCond, bad); err == nil || !strings.Contains(err.Error(), "real") {
			t.Errorf("ActionAgreementAgainst(real = %v): %v, want an error naming real", bad, err)
		}
	}
	if _, err := eqflib.BalancedActionAccuracy(nil, all, allCond); err == nil || !strings.Contains(err.Error(), "net") {
		t.Errorf("BalancedActionAccuracy(nil net): %v, want an error naming net", err)
	}

	// Save/load round trip gives identical features; a truncated file is refused.
	path := filepath.Join(t.TempDir(), "action.eqf")
	if err := n.Save(path); err != nil {
		t.Fatal(err)
	}
	m, err := eqflib.LoadActionNet(path)
	if err != nil {
		t.Fatal(err)
	}
	x, _, _ := eqflib.LoadBatch(val, idx[:8])
	fa, _ := n.Features(x)
	fb, err := m.Features(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fa {
		for j := range fa[i] {
			if fa[i][j] != fb[i][j] {
				t.Fatalf("reloaded features differ")
			}
		}
	}
	raw, _ := os.ReadFile(path)
	os.WriteFile(path, raw[:len(raw)/2], 0o644)
	if _, err := eqflib.LoadActionNet(path); err == nil {
		t.Error("truncated action net loaded")
	}

	// In its feature space, real clips are closer to real clips than to noise.
	a, _, _ := eqflib.LoadBatch(val, idx[:16])
	b, _, _ := eqflib.LoadBatch(val, idx[16:])
	noise, _ := eqflib.Randn(eqflib.NewRNG(2), 16, 4, 3, 16, 16)
	real, err := eqflib.ComputeFVD(n, a, b)
	if err != nil {
		t.Fatal(err)
	}
	fake, _ := eqflib.ComputeFVD(n, noise, b)
	t.Logf("%v vs noise %v", real, fake)
	if !(real.Value < fake.Value/2) || real.Features != "maze-I3D" {
		t.Errorf("real-vs-real %v not well below noise-vs-real %v", real, fake)
	}
}
