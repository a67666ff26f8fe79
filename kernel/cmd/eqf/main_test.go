package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

func TestSettings(t *testing.T) {
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	tc := eqflib.DefaultTrainConfig(obj)
	dc := eqflib.DiTPresets["tiny"]
	s := settings{}
	if err := s.Set("lr=0.01"); err != nil {
		t.Fatal(err)
	}
	s.Set("depth=3")
	if err := applySettings(s, &tc, &dc); err != nil || tc.LR != 0.01 || dc.Depth != 3 {
		t.Errorf("applySettings: %v, lr %g depth %d", err, tc.LR, dc.Depth)
	}
	if err := s.Set("novalue"); err == nil {
		t.Error("-set without = accepted")
	}
	for _, bad := range []settings{{"speed": "1"}, {"lr": "fast"}} {
		if err := applySettings(bad, &tc, &dc); err == nil || !strings.Contains(err.Error(), "-set") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// A tiny train → readout → sample run writes everything it promises.
func TestTrainThenSample(t *testing.T) {
	dir := t.TempDir()
	a, err := parseTrainArgs("train", []string{"-preset", "tiny", "-steps", "6", "-readout-steps", "3", "-out", dir, "-ckpt-every", "3", "-eval-every", "3"}, defaultTrain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train(a); err != nil {
		t.Fatal(err)
	}
	s, err := parseSampleArgs("sample", []string{"-ckpt", dir, "-out", dir, "-frames", "6", "-steps", "3"}, defaultSample)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample(s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"history.csv", "history.json", "loss.png", "stats.json", "rollout.gif", "rollout.png", "truth.png", "ckpt-00000006.eqf"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// resuming at the final step trains nothing more and keeps the history
	a.resume = true
	if _, err := train(a); err != nil {
		t.Fatal(err)
	}
	bad, _ := parseSampleArgs("sample", []string{"-ckpt", dir, "-context", "4"}, defaultSample)
	if err := sample(bad); err == nil {
		t.Error("-context 4 with a 4-frame window was accepted")
	}
}
