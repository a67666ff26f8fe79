// Package slices holds the functions of Go's slices package that the REPL's interpreter, yaegi
// v0.16.1, lacks or cannot call, written so that it can: the session compiles this file into
// the interpreter's slices package (kernel/repl/stdgeneric.go), in place of yaegi's copy of them.
//
// yaegi carries Go 1.22's slices.go as source, but infers no type parameter from another's
// constraint, so every function of the form Clone[S ~[]E, E any](s S) S fails on its first call
// ("undefined type for E": Equal, Compare, Insert, Delete, DeleteFunc, Replace, Clone, Compact,
// CompactFunc, Grow, Clip, Reverse, Concat), Index and Contains take E from an untyped constant
// (slices.Index(x, 2) of a []float64 panics), and it leaves out sort.go (Sort, SortFunc,
// SortStableFunc, IsSorted, IsSortedFunc, Min, MinFunc, Max, MaxFunc, BinarySearch,
// BinarySearchFunc) and Repeat. Here each takes []E where Go's takes S ~[]E: the same values, the
// same panics, and for a slice of a named type (type L []int) a result of type []E where Go's is
// L. The sorts are a stable merge sort (Go's Sort and SortFunc are not stable: any order they may
// give of elements that compare equal, this gives one). The iterator functions (All, Values,
// Backward, Collect, AppendSeq, Sorted, SortedFunc, SortedStableFunc, Chunk; Go 1.23, which
// yaegi's copy predates) are written without a range over a function, which yaegi cannot run:
// they call the yield function, or the iterator with one. EqualFunc, CompareFunc, IndexFunc and
// ContainsFunc, which yaegi's copy calls, are here too: yaegi looks a type parameter's name up
// among the session's names, so its copy's E failed once the session declared an E or an S
// ("undefined type for E"); the type parameters here end in _ (E_, T_), a name no one types.
//
// The file imports only cmp, which yaegi's slices.go imports too (the session drops the import
// clause, which yaegi would take for a second declaration of cmp).
package slices

import "cmp"

// Equal reports whether two slices are equal: the same length and all elements equal (NaNs are
// not equal).
func Equal[E_ comparable](s1, s2 []E_) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

