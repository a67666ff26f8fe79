package maps

import (
	"fmt"
	std "maps"
	"math"
	"math/rand/v2"
	"testing"
)

// The functions here against Go's maps package on random maps.
func TestAgainstGo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	random := func() map[int]float64 {
		if r.IntN(8) == 0 {
			return nil
		}
		m := map[int]float64{}
		for range r.IntN(6) {
			m[r.IntN(5)] = []float64{0, 1, 2, math.NaN()}[r.IntN(4)]
		}
		return m
	}
	for range 500 {
		a, b := random(), random()
		if got, want := Equal(a, b), std.Equal(a, b); got != want {
			t.Errorf("Equal(%v, %v) = %v, Go's maps gives %v", a, b, got, want)
		}
		if got, want := Clone(a), std.Clone(a); fmt.Sprint(got) != fmt.Sprint(want) || (got == nil) != (want == nil) {
			t.Errorf("Clone(%v) = %v, Go's maps gives %v", a, got, want)
		}
		if a == nil {
			continue
		}
		ours, gos := Clone(a), std.Clone(a)
		Copy(ours, b)
		std.Copy(gos, b)
		if fmt.Sprint(ours) != fmt.Sprint(gos) {
			t.Errorf("Copy(%v, %v) = %v, Go's maps gives %v", a, b, ours, gos)
		}
	}
}
