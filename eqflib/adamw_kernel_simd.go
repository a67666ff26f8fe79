//go:build goexperiment.simd && amd64

package eqflib

import "simd/archsimd"

// adamwKernel is adamwScalar 16 (AVX-512) or 8 (AVX2) lanes at a time, with the same operations
// in the same order; the tail and other processors take adamwScalar.
func adamwKernel(theta, m, v, ema, g []float32, k adamwScalars) {
	n := len(theta)
	i := 0
	switch {
	case archsimd.X86.AVX512():
		i = adamwAVX512(theta, m, v, ema, g, k)
	case archsimd.X86.AVX2():
		i = adamwAVX2(theta, m, v, ema, g, k)
	}
	if i < n {
		var e []float32
		if ema != nil {
			e = ema[i:]
		}
		adamwScalar(theta[i:], m[i:], v[i:], e, g[i:], k)
	}
}

func adamwAVX512(theta, m, v, ema, g []float32, k adamwScalars) int {
	b := archsimd.BroadcastFloat32x16
	scale, b1, c1, b2, c2 := b(k.scale), b(k.b1), b(k.c1), b(k.b2), b(k.c2)
	ibc1, ibc2, eps, lr, wd, decay, ema1 := b(k.invBC1), b(k.invBC2), b(k.eps), b(k.lr), b(k.wd), b(k.decay), b(k.ema1)
	n := len(theta) &^ 15
	for i := 0; i < n; i += 16 {
		gi := archsimd.LoadFloat32x16(g[i : i+16]).Mul(scale)
		mi := b1.Mul(archsimd.LoadFloat32x16(m[i : i+16])).Add(c1.Mul(gi))
		vi := b2.Mul(archsimd.LoadFloat32x16(v[i : i+16])).Add(c2.Mul(gi.Mul(gi)))
		upd := mi.Mul(ibc1).Div(vi.Mul(ibc2).Sqrt().Add(eps))
		th := archsimd.LoadFloat32x16(theta[i : i+16])
		th = th.Sub(lr.Mul(upd.Add(wd.Mul(th))))
		mi.Store(m[i : i+16])
		vi.Store(v[i : i+16])
		th.Store(theta[i : i+16])
		if ema != nil {
			decay.Mul(archsimd.LoadFloat32x16(ema[i : i+16])).Add(ema1.Mul(th)).Store(ema[i : i+16])
		}
	}
	return n
}

func adamwAVX2(theta, m, v, ema, g []float32, k adamwScalars) int {
	b := archsimd.BroadcastFloat32x8
	scale, b1, c1, b2, c2 := b(k.scale), b(k.b1), b(k.c1), b(k.b2), b(k.c2)
	ibc1, ibc2, eps, lr, wd, decay, ema1 := b(k.invBC1), b(k.invBC2), b(k.eps), b(k.lr), b(k.wd), b(k.decay), b(k.ema1)
	n := len(theta) &^ 7
	for i := 0; i < n; i += 8 {
		gi := archsimd.LoadFloat32x8(g[i : i+8]).Mul(scale)
		mi := b1.Mul(archsimd.LoadFloat32x8(m[i : i+8])).Add(c1.Mul(gi))
		vi := b2.Mul(archsimd.LoadFloat32x8(v[i : i+8])).Add(c2.Mul(gi.Mul(gi)))
		upd := mi.Mul(ibc1).Div(vi.Mul(ibc2).Sqrt().Add(eps))
		th := archsimd.LoadFloat32x8(theta[i : i+8])
		th = th.Sub(lr.Mul(upd.Add(wd.Mul(th))))
		mi.Store(m[i : i+8])
		vi.Store(v[i : i+8])
		th.Store(theta[i : i+8])
		if ema != nil {
			decay.Mul(archsimd.LoadFloat32x8(ema[i : i+8])).Add(ema1.Mul(th)).Store(ema[i : i+8])
		}
	}
	return n
}
