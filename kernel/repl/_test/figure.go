// The η-warp one-liners: a c-function warp, its A, and its figure (η, ρ, η∘ρ and the step
// sizes) written to the session folder by eqf.Show.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/symbols/eqf"
)

func main() {
	w, _ := eqflib.CFunctionWarp(0.8, 0.001)
	fig, err := plots.WarpFigure([]eqflib.Warp{w}, 10)
	if err != nil {
		panic(err)
	}
	paths, err := eqf.Show(fig)
	if err != nil {
		panic(err)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		fmt.Println(filepath.Base(p), err == nil && st.Size() > 1000, filepath.Dir(p) == eqf.SessionDir())
	}
	_, err = eqf.Show(42)
	fmt.Println(err)
}

// Output:
// 001-warps-speed-trajectory-composed-multipli.png true true
// 001-warps-speed-trajectory-composed-multipli.html true true
// eqf.Show: x of type int: must be *plots.Figure, eqf.Videos, plots.Video, []plots.Video or *eqflib.Window
