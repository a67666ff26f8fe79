package eqflib

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/distributed"
)

// Data-parallel training (TrainConfig.Devices) on one machine with several accelerators, through
// GoMLX's AutoSharding (XLA's Shardy partitioner; the pure-Go backend has no multi-device
// support). The step graph is the single-device one, written for the whole batch: its batch
// inputs are declared sharded along a one-axis device mesh, the variables (weights, AdamW
// moments, EMA) replicated, and the loss and gradient norm replicated outputs. The partitioner
// then runs each device on B/n examples and inserts the all-reduce of the gradients, so a
// data-parallel step equals the single-device step on the same batch up to float rounding (the
// GPU check compares them). The paper trains Minecraft on 1 GPU and Re10K / Droid with DDP on 2
// and 4 (App. D, Table training_details).

// dataMeshAxis names the device mesh's only axis, along which batches are split.
const dataMeshAxis = "batch"

// setupDataParallel resolves TrainConfig.Devices against the backend and, for n ≥ 1 devices,
// turns the step and evaluation executors into sharded ones.
func (t *Trainer) setupDataParallel(backend compute.Backend) error {
	n := t.Config.Devices
	have := backend.NumDevices()
	if n == -1 {
		if have <= 1 {
			return nil // one device: the plain program
		}
		n = have
	}
	if n == 0 {
		return nil
	}
	if isGoBackend(backend) {
		return paramErr("TrainConfig.Devices", t.Config.Devices, "0 on the pure-Go backend (it has one device and no "+
			"multi-device support; data-parallel training needs the XLA backend: a `-tags xla` build with GOMLX_BACKEND=xla:cuda)")
	}
	if n > have {
		return paramErr("TrainConfig.Devices", t.Config.Devices, fmt.Sprintf("≤ %d, the devices of backend %q", have, backend.Name()))
	}
	if t.Config.Batch%n != 0 {
		return paramErr("TrainConfig.Batch", t.Config.Batch, fmt.Sprintf("a multiple of the %d data-parallel devices", n))
	}
	mesh, err := distributed.NewDeviceMesh([]int{n}, []string{dataMeshAxis})
	if err != nil {
		return err
	}
	batch, err := distributed.BuildSpec(mesh).S(dataMeshAxis).Done() // axis 0 split, the rest replicated
	if err != nil {
		return err
	}
	replicated := distributed.NewReplicatedShardingSpec(mesh)
	devices := make([]compute.DeviceNum, n)
	for i := range devices {
		devices[i] = compute.DeviceNum(i)
	}
	inputs := []*distributed.ShardingSpec{batch, batch, batch, batch, batch} // x, ε, level, mask, cond
	t.stepExec.AutoSharding(mesh).WithInputShardingSpecs(inputs...).WithOutputShardingSpecs(replicated, replicated).
		WithDeviceAssignment(devices)
	for _, e := range t.evalExec {
		e.AutoSharding(mesh).WithInputShardingSpecs(inputs...).WithOutputShardingSpecs(replicated).WithDeviceAssignment(devices)
	}
	t.devices = n
	return nil
}

// DataParallelDevices reports over how many devices each training step is split (1 when it
// runs the plain single-device program).
func (t *Trainer) DataParallelDevices() int { return max(t.devices, 1) }
