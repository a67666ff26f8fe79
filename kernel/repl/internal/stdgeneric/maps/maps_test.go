package maps

import (
	"fmt"
	std "maps"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
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
		// the iterators (in no fixed order: compared sorted), read to the end and stopped early
		stop := r.IntN(4)
		if got, want := read2(All(a), -1), read2(std.All(a), -1); got != want {
			t.Errorf("All(%v) gives %s, Go's maps gives %s", a, got, want)
		}
		if got, want := read(Keys(a), -1), read(std.Keys(a), -1); got != want {
			t.Errorf("Keys(%v) gives %s, Go's maps gives %s", a, got, want)
		}
		if got, want := read(Values(a), -1), read(std.Values(a), -1); got != want {
			t.Errorf("Values(%v) gives %s, Go's maps gives %s", a, got, want)
		}
		if got, want := len(strings.Fields(read(Keys(a), stop))), min(stop, len(a)); got != want {
			t.Errorf("Keys(%v) stopped after %d: %d keys", a, stop, got)
		}
		if got, want := Collect(All(a)), std.Collect(std.All(a)); fmt.Sprint(got) != fmt.Sprint(want) || got == nil {
			t.Errorf("Collect(All(%v)) = %v, Go's maps gives %v", a, got, want)
		}
		eq := func(x, y float64) bool { return x == y || x < 1 && y < 1 }
		if got, want := EqualFunc(a, b, eq), std.EqualFunc(a, b, eq); got != want {
			t.Errorf("EqualFunc(%v, %v) = %v, Go's maps gives %v", a, b, got, want)
		}
		if a == nil {
			continue
		}
		del, gdel := Clone(a), std.Clone(a)
		DeleteFunc(del, func(k int, v float64) bool { return k > 2 || v > 1 })
		std.DeleteFunc(gdel, func(k int, v float64) bool { return k > 2 || v > 1 })
		if fmt.Sprint(del) != fmt.Sprint(gdel) {
			t.Errorf("DeleteFunc(%v) = %v, Go's maps gives %v", a, del, gdel)
		}
		ins, gins := Clone(a), std.Clone(a)
		Insert(ins, All(b))
		std.Insert(gins, std.All(b))
		if fmt.Sprint(ins) != fmt.Sprint(gins) {
			t.Errorf("Insert(%v, All(%v)) = %v, Go's maps gives %v", a, b, ins, gins)
		}
		ours, gos := Clone(a), std.Clone(a)
		Copy(ours, b)
		std.Copy(gos, b)
		if fmt.Sprint(ours) != fmt.Sprint(gos) {
			t.Errorf("Copy(%v, %v) = %v, Go's maps gives %v", a, b, ours, gos)
		}
	}
}

// read is the values a range over seq gives up to its stop-th (all for stop < 0), sorted.
func read[E any](seq func(yield func(E) bool), stop int) string {
	var vs []string
	for v := range seq {
		if len(vs) == stop {
			break
		}
		vs = append(vs, fmt.Sprint(v))
	}
	sort.Strings(vs)
	return strings.Join(vs, " ")
}

// read2 is read of an iterator over pairs.
func read2[K, V any](seq func(yield func(K, V) bool), stop int) string {
	var vs []string
	for k, v := range seq {
		if len(vs) == stop {
			break
		}
		vs = append(vs, fmt.Sprint(k, ":", v))
	}
	sort.Strings(vs)
	return strings.Join(vs, " ")
}
