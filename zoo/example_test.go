package zoo_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Loading a zoo model and rolling it out with its default sampler. The zoo folder here is empty,
// so LoadModel says what to run; after `make models` the same lines roll the model out.
func ExampleLoadModel() {
	root, _ := os.MkdirTemp("", "eqf-example")
	defer os.RemoveAll(root)
	os.Setenv(zoo.EnvRoot, root)
	defer os.Unsetenv(zoo.EnvRoot)

	m, err := zoo.LoadModel("eqf")
	if err != nil {
		fmt.Println(strings.Replace(err.Error(), root, "$EQF_ROOT", 1))
		return
	}
	z, _ := zoo.Default()
	clips, _ := z.Clips(m.Stats, 1, 20, 1)
	sampler, label := zoo.DefaultSampler(m)
	res, err := eqflib.Roll(m.DiT, clips.Context, eqflib.RollOptions{
		RollConfig: eqflib.RollConfig{Context: z.Recipe.Context, Horizon: z.Recipe.Frames - z.Recipe.Context, Stride: 1, Depth: 20},
		Sampler:    sampler, Frames: 20, Conditions: clips.Timeline(2, 1), CondDim: zoo.CondDim,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(label, res.Frames.Shape)
	// Output:
	// zoo: model "eqf" is not trained in $EQF_ROOT/out/models: run `make models` first
}
