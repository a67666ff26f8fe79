package eqflib_test

import (
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// data's datasets satisfy eqflib's interface structurally (data does not import eqflib).
var (
	_ eqflib.Dataset = (*data.WorldDataset)(nil)
	_ eqflib.Dataset = (*data.ClipDataset)(nil)
)

func TestLoadBatchFromWorld(t *testing.T) {
	train, _, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), 4, 16, 16, 10, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, cond, err := eqflib.LoadBatch(train, []int{3, 7})
	if err != nil {
		t.Fatal(err)
	}
	if x.Shape != [5]int{2, 4, 3, 16, 16} || len(cond) != 2*4*3 {
		t.Fatalf("batch shape %v, %d conditions", x.Shape, len(cond))
	}
	px, c := make([]float64, 4*3*16*16), make([]float64, 4*3)
	train.Window(7, px, c)
	for i, v := range px {
		if x.Data[4*3*16*16+i] != v {
			t.Fatal("batch element 1 is not window 7")
		}
	}
	if _, _, err := eqflib.LoadBatch(train, []int{10}); err == nil {
		t.Error("an out-of-range window index was accepted")
	}
}
