package eqflib

import (
	"slices"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
)

// TrainConfig.Devices on the pure-Go backend: −1 is the plain single-device program, any explicit
// device count is a clear error; the batch split (what each device receives) is checked here
// on the host. The sharded program itself runs in the GPU check (gpucheck_test.go).
func TestDataParallelOption(t *testing.T) {
	if b, err := Backend(); err != nil || !isGoBackend(b) {
		t.Skip("checks the pure-Go backend's answers; the GPU check covers XLA")
	}
	train, _, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), 4, 16, 16, 16, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := NewObjective(EqF)
	newTrainer := func(devices int) (*Trainer, error) {
		m, err := NewDiT(DiTPresets["tiny"], false, 1, dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		c := DefaultTrainConfig(obj)
		c.Batch, c.Devices = 4, devices
		return NewTrainer(m, train, nil, c)
	}
	assertParamErr(t, "Devices −2", second(newTrainer(-2)), "TrainConfig.Devices")
	assertParamErr(t, "Devices 1 on Go", second(newTrainer(1)), "TrainConfig.Devices")
	assertParamErr(t, "Devices 2 on Go", second(newTrainer(2)), "TrainConfig.Devices")
	tr, err := newTrainer(-1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.DataParallelDevices() != 1 {
		t.Errorf("Devices −1 on one device runs %d-way", tr.DataParallelDevices())
	}
	if _, err := tr.TrainStep(); err != nil {
		t.Fatal(err)
	}

	// What two devices would receive: the batch's first and second halves, device-major.
	x, cond, _ := LoadBatch(train, []int{0, 1, 2, 3})
	eps, _ := Randn(NewRNG(1), 4, 4, 3, 16, 16)
	level, mask := make([]float64, 16), make([]float64, 16)
	for i := range level {
		level[i], mask[i] = float64(i)/16, float64(i%2)
	}
	tr.devices = 2
	args, err := tr.inputs(x, eps, level, mask, cond)
	tr.devices = 0
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 10 {
		t.Fatalf("2 devices got %d arguments, want 10 (5 per device)", len(args))
	}
	half := len(x.Data) / 2
	k := DiTPresets["tiny"].CondDim
	for d := 0; d < 2; d++ {
		want := [][]float64{x.Data[d*half : (d+1)*half], eps.Data[d*half : (d+1)*half], level[d*8 : (d+1)*8], mask[d*8 : (d+1)*8],
			cond[d*8*k : (d+1)*8*k]}
		for i, w := range want {
			got, _ := tensors.CopyFlatData[float32](args[5*d+i].(*tensors.Tensor))
			if args[5*d+i].(*tensors.Tensor).Shape().Dimensions[0] != 2 {
				t.Errorf("device %d input %d has batch %v, want 2", d, i, args[5*d+i].(*tensors.Tensor).Shape())
			}
			w32 := make([]float32, len(w))
			for j, v := range w {
				w32[j] = float32(v)
			}
			if !slices.Equal(got, w32) {
				t.Errorf("device %d input %d is not rows %d..%d of the batch", d, i, 2*d, 2*d+1)
			}
		}
	}
}
