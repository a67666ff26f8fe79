// A script of REPL lines (no package clause): every preloaded name is there without imports,
// expressions print as at the prompt, and importing a preloaded package again is harmless.
import "github.com/equilibriumforcing/eqf/eqflib"
import "fmt"
backend != nil
w, _ := eqflib.CFunctionWarp(0.8, 0.001)
fmt.Printf("%.4f\n", w.A)
x, _ := eqf.Tensor32([][]float64{{1, 2}, {3, 4}})
x
x.Shape().Equal(shapes.Make(dtypes.Float32, 2, 2))
_, err := tensors.FromAnyValue(3.5)
err == nil
clip, _ := data.RenderClip(data.Worlds()["maze"], 1, 4, 16, 16)
fmt.Println(clip.Frames, clip.Channels, clip.Height, clip.Width, len(clip.Pixels))
for i := 1; i <= 3; i++ {
	v, err := eqflib.SD3Warp(float64(i))
	fmt.Println(v.Eta(1), err)
}
math.Sqrt(2) > 1.41 && strings.HasPrefix(compute.ConfigEnvVar, "GOMLX")
eqflib.SD3Warp(0)

// Output:
// true
// 1.8597
// Float32[2 2] [1 2 3 4]  mean 2.5 std 1.118 min 1 max 4
// true
// true
// 4 3 16 16 3072
// 1 <nil>
// 0.5 <nil>
// 0.3333333333333333 <nil>
// true
// error: eqflib: parameter r = 0 is out of range: must be > 0 and finite