// Compare compares the elements of s1 and s2 with cmp.Compare, element by element; the shorter
// slice is less when one is a prefix of the other.
func Compare[E_ cmp.Ordered](s1, s2 []E_) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := compareOrdered(v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// compareOrdered is cmp.Compare (-1, 0 or +1; NaNs below all else and equal to each other),
// which yaegi misreads here ("cannot use type float64 as type []float64").
func compareOrdered[E_ cmp.Ordered](a, b E_) int {
	if cmp.Less(a, b) {
		return -1
	}
	if cmp.Less(b, a) {
		return +1
	}
	return 0
}

// Index returns the index of the first occurrence of v in s, or -1 if not present.
func Index[E_ comparable](s []E_, v E_) int {
	for i := range s {
		if v == s[i] {
			return i
		}
	}
	return -1
}

// Contains reports whether v is present in s.
func Contains[E_ comparable](s []E_, v E_) bool {
	return Index(s, v) >= 0
}

// Insert inserts the values v... into s at index i and returns the modified slice; it panics if
// i > len(s).
func Insert[E_ any](s []E_, i int, v ...E_) []E_ {
	_ = s[i:] // bounds check
	out := make([]E_, 0, len(s)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	out = append(out, s[i:]...)
	if len(out) <= cap(s) { // in place, as Go's when s has room
		s = s[:len(out)]
		copy(s, out)
		return s
	}
	return out
}

// Delete removes the elements s[i:j] from s and returns the modified slice, zeroing the elements
// between the new and the old length; it panics if j > len(s) or s[i:j] is not a valid slice.
func Delete[E_ any](s []E_, i, j int) []E_ {
	_ = s[i:j:len(s)] // bounds check
	if i == j {
		return s
	}
	oldlen := len(s)
	s = append(s[:i], s[j:]...)
	zeroTail(s, oldlen)
	return s
}

// DeleteFunc removes the elements of s for which del returns true and returns the modified
// slice, zeroing the elements between the new and the old length.
func DeleteFunc[E_ any](s []E_, del func(E_) bool) []E_ {
	n := 0
	for _, v := range s {
		if !del(v) {
			s[n] = v
			n++
		}
	}
	zeroTail(s[:n], len(s))
	return s[:n]
}

// Replace replaces the elements s[i:j] by v... and returns the modified slice, zeroing the
// elements between the new and the old length when it is shorter; it panics if j > len(s) or
// s[i:j] is not a valid slice.
func Replace[E_ any](s []E_, i, j int, v ...E_) []E_ {
	_ = s[i:j] // bounds check
	tail := append([]E_{}, s[j:]...)
	v = append([]E_{}, v...)
	n := i + len(v) + len(tail)
	if n > cap(s) {
		out := make([]E_, n)
		copy(out, s[:i])
		copy(out[i:], v)
		copy(out[i+len(v):], tail)
		return out
	}
	out := s[:n]
	copy(out[i:], v)
	copy(out[i+len(v):], tail)
	zeroTail(out, len(s))
	return out
}

// zeroTail sets the elements s[len(s):oldlen] of s's array to their zero value (Go's clear,
// which yaegi lacks); none when s is not shorter.
func zeroTail[E_ any](s []E_, oldlen int) {
	if len(s) >= oldlen {
		return
	}
	var zero E_
	t := s[len(s):oldlen]
	for k := range t {
		t[k] = zero
	}
}

// Clone returns a copy of s (nil for nil).
func Clone[E_ any](s []E_) []E_ {
	if s == nil {
		return nil
	}
	return append([]E_{}, s...)
}

// Compact replaces runs of equal elements by one copy and returns the modified slice, zeroing
// the elements between the new and the old length.
func Compact[E_ comparable](s []E_) []E_ {
	return CompactFunc(s, func(a, b E_) bool { return a == b })
}

// CompactFunc is Compact with eq comparing elements; it keeps the first of each run.
func CompactFunc[E_ any](s []E_, eq func(E_, E_) bool) []E_ {
	if len(s) < 2 {
		return s
	}
	n := 1
	for k := 1; k < len(s); k++ {
		if !eq(s[n-1], s[k]) {
			s[n] = s[k]
			n++
		}
	}
	zeroTail(s[:n], len(s))
	return s[:n]
}

// Grow increases the slice's capacity, if necessary, to guarantee space for n more elements; it
// panics if n is negative.
func Grow[E_ any](s []E_, n int) []E_ {
	if n < 0 {
		panic("cannot be negative")
	}
	if n -= cap(s) - len(s); n > 0 {
		s = append(s[:cap(s)], make([]E_, n)...)[:len(s)]
	}
	return s
}

// Clip removes unused capacity from the slice.
func Clip[E_ any](s []E_) []E_ {
	return s[:len(s):len(s)]
}

// Reverse reverses the elements of the slice in place.
func Reverse[E_ any](s []E_) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// Concat returns a new slice concatenating the passed in slices (nil when they hold nothing).
// Its first slice is a parameter of its own (Go's: slices ...S), from which yaegi infers E; it
// cannot compile a call with one slice (slices.Clone is that).
func Concat[E_ any](s []E_, more ...[]E_) []E_ {
	ss := append([][]E_{s}, more...)
	size := 0
	for _, s := range ss {
		size += len(s)
		if size < 0 {
			panic("len out of range")
		}
	}
	var out []E_
	for _, s := range ss {
		if len(s) > 0 {
			if out == nil {
				out = make([]E_, 0, size)
			}
			out = append(out, s...)
		}
	}
	return out
}

// Repeat returns a new slice that repeats x count times; it panics if count is negative or the
// result's length overflows.
func Repeat[E_ any](x []E_, count int) []E_ {
	if count < 0 {
		panic("cannot be negative")
	}
	if maxInt := int(^uint(0) >> 1); len(x) > 0 && count > maxInt/len(x) {
		panic("the result of (len(x) * count) overflows")
	}
	out := make([]E_, 0, len(x)*count)
	for k := 0; k < count; k++ { // (yaegi cannot range over an int)
		out = append(out, x...)
	}
	return out
}

// Sort sorts a slice of any ordered type in ascending order (NaNs first, as cmp.Less orders
// them).
func Sort[E_ cmp.Ordered](x []E_) {
	mergeSort(x, func(a, b E_) int { return compareOrdered(a, b) })
}

// SortFunc sorts the slice x in ascending order as determined by cmp (negative: a before b).
func SortFunc[E_ any](x []E_, cmp func(a, b E_) int) {
	mergeSort(x, cmp)
}

// SortStableFunc sorts the slice x as SortFunc does, keeping the original order of equal
// elements.
func SortStableFunc[E_ any](x []E_, cmp func(a, b E_) int) {
	mergeSort(x, cmp)
}

// mergeSort sorts x stably by cmp: runs of 12 by insertion, then merges of doubling width
// through one buffer. (Written for yaegi: a local constant or a helper such as min in its loops
// left x unsorted there.)
func mergeSort[E_ any](x []E_, cmp func(a, b E_) int) {
	n, run := len(x), 12
	for lo := 0; lo < n; lo += run {
		hi := lo + run
		if hi > n {
			hi = n
		}
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && cmp(x[j], x[j-1]) < 0; j-- {
				x[j], x[j-1] = x[j-1], x[j]
			}
		}
	}
	if n <= run {
		return
	}
	buf := make([]E_, n)
	src, dst := x, buf
	inBuf := false // whether src is buf
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := lo+width, lo+2*width
			if mid > n {
				mid = n
			}
			if hi > n {
				hi = n
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if cmp(src[j], src[i]) < 0 {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst, inBuf = dst, src, !inBuf
	}
	if inBuf {
		copy(x, src)
	}
}

// IsSorted reports whether x is sorted in ascending order.
func IsSorted[E_ cmp.Ordered](x []E_) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp.Less(x[i], x[i-1]) {
			return false
		}
	}
	return true
}

