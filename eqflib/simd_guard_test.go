//go:build !goexperiment.simd

package eqflib

import "testing"

// TestBuiltWithSIMD fails every test run of a build without GOEXPERIMENT=simd: such a build's
// matrix products are ~25x slower, and every path (make, CI, kernel, REPL) must set it.
func TestBuiltWithSIMD(t *testing.T) {
	t.Fatal("eqflib was built without GOEXPERIMENT=simd: run tests through `make test` or export GOEXPERIMENT=simd")
}
