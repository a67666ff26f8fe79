// Package cmp holds the functions of Go's cmp package as the REPL's interpreter, yaegi v0.16.1,
// runs them: the session compiles this file into the interpreter's cmp package
// (kernel/repl/stdgeneric.go), in place of yaegi's copy of them, whose type parameter T made a
// call fail once the session declared a name T ("undefined type for T" for cmp.Compare(1, 2)
// after T := 50: yaegi looks a type parameter's name up among the session's names). The type
// parameters here and in slices.go and maps.go end in _, a name no one types. Ordered is yaegi's
// (ordered.go says it for Go).
package cmp

// Less reports whether x is less than y; a NaN is less than any non-NaN, and -0.0 is not less
// than (is equal to) 0.0.
func Less[T_ Ordered](x, y T_) bool {
	return (isNaN(x) && !isNaN(y)) || x < y
}

// Compare returns -1 if x is less than y, 0 if x equals y, +1 if x is greater than y; a NaN is
// less than any non-NaN, a NaN equals a NaN, and -0.0 equals 0.0.
func Compare[T_ Ordered](x, y T_) int {
	xNaN := isNaN(x)
	yNaN := isNaN(y)
	if xNaN {
		if yNaN {
			return 0
		}
		return -1
	}
	if yNaN {
		return +1
	}
	if x < y {
		return -1
	}
	if x > y {
		return +1
	}
	return 0
}

// isNaN reports whether x is a NaN without requiring the math package (it is the only value
// not equal to itself).
func isNaN[T_ Ordered](x T_) bool {
	return x != x
}

// Or returns the first of its arguments that is not equal to the zero value, or the zero value
// if there is none.
func Or[T_ comparable](vals ...T_) T_ {
	var zero T_
	for _, val := range vals {
		if val != zero {
			return val
		}
	}
	return zero
}
