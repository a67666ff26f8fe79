package data_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/equilibriumforcing/eqf/data"
)

// A folder of your clips: each a sub-folder of frames with actions.csv (here maze walks written
// by SaveFrameDir stand in for them), read in name order and split by whole clips.
func ExampleLoadClips() {
	dir, _ := os.MkdirTemp("", "clips")
	defer os.RemoveAll(dir)
	maze := data.NewMaze(data.DefaultMazeConfig())
	for k := 1; k <= 3; k++ {
		c, _ := data.RenderClip(maze, uint64(k), 8+k, 16, 16)
		data.SaveFrameDir(filepath.Join(dir, fmt.Sprintf("walk-%d", k)), c, maze.CondNames())
	}
	clips, names, err := data.LoadClips(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	train, val, err := data.NewClipSplits(clips, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(names, clips[0].Frames, clips[0].CondDim)
	fmt.Println("train windows:", train.Len(), "validation windows:", val.Len(), "of", names[2])
	// Output:
	// [walk-1 walk-2 walk-3] 9 3
	// train windows: 13 validation windows: 2 of walk-3
}

// A batch of latent clips in one .npy array [N, T, C, H, W] with their actions [N, T, A] beside
// it (here two maze walks' pixels stand in for a VAE's latents): LoadClips names each clip, and
// that name reads it alone.
func ExampleLoadLatentClips() {
	dir, _ := os.MkdirTemp("", "latents")
	defer os.RemoveAll(dir)
	maze := data.NewMaze(data.DefaultMazeConfig())
	var latents, actions []float64
	for k := 1; k <= 2; k++ {
		c, _ := data.RenderClip(maze, uint64(k), 6, 8, 8)
		latents, actions = append(latents, c.Pixels...), append(actions, c.Cond...)
	}
	data.SaveNpy(filepath.Join(dir, "walks.npy"), []int{2, 6, 3, 8, 8}, latents)
	data.SaveNpy(filepath.Join(dir, "walks.actions.npy"), []int{2, 6, 3}, actions)
	clips, names, err := data.LoadClips(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(names, clips[1].Frames, clips[1].Channels, clips[1].CondDim)
	one, _, err := data.LoadClips(data.ClipPath(dir, names[1]))
	fmt.Println(filepath.Base(data.ClipPath(dir, names[1])), len(one), err)
	// Output:
	// [walks.npy[0] walks.npy[1]] 6 3 3
	// walks.npy[1] 1 <nil>
}
