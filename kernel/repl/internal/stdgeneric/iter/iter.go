// Package iter is Go 1.23's iter as the REPL's interpreter, yaegi v0.16.1, runs it: the session
// compiles this file into the interpreter as package iter (kernel/repl/stdgeneric.go), which
// yaegi's standard library predates. Seq and Seq2 are Go's; Pull and Pull2, which need Go's
// coroutines, are not here (a goroutine and channels would do, but leak where the caller does
// not call stop).
package iter

// Seq is an iterator over sequences of individual values: a function called with a yield
// function, which it calls with each value in turn, stopping early when yield returns false.
type Seq[V any] func(yield func(V) bool)

// Seq2 is an iterator over sequences of pairs of values, most commonly key-value pairs.
type Seq2[K, V any] func(yield func(K, V) bool)
