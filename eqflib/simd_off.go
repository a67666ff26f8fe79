//go:build !goexperiment.simd

package eqflib

const simdEnabled = false
