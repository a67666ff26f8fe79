package cmp

import (
	std "cmp"
	"math"
	"testing"
)

// The functions here against Go's cmp package on values that include NaNs, -0 and infinities.
func TestAgainstGo(t *testing.T) {
	vals := []float64{math.NaN(), math.Inf(-1), -2, math.Copysign(0, -1), 0, 0.5, 3, math.Inf(1)}
	for _, x := range vals {
		for _, y := range vals {
			if got, want := Less(x, y), std.Less(x, y); got != want {
				t.Errorf("Less(%v, %v) = %v, Go's cmp gives %v", x, y, got, want)
			}
			if got, want := Compare(x, y), std.Compare(x, y); got != want {
				t.Errorf("Compare(%v, %v) = %v, Go's cmp gives %v", x, y, got, want)
			}
		}
	}
	for _, s := range [][]string{nil, {""}, {"", "b", "c"}, {"a", ""}} {
		if got, want := Or(s...), std.Or(s...); got != want {
			t.Errorf("Or(%q) = %q, Go's cmp gives %q", s, got, want)
		}
	}
	if Compare("a", "b") != -1 || !Less(1, 2) {
		t.Errorf("strings or ints compared otherwise than Go's cmp")
	}
}