// IsSortedFunc reports whether x is sorted in ascending order, with cmp as for SortFunc.
func IsSortedFunc[E_ any](x []E_, cmp func(a, b E_) int) bool {
	for i := len(x) - 1; i > 0; i-- {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

// Min returns the minimal value in x; it panics if x is empty. For floating-point numbers a NaN
// in x makes the result NaN, and -0 is below 0 (as Go's min).
func Min[E_ cmp.Ordered](x []E_) E_ {
	if len(x) < 1 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for _, v := range x {
		if v != v { // NaN
			return v
		}
		if v < m || v == m && negativeZero(v) {
			m = v
		}
	}
	return m
}

// MinFunc returns the first minimal value in x by cmp; it panics if x is empty.
func MinFunc[E_ any](x []E_, cmp func(a, b E_) int) E_ {
	if len(x) < 1 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) < 0 {
			m = v
		}
	}
	return m
}

// Max returns the maximal value in x; it panics if x is empty. For floating-point numbers a NaN
// in x makes the result NaN, and 0 is above -0 (as Go's max).
func Max[E_ cmp.Ordered](x []E_) E_ {
	if len(x) < 1 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for _, v := range x {
		if v != v { // NaN
			return v
		}
		if v > m || v == m && negativeZero(m) {
			m = v
		}
	}
	return m
}

// MaxFunc returns the first maximal value in x by cmp; it panics if x is empty.
func MaxFunc[E_ any](x []E_, cmp func(a, b E_) int) E_ {
	if len(x) < 1 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) > 0 {
			m = v
		}
	}
	return m
}

// negativeZero reports whether v is a float64 or float32 -0 (a named floating-point type's -0
// is taken for 0: Min and Max then return the first zero).
func negativeZero[E_ cmp.Ordered](v E_) bool {
	switch f := any(v).(type) {
	case float64:
		return f == 0 && 1/f < 0
	case float32:
		return f == 0 && 1/f < 0
	}
	return false
}

// BinarySearch searches for target in a sorted slice and returns the earliest position where
// target is found, or where it would appear in the sort order, and whether it is there.
func BinarySearch[E_ cmp.Ordered](x []E_, target E_) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp.Less(x[h], target) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && (x[i] == target || x[i] != x[i] && target != target)
}

