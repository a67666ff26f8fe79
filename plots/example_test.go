package plots_test

import (
	"bytes"
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// The warp figure (η, ρ, η∘ρ and the step sizes of paper App. G) as a PNG, ready for a file or a
// notebook cell.
func ExampleWarpFigure() {
	c, _ := eqflib.CFunctionWarp(0.8, 0.001)
	sd3, _ := eqflib.SD3Warp(3)
	f, err := plots.WarpFigure([]eqflib.Warp{eqflib.IdentityWarp(), sd3, c}, 10)
	if err != nil {
		panic(err)
	}
	png, err := f.Bytes("png")
	fmt.Println(err, bytes.HasPrefix(png, []byte("\x89PNG")), len(png) > 10_000)
	// Output:
	// <nil> true true
}
