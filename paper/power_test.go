package paper

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTPowerAgainstSimulation checks the power of a paired comparison against what stats.go's
// own interval and verdict do on simulated training seeds: differences drawn as N(δ, σ²), the
// verdict counted as Agrees. The integral must match the simulated rate within four standard
// errors; with no true difference it is exactly the one-sided tail, 2.5 %.
func TestTPowerAgainstSimulation(t *testing.T) {
	if p := tPower(3, 0, 1); math.Abs(p-0.025) > 1e-6 {
		t.Errorf("tPower(3, 0, 1) = %.6f, want 0.025 (the interval's upper tail)", p)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 20000
	for _, c := range []struct {
		n         int
		delta, sd float64
	}{{2, 30, 10}, {3, 2, 1}, {3, -39.79, 50}, {6, -39.79, 50}, {10, 1, 1}, {34, 0.5, 1}, {33, -0.5, 1}} {
		want := tPower(c.n, c.delta, c.sd)
		hits := 0
		d := make([]float64, c.n)
		for range trials {
			for i := range d {
				d[i] = c.delta + c.sd*rng.NormFloat64()
			}
			_, lo, hi := MeanInterval(d)
			if verdict(lo, hi, c.delta) == Agrees {
				hits++
			}
		}
		got := float64(hits) / trials
		se := math.Sqrt(want * (1 - want) / trials)
		if math.Abs(got-want) > 4*se+1e-4 {
			t.Errorf("n=%d δ=%g σ=%g: tPower %.4f, simulated %.4f (± %.4f)", c.n, c.delta, c.sd, want, got, se)
		}
	}
}

// TestSeedsFor checks the sample sizes of the paired t-test that power tables give (two-sided
// 5 %, power 80 %: effect size 1 needs 10, 0.5 needs 34), that one fewer falls short, and that the
// search caps and refuses as documented.
func TestSeedsFor(t *testing.T) {
	for _, c := range []struct {
		delta, sd float64
		want      int
	}{{1, 1, 10}, {-0.5, 1, 34}, {50, 0.5, 2}, {0.01, 1, maxSeeds + 1}, {0, 1, 0}, {1, 0, 0}, {1, math.NaN(), 0}} {
		got := seedsFor(c.delta, c.sd, planningPower)
		if got != c.want {
			t.Errorf("seedsFor(%g, %g) = %d, want %d", c.delta, c.sd, got, c.want)
			continue
		}
		if got >= 3 && got <= maxSeeds && (tPower(got, c.delta, c.sd) < planningPower || tPower(got-1, c.delta, c.sd) >= planningPower) {
			t.Errorf("seedsFor(%g, %g) = %d: power %.4f there, %.4f one seed fewer", c.delta, c.sd, got, tPower(got, c.delta, c.sd), tPower(got-1, c.delta, c.sd))
		}
	}
	if w := seedsWord(maxSeeds + 1); w != "> 1,000" {
		t.Errorf("seedsWord past the cap = %q", w)
	}
}

// TestDetectable checks that the detectable difference has the asked power, scales with σ and
// shrinks with more seeds.
func TestDetectable(t *testing.T) {
	for _, n := range []int{2, 3, 10} {
		d := detectable(n, 7, planningPower)
		if p := tPower(n, d, 7); math.Abs(p-planningPower) > 1e-6 {
			t.Errorf("n=%d: tPower at detectable %.4g = %.6f, want %.2f", n, d, p, planningPower)
		}
		if d2 := detectable(n, 14, planningPower); math.Abs(d2-2*d) > 1e-6*d {
			t.Errorf("n=%d: detectable at twice σ %.6g, want %.6g", n, d2, 2*d)
		}
	}
	if d3, d10 := detectable(3, 1, planningPower), detectable(10, 1, planningPower); !(d10 < d3) {
		t.Errorf("detectable with 10 seeds %.3g, not below 3 seeds' %.3g", d10, d3)
	}
	if d := detectable(1, 1, planningPower); !math.IsNaN(d) {
		t.Errorf("detectable with one seed = %g, want NaN", d)
	}
}

// TestSDInterval checks the 95 % interval of σ with three values (ν = 2: √(2/7.3778) and
// √(2/0.050636) times the sample SD) and the sample SD itself.
func TestSDInterval(t *testing.T) {
	lo, hi := sdInterval(10, 3)
	if math.Abs(lo-5.2065) > 1e-3 || math.Abs(hi-62.847) > 1e-2 {
		t.Errorf("sdInterval(10, 3) = [%.4f, %.4f], want [5.2065, 62.847]", lo, hi)
	}
	if sd := sampleSD([]float64{1, 2, 3, 4}); math.Abs(sd-math.Sqrt(5.0/3)) > 1e-12 {
		t.Errorf("sampleSD(1…4) = %g, want √(5/3)", sd)
	}
}

// TestSeedsMarkdown checks which comparisons the section takes (a difference the paper states,
// with per-seed values) and what a row says.
func TestSeedsMarkdown(t *testing.T) {
	seeds := []int{1, 2, 3}
	rs := []*Result{{Name: "minecraft_main", TrainSeeds: seeds, Numbers: []Number{
		{Name: "S=1: EqF − FM", Stride: 1, Paper: "-39.79", Verdict: Inconclusive, PerSeed: []float64{10, 20, 60}},
		{Name: "a side", Paper: "< 0 (EqF best)", Verdict: Inconclusive, PerSeed: []float64{1, 2, 3}},
		{Name: "a range", Paper: "+13 to +29", Verdict: Inconclusive, PerSeed: []float64{1, 2, 3}},
		{Name: "one seed", Paper: "-2", Verdict: Inconclusive, PerSeed: []float64{1}},
		{Name: "no verdict", Paper: "-2", PerSeed: []float64{1, 2, 3}},
		{Name: "with a note", Stride: 2, Paper: "-4.1 (45.7 − 49.8)", Verdict: Agrees, PerSeed: []float64{-4, -5, -6}},
	}}}
	md := SeedsMarkdown(rs)
	rows := 0
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| minecraft_main |") {
			rows++
		}
	}
	if rows != 2 || !strings.Contains(md, "| S=1: EqF − FM | 1 | 3 | 26.5 |") || !strings.Contains(md, "| with a note | 2 | 3 | 1 |") {
		t.Fatalf("SeedsMarkdown: %d rows, want the two with a stated size and several seeds:\n%s", rows, md)
	}
	// σ = 26.5 against the paper's 39.79, and at the ends of σ's interval [13.8, 166]: fewer
	// seeds at its low end, many more at its high end.
	sd := sampleSD([]float64{10, 20, 60})
	lo, hi := sdInterval(sd, 3)
	n, nLo, nHi := seedsFor(-39.79, sd, planningPower), seedsFor(-39.79, lo, planningPower), seedsFor(-39.79, hi, planningPower)
	if !(nLo < n && n < nHi) || !strings.Contains(md, fmt.Sprintf("| -39.79 | %d [%d, %d] |", n, nLo, nHi)) {
		t.Errorf("seeds for the paper's size %d [%d, %d]; section:\n%s", n, nLo, nHi, md)
	}
	// The first row needs 6 seeds; the second (σ 1 against 4.1: 3.26 detectable) has enough with its 3 and agrees.
	if !strings.Contains(md, "- 1 of 2 comparisons have seeds enough") || !strings.Contains(md, "1 of those agree with the paper, and where the other 0 do not") ||
		!strings.Contains(md, "- The other 1 need more training seeds") {
		t.Errorf("SeedsMarkdown's counts:\n%s", md)
	}
	if SeedsMarkdown([]*Result{{Name: "bowls"}}) != "" {
		t.Error("SeedsMarkdown without comparisons is not empty")
	}
}
