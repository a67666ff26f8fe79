//go:build !xla

package eqflib

import "github.com/gomlx/compute"

// The default build is pure Go: no cgo, no XLA. backend_xla.go replaces this file in a build
// with `-tags xla`.
const xlaCompiledIn = false

func newXLABackend(string) (compute.Backend, error) {
	panic("unreachable: newXLABackend in a build without -tags xla")
}

// XLAPlugins lists the PJRT plugins XLA would find; empty in a build without XLA.
func XLAPlugins() []string { return nil }
