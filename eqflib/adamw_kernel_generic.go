//go:build !goexperiment.simd || !amd64

package eqflib

// adamwKernel is adamwScalar where the SIMD kernels are not built.
func adamwKernel(theta, m, v, ema, g []float32, k adamwScalars) {
	adamwScalar(theta, m, v, ema, g, k)
}
