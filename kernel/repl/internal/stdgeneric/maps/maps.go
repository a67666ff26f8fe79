// Package maps holds the functions of Go's maps package that the REPL's interpreter, yaegi
// v0.16.1, cannot call, written so that it can: the session compiles this file into the
// interpreter's maps package (kernel/repl/stdgeneric.go), in place of yaegi's copy of them.
//
// yaegi carries Go 1.22's maps.go as source, but infers no type parameter from another's
// constraint, so Equal, Clone and Copy (of the form Clone[M ~map[K]V, K comparable, V any])
// fail on their first call ("undefined type for K"). Here each takes map[K]V where Go's takes
// M ~map[K]V: the same values, and for a map of a named type a result of type map[K]V where
// Go's is M. The iterator functions (All, Keys, Values, Insert, Collect; Go 1.23, which yaegi's
// copy predates) are written without a range over a function, which yaegi cannot run: they call
// the yield function, or the iterator with one. DeleteFunc and EqualFunc, which yaegi's copy
// calls, are here too: yaegi looks a type parameter's name up among the session's names, so its
// copy's K failed once the session declared a K ("undefined type for K"); the type parameters
// here end in _ (K_, V_), a name no one types.
package maps

// Equal reports whether two maps contain the same key/value pairs (NaNs are not equal).
func Equal[K_, V_ comparable](m1, m2 map[K_]V_) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || v1 != v2 {
			return false
		}
	}
	return true
}

// Clone returns a copy of m: a shallow clone (nil for nil).
func Clone[K_ comparable, V_ any](m map[K_]V_) map[K_]V_ {
	if m == nil {
		return nil
	}
	out := make(map[K_]V_, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Copy copies all key/value pairs in src adding them to dst; a key of src already in dst has its
// value overwritten.
func Copy[K_ comparable, V_ any](dst, src map[K_]V_) {
	for k, v := range src {
		dst[k] = v
	}
}

// The iterator functions (Go 1.23), each a function of a yield function (Go's iter.Seq[K] and
// iter.Seq2[K, V], whose underlying types these are): yaegi cannot range over a function, so
// they call it; the session runs a range over one as a call (kernel/repl/rangefunc.go).

// All returns an iterator over key-value pairs from m (in no fixed order).
func All[K_ comparable, V_ any](m map[K_]V_) func(yield func(K_, V_) bool) {
	return func(yield func(K_, V_) bool) {
		for k, v := range m {
			if !yield(k, v) {
				return
			}
		}
	}
}

// Keys returns an iterator over keys in m (in no fixed order).
func Keys[K_ comparable, V_ any](m map[K_]V_) func(yield func(K_) bool) {
	return func(yield func(K_) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Values returns an iterator over values in m (in no fixed order).
func Values[K_ comparable, V_ any](m map[K_]V_) func(yield func(V_) bool) {
	return func(yield func(V_) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// Insert adds the key-value pairs from seq to m; a key already in m has its value overwritten.
func Insert[K_ comparable, V_ any](m map[K_]V_, seq func(yield func(K_, V_) bool)) {
	seq(func(k K_, v V_) bool {
		m[k] = v
		return true
	})
}

// Collect collects key-value pairs from seq into a new map and returns it.
func Collect[K_ comparable, V_ any](seq func(yield func(K_, V_) bool)) map[K_]V_ {
	m := make(map[K_]V_)
	Insert(m, seq)
	return m
}

// EqualFunc is like Equal, but compares values using eq; keys are still compared with ==.
func EqualFunc[K_ comparable, V1_, V2_ any](m1 map[K_]V1_, m2 map[K_]V2_, eq func(V1_, V2_) bool) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || !eq(v1, v2) {
			return false
		}
	}
	return true
}

// DeleteFunc deletes any key/value pairs from m for which del returns true.
func DeleteFunc[K_ comparable, V_ any](m map[K_]V_, del func(K_, V_) bool) {
	for k, v := range m {
		if del(k, v) {
			delete(m, k)
		}
	}
}
