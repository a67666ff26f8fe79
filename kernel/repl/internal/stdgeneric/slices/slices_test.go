package slices

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	std "slices"
	"strings"
	"testing"
)

// The functions here against Go's slices package on random inputs: the same results, the same
// slices left behind (the array's elements past the result's length too), the same panics.

// outcome runs f and returns what it returned or its panic, and the array of s after it.
func outcome[E any](s []E, f func(s []E) any) string {
	var got any
	func() {
		defer func() {
			if r := recover(); r != nil {
				got = "panic"
			}
		}()
		got = f(s)
	}()
	return fmt.Sprintf("%v | %v", got, s[:cap(s)])
}

func same[E any](t *testing.T, what string, x []E, ours, goes func(s []E) any) {
	t.Helper()
	a, b := append(make([]E, 0, cap(x)), x...), append(make([]E, 0, cap(x)), x...)
	if o, g := outcome(a, ours), outcome(b, goes); o != g {
		t.Errorf("%s of %v: got %s, Go's slices gives %s", what, x, o, g)
	}
}

// randomFloats is n values from a small set (so runs, repeats and NaNs occur), with room after.
func randomFloats(r *rand.Rand, n int) []float64 {
	set := []float64{math.NaN(), math.Inf(-1), -2, -1, math.Copysign(0, -1), 0, 0.5, 1, 3, math.Inf(1)}
	x := make([]float64, n, n+r.IntN(4))
	for i := range x {
		x[i] = set[r.IntN(len(set))]
	}
	return x
}

func TestAgainstGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	byKey := func(a, b float64) int { return cmp.Compare(math.Floor(a/2), math.Floor(b/2)) }
	for trial := range 400 {
		n := r.IntN(40)
		if trial%50 == 0 {
			n = 100 + r.IntN(400) // past the insertion runs: the merges
		}
		x, y := randomFloats(r, n), randomFloats(r, r.IntN(6))
		i, j := r.IntN(n+2), r.IntN(n+2)
		v := randomFloats(r, r.IntN(4))
		f := func(a float64) bool { return a > 0.5 }
		eq := func(a, b float64) bool { return math.Floor(a) == math.Floor(b) }
		same(t, "Equal", x, func(s []float64) any { return Equal(s, y) }, func(s []float64) any { return std.Equal(s, y) })
		same(t, "Equal self", x, func(s []float64) any { return Equal(s, s) }, func(s []float64) any { return std.Equal(s, s) })
		same(t, "Compare", x, func(s []float64) any { return Compare(s, y) }, func(s []float64) any { return std.Compare(s, y) })
		same(t, "Insert", x, func(s []float64) any { return Insert(s, i, v...) }, func(s []float64) any { return std.Insert(s, i, v...) })
		same(t, "Delete", x, func(s []float64) any { return Delete(s, i, j) }, func(s []float64) any { return std.Delete(s, i, j) })
		same(t, "DeleteFunc", x, func(s []float64) any { return DeleteFunc(s, f) }, func(s []float64) any { return std.DeleteFunc(s, f) })
		same(t, "Replace", x, func(s []float64) any { return Replace(s, i, j, v...) }, func(s []float64) any { return std.Replace(s, i, j, v...) })
		same(t, "Replace self", x, func(s []float64) any { return Replace(s, min(i, len(s)), len(s), s[:min(2, len(s))]...) },
			func(s []float64) any { return std.Replace(s, min(i, len(s)), len(s), s[:min(2, len(s))]...) })
		same(t, "Clone", x, func(s []float64) any { return Clone(s) }, func(s []float64) any { return std.Clone(s) })
		same(t, "Compact", x, func(s []float64) any { return Compact(s) }, func(s []float64) any { return std.Compact(s) })
		same(t, "CompactFunc", x, func(s []float64) any { return CompactFunc(s, eq) }, func(s []float64) any { return std.CompactFunc(s, eq) })
		same(t, "Grow", x, func(s []float64) any { return cap(Grow(s, i-2)) >= len(s)+i-2 }, func(s []float64) any { return cap(std.Grow(s, i-2)) >= len(s)+i-2 })
		same(t, "Clip", x, func(s []float64) any { return cap(Clip(s)) }, func(s []float64) any { return cap(std.Clip(s)) })
		same(t, "Reverse", x, func(s []float64) any { Reverse(s); return nil }, func(s []float64) any { std.Reverse(s); return nil })
		same(t, "EqualFunc", x, func(s []float64) any { return EqualFunc(s, y, eq) }, func(s []float64) any { return std.EqualFunc(s, y, eq) })
		same(t, "CompareFunc", x, func(s []float64) any { return CompareFunc(s, y, byKey) }, func(s []float64) any { return std.CompareFunc(s, y, byKey) })
		same(t, "IndexFunc", x, func(s []float64) any { return IndexFunc(s, f) }, func(s []float64) any { return std.IndexFunc(s, f) })
		same(t, "ContainsFunc", x, func(s []float64) any { return ContainsFunc(s, f) }, func(s []float64) any { return std.ContainsFunc(s, f) })
		same(t, "Index", x, func(s []float64) any { return Index(s, 1) }, func(s []float64) any { return std.Index(s, 1) })
		same(t, "Contains", x, func(s []float64) any { return Contains(s, 3) }, func(s []float64) any { return std.Contains(s, 3) })
		same(t, "Concat", x, func(s []float64) any { return Concat(s, y, s) }, func(s []float64) any { return std.Concat(s, y, s) })
		same(t, "Repeat", x, func(s []float64) any { return Repeat(s, i-1) }, func(s []float64) any { return std.Repeat(s, i-1) })
		// Go's Sort and SortFunc are not stable (elements that compare equal, -0 and 0, NaNs, may
		// come in any order); these are: they give Go's stable sort.
		same(t, "Sort", x, func(s []float64) any { Sort(s); return nil }, func(s []float64) any { std.SortStableFunc(s, cmp.Compare); return nil })
		same(t, "SortStableFunc", x, func(s []float64) any { SortStableFunc(s, byKey); return nil }, func(s []float64) any { std.SortStableFunc(s, byKey); return nil })
		same(t, "SortFunc", x, func(s []float64) any { SortFunc(s, byKey); return nil }, func(s []float64) any { std.SortStableFunc(s, byKey); return nil })
		same(t, "IsSorted", x, func(s []float64) any { return IsSorted(s) }, func(s []float64) any { return std.IsSorted(s) })
		same(t, "IsSortedFunc", x, func(s []float64) any { return IsSortedFunc(s, byKey) }, func(s []float64) any { return std.IsSortedFunc(s, byKey) })
		same(t, "Min", x, func(s []float64) any { return fmt.Sprint(Min(s)) }, func(s []float64) any { return fmt.Sprint(std.Min(s)) })
		same(t, "Max", x, func(s []float64) any { return fmt.Sprint(Max(s)) }, func(s []float64) any { return fmt.Sprint(std.Max(s)) })
		same(t, "MinFunc", x, func(s []float64) any { return MinFunc(s, byKey) }, func(s []float64) any { return std.MinFunc(s, byKey) })
		same(t, "MaxFunc", x, func(s []float64) any { return MaxFunc(s, byKey) }, func(s []float64) any { return std.MaxFunc(s, byKey) })
		// the iterators, read to the end and stopped after `stop` values
		stop := r.IntN(n + 2)
		stable := func(s []float64, c func(a, b float64) int) any { s = std.Clone(s); std.SortStableFunc(s, c); return s }
		same(t, "All", x, func(s []float64) any { return read2(All(s), stop) }, func(s []float64) any { return read2(std.All(s), stop) })
		same(t, "Backward", x, func(s []float64) any { return read2(Backward(s), stop) }, func(s []float64) any { return read2(std.Backward(s), stop) })
		same(t, "Values", x, func(s []float64) any { return read(Values(s), stop) }, func(s []float64) any { return read(std.Values(s), stop) })
		same(t, "AppendSeq", x, func(s []float64) any { return AppendSeq(s, Values(y)) }, func(s []float64) any { return std.AppendSeq(s, std.Values(y)) })
		same(t, "Collect", x, func(s []float64) any { return Collect(Values(s)) }, func(s []float64) any { return std.Collect(std.Values(s)) })
		// (Go's Sorted and SortedFunc sort as its Sort and SortFunc, not stable: as above)
		same(t, "Sorted", x, func(s []float64) any { return Sorted(Values(s)) }, func(s []float64) any { return stable(s, cmp.Compare) })
		same(t, "SortedFunc", x, func(s []float64) any { return SortedFunc(Values(s), byKey) }, func(s []float64) any { return stable(s, byKey) })
		same(t, "SortedStableFunc", x, func(s []float64) any { return SortedStableFunc(Values(s), byKey) },
			func(s []float64) any { return std.SortedStableFunc(std.Values(s), byKey) })
		same(t, "Chunk", x, func(s []float64) any { return chunks(Chunk(s, i-1), stop) }, func(s []float64) any { return chunks(std.Chunk(s, i-1), stop) })
		sorted := std.Clone(x)
		std.Sort(sorted)
		for _, target := range append(v, math.NaN(), 0, 2) {
			same(t, "BinarySearch", sorted, func(s []float64) any { return fmt.Sprint(BinarySearch(s, target)) }, func(s []float64) any { return fmt.Sprint(std.BinarySearch(s, target)) })
			same(t, "BinarySearchFunc", sorted, func(s []float64) any { return fmt.Sprint(BinarySearchFunc(s, target, byKey)) },
				func(s []float64) any { return fmt.Sprint(std.BinarySearchFunc(s, target, byKey)) })
		}
	}
}

