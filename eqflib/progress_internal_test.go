package eqflib

import "testing"

// The time left, at the rate so far: hours and minutes for a long run, minutes and seconds, then
// seconds; nothing at the last step or before a rate exists.
func TestTimeLeft(t *testing.T) {
	for _, c := range []struct {
		step, until int
		rate        float64
		want        string
	}{
		{4288, 70000, 6.24, "  2h56m left"}, // 65,712 steps at 6.24/s: 10,531 s
		{0, 7200, 1, "  2h00m left"},
		{100, 400, 2, "  2m30s left"},
		{10, 22, 1, "  12s left"},
		{70000, 70000, 6.24, ""},
		{0, 100, 0, ""},
	} {
		if got := timeLeft(c.step, c.until, c.rate); got != c.want {
			t.Errorf("timeLeft(%d, %d, %g) = %q, want %q", c.step, c.until, c.rate, got, c.want)
		}
	}
}
