package cmp

import std "cmp"

// Ordered is Go's cmp.Ordered, for Go's build of this package (its tests); the session compiles
// only cmp.go, into yaegi's cmp, which has its own.
type Ordered = std.Ordered
