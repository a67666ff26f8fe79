package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// Both sides' outputs parse: Go's "value unit" benchmark line and the peer's "unit value".
func TestParseMetric(t *testing.T) {
	goOut := "goos: linux\nBenchmarkTrainStep/medium-2  3  812345678 ns/op  1.231 steps/s  812.3 ms/step\nPASS\n"
	if v, err := parseMetric([]byte(goOut), "ms/step"); err != nil || v != 812.3 {
		t.Errorf("Go line: %g, %v", v, err)
	}
	if v, err := parseMetric([]byte("ms/step 41.5\n"), "ms/step"); err != nil || v != 41.5 {
		t.Errorf("peer line: %g, %v", v, err)
	}
	if v, err := parseMetric([]byte("BenchmarkMatMul1024-2 10 1 ns/op 91.2 GFLOP/s\n"), "GFLOP/s"); err != nil || v != 91.2 {
		t.Errorf("matmul line: %g, %v", v, err)
	}
	if _, err := parseMetric([]byte("FAIL\n"), "ms/step"); err == nil {
		t.Error("no metric: want an error")
	}
}

func TestStats(t *testing.T) {
	if m, lo, hi := stats([]float64{3, 1, 2}); m != 2 || lo != 1 || hi != 3 {
		t.Errorf("odd: %g [%g, %g]", m, lo, hi)
	}
	if m, _, _ := stats([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("even: median %g, want 2.5", m)
	}
	if m, _, _ := stats(nil); !math.IsNaN(m) {
		t.Errorf("empty: %g", m)
	}
}

// Every row names a preset that exists and carries a positive FLOP count; a training step is
// 3 forward passes of a batch of 8.
func TestRows(t *testing.T) {
	for _, r := range rows() {
		if !r.matmul && !(r.flops > 0) {
			t.Errorf("%s: %g FLOPs", r.name, r.flops)
		}
	}
	if got, want := rows()[3].flops, 24*eqflib.DiTPresets["medium"].FLOPs(4); rows()[3].name != "TrainStep medium" || got != want {
		t.Errorf("%s: %g FLOPs, want %g", rows()[3].name, got, want)
	}
}

// peerCore keeps the fastest kernel set: with a fake peer whose SkylakeX kernels run at 300
// GFLOP/s, its own detection (Haswell) at 150 and every other set at 100, it picks SKYLAKEX where
// the processor has AVX-512 and OpenBLAS's detection elsewhere, whatever OPENBLAS_CORETYPE the
// environment holds (it is one candidate more); -peer-core fixes the choice without a probe.
func TestPeerCore(t *testing.T) {
	py := filepath.Join(t.TempDir(), "fakepy")
	script := `#!/bin/sh
case "$OPENBLAS_CORETYPE" in
  SKYLAKEX) echo "Core: SkylakeX" >&2; echo "GFLOP/s 300";;
  "") echo "Core: Haswell" >&2; echo "GFLOP/s 150";;
  *) echo "Core: $OPENBLAS_CORETYPE" >&2; echo "GFLOP/s 100";;
esac
`
	if err := os.WriteFile(py, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f := cpuFlags()
	want, wantName := "", "Haswell"
	if runtime.GOARCH == "amd64" && f["avx512f"] && f["avx512bw"] && f["avx512dq"] && f["avx512vl"] && f["avx512cd"] {
		want, wantName = "SKYLAKEX", "SkylakeX"
	}
	for _, set := range []string{"", "Piledriver"} {
		t.Setenv("OPENBLAS_CORETYPE", set)
		core, note, err := peerCore(py, "peer.py", os.Environ(), "")
		if err != nil {
			t.Fatal(err)
		}
		if core != want || !strings.Contains(note, "OpenBLAS core "+wantName+",") || !strings.Contains(note, "Haswell (its own detection) 150") ||
			(set != "" && !strings.Contains(note, set+" 100")) {
			t.Errorf("OPENBLAS_CORETYPE=%q: core %q (%s), want %q", set, core, note, want)
		}
	}
	if core, note, err := peerCore("/nonexistent/python", "peer.py", nil, "ZEN"); err != nil || core != "ZEN" || !strings.Contains(note, "ZEN (-peer-core)") {
		t.Errorf("-peer-core: %q %q %v", core, note, err)
	}
	if _, _, err := peerCore("/nonexistent/python", "peer.py", nil, ""); err == nil || !strings.Contains(err.Error(), "probing the peer's OpenBLAS core") {
		t.Errorf("a peer that does not start: %v", err)
	}
}
