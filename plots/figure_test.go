package plots

import "testing"

// The default legend goes to the corner with the fewest data points: a curve rising to the top
// right leaves the top left free; a curve that fills every corner but the bottom left gets it.
func TestLegendEmptiestCorner(t *testing.T) {
	id := func(v float64) float64 { return v }
	rising := Panel{Series: []Series{{Name: "a", X: []float64{0, 1, 2, 3, 4}, Y: []float64{0, 1, 2, 3, 4}}}}
	if c := emptiestCorner(rising, id, id); c != "tl" {
		t.Errorf("rising curve: legend at %q, want tl", c)
	}
	falling := Panel{Series: []Series{{Name: "a", X: []float64{0, 1, 2, 3, 4}, Y: []float64{4, 3, 2, 1, 0}}}}
	if c := emptiestCorner(falling, id, id); c != "tr" {
		t.Errorf("falling curve: legend at %q, want tr", c)
	}
	three := Panel{Series: []Series{{Name: "a", X: []float64{0, 4, 4, 2}, Y: []float64{4, 4, 0, 2}}}}
	if c := emptiestCorner(three, id, id); c != "bl" {
		t.Errorf("three corners taken: legend at %q, want bl", c)
	}
	if c := emptiestCorner(Panel{}, id, id); c != "tr" {
		t.Errorf("no data: legend at %q, want tr", c)
	}
}
