// The η warps of paper App. G from interpreted code, checked against their golden numbers (docs/derivations.md).
package main

import (
	"fmt"

	"github.com/equilibriumforcing/eqf/eqflib"
)

func main() {
	c, err := eqflib.CFunctionWarp(0.8, 0.001)
	if err != nil {
		panic(err)
	}
	fmt.Printf("A = %.6f\n", c.A) // 0.2·ln(200) + 0.8
	fmt.Printf("rho(1) = %.4f\n", c.Rho(1))
	sd3, _ := eqflib.SD3Warp(3)
	fmt.Printf("eta(1) = %.4f, eta(0) = %.4f\n", sd3.Eta(1), sd3.Eta(0))
	levels, _ := eqflib.Levels(sd3, 10)
	for i := len(levels) - 1; i >= 0; i-- { // data → noise, the tabulation's order
		fmt.Printf("%.6f ", levels[i])
	}
	fmt.Println()
	_, err = eqflib.SD3Warp(-1)
	fmt.Println(err)
}

// Output:
// A = 1.859663
// rho(1) = 0.0010
// eta(1) = 0.3333, eta(0) = 3.0000
// 0.000000 0.250000 0.428571 0.562500 0.666667 0.750000 0.818182 0.875000 0.923077 0.964286 1.000000
// eqflib: parameter r = -1 is out of range: must be > 0 and finite
