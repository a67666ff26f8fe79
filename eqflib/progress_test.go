package eqflib_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// Outside a terminal (here a buffer) Trainer.Run writes whole lines, a few of them, never a
// carriage return; with EQF_PROGRESS=live it redraws one bar and ends its line.
func TestProgressOutsideATerminal(t *testing.T) {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch, cfg.LR, cfg.Warmup = 2, 1e-3, 2
	run := func(steps int) string {
		m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
		tr, err := eqflib.NewTrainer(m, train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tr.Run(steps, eqflib.RunOptions{Progress: &buf}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}

	t.Setenv("EQF_PROGRESS", "")
	const steps = 40
	out := run(steps)
	if strings.Contains(out, "\r") {
		t.Errorf("a carriage return in a log: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// one line per 5 % bucket at most (the 30 s clock never fires in this short run), plus the last
	if len(lines) > 100/eqflib.DefaultProgressPercent+1 || len(lines) < 2 {
		t.Errorf("%d progress lines for %d steps, want 2…%d:\n%s", len(lines), steps, 100/eqflib.DefaultProgressPercent+1, out)
	}
	for _, l := range lines {
		if len(l) > 120 {
			t.Errorf("a progress line of %d characters: %q", len(l), l)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "step 40/40 (100%)  loss ") || strings.Contains(last, "left") {
		t.Errorf("last line %q, want the final step with no time left", last)
	}
	left := regexp.MustCompile(`steps/s  ([1-9]\d*h[0-5]\dm|[1-5]?\dm[0-5]\ds|[1-5]?\ds) left$`)
	for _, l := range lines[:len(lines)-1] {
		if !left.MatchString(l) {
			t.Errorf("progress line %q does not end with the time left", l)
		}
	}

	t.Setenv("EQF_PROGRESS", "live")
	out = run(3)
	if strings.Count(out, "\r") != 3 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("live bar: want 3 redraws and one final newline, got %q", out)
	}
}
