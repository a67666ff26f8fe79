package main

import (
	"math"
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