// TestStable: SortFunc and SortStableFunc keep the order of elements that compare equal.
func TestStable(t *testing.T) {
	type pair struct{ key, at int }
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]pair, 1000)
	for i := range x {
		x[i] = pair{r.IntN(7), i}
	}
	want := std.Clone(x)
	std.SortStableFunc(want, func(a, b pair) int { return a.key - b.key })
	SortFunc(x, func(a, b pair) int { return a.key - b.key })
	if !std.Equal(x, want) {
		t.Errorf("SortFunc is not the stable order")
	}
}

// TestStrings: the ordered functions on another ordered type.
func TestStrings(t *testing.T) {
	x := []string{"pan", "maze", "shapes", "maze", ""}
	s := Clone(x)
	Sort(s)
	if want := []string{"", "maze", "maze", "pan", "shapes"}; !std.Equal(s, want) {
		t.Errorf("Sort: %q, want %q", s, want)
	}
	if Min(x) != "" || Max(x) != "shapes" || Compare(x, s) != 1 {
		t.Errorf("Min %q Max %q Compare %d", Min(x), Max(x), Compare(x, s))
	}
	if i, ok := BinarySearch(s, "pan"); i != 3 || !ok {
		t.Errorf("BinarySearch: %d %v", i, ok)
	}
}

// read is what a range over seq gives up to its stop-th value, where the loop breaks.
func read[E any](seq func(yield func(E) bool), stop int) string {
	var b strings.Builder
	n := 0
	for v := range seq {
		if n == stop {
			break
		}
		n++
		fmt.Fprint(&b, v, " ")
	}
	return b.String()
}

// read2 is read of an iterator over pairs, each read as k:v.
func read2[K, V any](seq func(yield func(K, V) bool), stop int) string {
	return read(func(yield func(string) bool) {
		seq(func(k K, v V) bool { return yield(fmt.Sprint(k, ":", v)) })
	}, stop)
}

// chunks is read of an iterator over sub-slices, each read with its capacity.
func chunks[E any](seq func(yield func([]E) bool), stop int) string {
	return read(func(yield func(string) bool) {
		seq(func(c []E) bool { return yield(fmt.Sprint(c, "/", cap(c))) })
	}, stop)
}