// BinarySearchFunc is BinarySearch with cmp comparing an element with the target (0: a match).
func BinarySearchFunc[E_, T_ any](x []E_, target T_, cmp func(E_, T_) int) (int, bool) {
	n := len(x)
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if cmp(x[h], target) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < n && cmp(x[i], target) == 0
}

// The iterator functions (Go 1.23), each a function of a yield function (Go's iter.Seq[E] and
// iter.Seq2[int, E], whose underlying types these are): yaegi cannot range over a function, so
// they call it; the session runs a range over one as a call (kernel/repl/rangefunc.go).

// All returns an iterator over index-value pairs in the slice, in the usual order.
func All[E_ any](s []E_) func(yield func(int, E_) bool) {
	return func(yield func(int, E_) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

// Backward returns an iterator over index-value pairs in the slice, traversing it backward with
// descending indices.
func Backward[E_ any](s []E_) func(yield func(int, E_) bool) {
	return func(yield func(int, E_) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

// Values returns an iterator that yields the slice elements in order.
func Values[E_ any](s []E_) func(yield func(E_) bool) {
	return func(yield func(E_) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

// AppendSeq appends the values from seq to the slice and returns the extended slice.
func AppendSeq[E_ any](s []E_, seq func(yield func(E_) bool)) []E_ {
	seq(func(v E_) bool {
		s = append(s, v)
		return true
	})
	return s
}

// Collect collects values from seq into a new slice and returns it (nil for no values).
func Collect[E_ any](seq func(yield func(E_) bool)) []E_ {
	return AppendSeq([]E_(nil), seq)
}

// Sorted collects values from seq into a new slice, sorts the slice, and returns it.
func Sorted[E_ cmp.Ordered](seq func(yield func(E_) bool)) []E_ {
	s := Collect(seq)
	Sort(s)
	return s
}

// SortedFunc collects values from seq into a new slice, sorts the slice using the comparison
// function, and returns it.
func SortedFunc[E_ any](seq func(yield func(E_) bool), cmp func(E_, E_) int) []E_ {
	s := Collect(seq)
	SortFunc(s, cmp)
	return s
}

// SortedStableFunc collects values from seq into a new slice, sorts it keeping the original
// order of equal elements, using the comparison function, and returns it.
func SortedStableFunc[E_ any](seq func(yield func(E_) bool), cmp func(E_, E_) int) []E_ {
	s := Collect(seq)
	SortStableFunc(s, cmp)
	return s
}

// Chunk returns an iterator over consecutive sub-slices of up to n elements of s, all but the
// last of size n; each has its capacity cut to its length. It panics if n is less than 1.
func Chunk[E_ any](s []E_, n int) func(yield func([]E_) bool) {
	if n < 1 {
		panic("cannot be less than 1")
	}
	return func(yield func([]E_) bool) {
		for i := 0; i < len(s); i += n {
			end := len(s) - i
			if n < end {
				end = n
			}
			if !yield(s[i : i+end : i+end]) {
				return
			}
		}
	}
}

// EqualFunc reports whether two slices are equal using an equality function on each pair of
// elements: the same length and eq true for every pair, in increasing index order, stopping at
// the first false.
func EqualFunc[E1_, E2_ any](s1 []E1_, s2 []E2_, eq func(E1_, E2_) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i, v1 := range s1 {
		if !eq(v1, s2[i]) {
			return false
		}
	}
	return true
}

// CompareFunc is like Compare but uses a custom comparison function on each pair of elements;
// the result is the first non-zero result of cmp, else the shorter slice is less.
func CompareFunc[E1_, E2_ any](s1 []E1_, s2 []E2_, cmp func(E1_, E2_) int) int {
	for i, v1 := range s1 {
		if i >= len(s2) {
			return +1
		}
		if c := cmp(v1, s2[i]); c != 0 {
			return c
		}
	}
	if len(s1) < len(s2) {
		return -1
	}
	return 0
}

// IndexFunc returns the first index i satisfying f(s[i]), or -1 if none do.
func IndexFunc[E_ any](s []E_, f func(E_) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// ContainsFunc reports whether at least one element e of s satisfies f(e).
func ContainsFunc[E_ any](s []E_, f func(E_) bool) bool {
	return IndexFunc(s, f) >= 0
}
