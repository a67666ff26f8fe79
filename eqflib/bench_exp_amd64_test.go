//go:build amd64 && goexperiment.simd

package eqflib

import (
	"math"
	"simd"
	"simd/archsimd"
	"testing"

	"github.com/gomlx/compute/support/simdmath"
)

// BenchmarkSoftmaxExp is the minimal reproduction of the softmax row in docs/performance.md "Known GoMLX
// gaps": the Go backend's fused softmax (compute v0.1.14) exponentiates with
// simdmath.ExpFloat32, written on the portable simd.Float32s type, which broadcasts its 14
// constants for every vector and emulates floor with two conversions and a masked subtraction.
// Beside it the same Cephes polynomial on archsimd.Float32x8 with the constants hoisted out of
// the loop and a native floor (as compute's own activations/avx2 exp256 does), over the
// attention scores of one medium DiT block at batch 1: 4 heads × 256 × 256 values, max
// subtracted row by row. Both report ns per value.
func BenchmarkSoftmaxExp(b *testing.B) {
	const rows, n = 4 * 256, 256
	in := make([]float32, rows*n)
	rng := NewRNG(1)
	for i := range in {
		in[i] = float32(rng.NormFloat64() * 3)
	}
	out := make([]float32, len(in))
	maxes := make([]float32, rows) // each row's maximum, outside the timing
	for r := range maxes {
		maxes[r] = rowMax(in[r*n : (r+1)*n])
	}
	perValue := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(in)), "ns/value")
	}
	b.Run("simdmath.ExpFloat32", func(b *testing.B) {
		for range b.N {
			for r := 0; r < rows; r++ {
				simdmathExpRow(in[r*n:(r+1)*n], out[r*n:(r+1)*n], maxes[r])
			}
		}
		perValue(b)
	})
	b.Run("constants-hoisted", func(b *testing.B) {
		for range b.N {
			for r := 0; r < rows; r++ {
				expRow(in[r*n:(r+1)*n], out[r*n:(r+1)*n], maxes[r])
			}
		}
		perValue(b)
	})
	// The two forms agree to float32 rounding (checked here, not timed).
	var a, c, xs [8]float32
	for _, x := range []float32{-80, -20, -3.3, -0.5, 0, 1e-3} {
		xs = [8]float32{x, x, x, x, x, x, x, x}
		expRow(xs[:], a[:], 0)
		simdmathExpRow(xs[:], c[:], 0)
		if want := math.Exp(float64(x)); math.Abs(float64(a[0])-want) > 1e-6*want || math.Abs(float64(c[0])-want) > 1e-6*want {
			b.Fatalf("exp(%g): hoisted %g, simdmath %g, want %g", x, a[0], c[0], want)
		}
	}
}

func rowMax(row []float32) float32 {
	m := row[0]
	for _, v := range row[1:] {
		m = max(m, v)
	}
	return m
}

// simdmathExpRow writes e^(x − m) for the row's values as compute's fused softmax does.
func simdmathExpRow(row, out []float32, m float32) {
	vMax := simd.BroadcastFloat32s(m)
	l := vMax.Len()
	for i := 0; i+l <= len(row); i += l {
		simdmath.ExpFloat32(simd.LoadFloat32s(row[i:]).Sub(vMax)).Store(out[i:])
	}
}

// expRow writes e^(x − m) for the row's values (len a multiple of 8): the Cephes polynomial of
// simdmath.ExpFloat32, its constants broadcast once per row and a native floor.
func expRow(row, out []float32, m float32) {
	f := archsimd.BroadcastFloat32x8
	vMax := f(m)
	maxLog, minLog, log2E, half := f(88.02969187150841), f(-88.02969187150841), f(1.44269504088896341), f(0.5)
	ln2Hi, ln2Lo, one := f(0.693359375), f(-2.12194440e-4), f(1)
	p7, p6, p5, p4, p3, p2 := f(1.9875691500e-4), f(1.3981999507e-3), f(8.3334519073e-3), f(4.1665795894e-2), f(1.6666665459e-1), f(5.0000001201e-1)
	bias := archsimd.BroadcastUint32x8(127)
	for i := 0; i+8 <= len(row); i += 8 {
		x := archsimd.LoadFloat32x8(row[i:]).Sub(vMax).Max(minLog).Min(maxLog)
		z := x.MulAdd(log2E, half).Floor()
		g := x.Sub(z.Mul(ln2Hi)).Sub(z.Mul(ln2Lo))
		n := z.ConvertToInt32().AsUint32x8().Add(bias).ShiftAllLeft(23).BitsToFloat32()
		p := p7.MulAdd(g, p6).MulAdd(g, p5).MulAdd(g, p4).MulAdd(g, p3).MulAdd(g, p2)
		n.Mul(p.Mul(g).Mul(g).Add(g).Add(one)).Store(out[i:])
	}
}
