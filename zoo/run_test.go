package zoo_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

// trainRun writes what `eqf train -out dir` writes, after two steps on ds: checkpoints,
// stats.json, history.json and train.json; with readout, an h_ω trained two steps joins the
// newest checkpoint.
func trainRun(t *testing.T, dir string, ds *data.ClipDataset, on zoo.TrainedOn, readout bool) {
	t.Helper()
	cfg := eqflib.DiTPresets["tiny"]
	c := ds.Clips[0]
	cfg.Channels, cfg.Height, cfg.Width, cfg.CondDim = c.Channels, c.Height, c.Width, c.CondDim
	obj, err := eqflib.ParseObjective("eqf")
	if err != nil {
		t.Fatal(err)
	}
	m, err := eqflib.NewDiT(cfg, false, 1, eqflib.DefaultDType)
	if err != nil {
		t.Fatal(err)
	}
	tc := eqflib.DefaultTrainConfig(obj)
	tc.Batch = 2
	tr, err := eqflib.NewTrainer(m, ds, nil, tc)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(2, eqflib.RunOptions{CheckpointDir: dir}); err != nil {
		t.Fatal(err)
	}
	if err := eqflib.SaveHistory(dir, tr.History); err != nil {
		t.Fatal(err)
	}
	if err := ds.Stats.Save(filepath.Join(dir, "stats.json")); err != nil {
		t.Fatal(err)
	}
	if err := on.Save(dir); err != nil {
		t.Fatal(err)
	}
	if !readout {
		return
	}
	pc := eqflib.DefaultProbeConfig()
	pc.Batch = 2
	rt, err := eqflib.NewReadoutTrainer(m, ds, pc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Train(2); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.SaveCheckpoint(dir, 3); err != nil {
		t.Fatal(err)
	}
}

// LoadRun loads what `eqf train` wrote, h_ω attached when the run trained one, and Run.Clips
// rolls a run on data out over its held-out clips, a run on a world over the world's validation
// clips.
func TestLoadRun(t *testing.T) {
	pan := data.NewPan(data.DefaultPanConfig()) // two actions per frame
	var pixels, actions []float64
	var clips []*data.Clip
	for k := range 3 {
		c, err := data.RenderClip(pan, uint64(10+k), 10, 8, 8)
		if err != nil {
			t.Fatal(err)
		}
		clips, pixels, actions = append(clips, c), append(pixels, c.Pixels...), append(actions, c.Cond...)
	}
	clipDir, root := t.TempDir(), t.TempDir()
	if err := data.SaveNpy(filepath.Join(clipDir, "walks.npy"), []int{3, 10, 3, 8, 8}, pixels); err != nil {
		t.Fatal(err)
	}
	if err := data.SaveNpy(filepath.Join(clipDir, "walks.actions.npy"), []int{3, 10, 2}, actions); err != nil {
		t.Fatal(err)
	}
	loaded, names, err := data.LoadClips(clipDir)
	if err != nil {
		t.Fatal(err)
	}
	train, _, err := data.NewClipSplits(loaded, 4)
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(root, "own")
	on := zoo.TrainedOn{Data: clipDir, HeldOut: names[2:], Frames: 4, Commands: []string{"eqf train -data " + clipDir}} // the last of three held out
	trainRun(t, own, train, on, true)

	r, err := zoo.LoadRun(own)
	if err != nil {
		t.Fatal(err)
	}
	if !r.DiT.HasReadout() || r.Dir != own || r.Checkpoint != eqflib.LatestCheckpoint(own) ||
		!reflect.DeepEqual(r.Stats, train.Stats) || !reflect.DeepEqual(*r.TrainedOn, on) {
		t.Fatalf("LoadRun: readout %v, dir %s, checkpoint %s, stats %v, trained on %+v", r.DiT.HasReadout(), r.Dir, r.Checkpoint, r.Stats, r.TrainedOn)
	}
	if h, err := r.History(); err != nil || len(h) != 2 || h[1].Step != 2 {
		t.Errorf("History: %v, %v", h, err)
	}
	// Printed (the REPL, a notebook): what it is in one line, its network's too.
	if got, want := r.String(), fmt.Sprintf("run %s (%s), trained on the clips in %s: %s", own, filepath.Base(r.Checkpoint), clipDir, r.DiT.String()); got != want ||
		!strings.HasSuffix(got, "no level input (EqF, EqM, NU-FM); with h_ω") {
		t.Errorf("String() = %q, want %q", got, want)
	}
	cl, err := r.Clips(1, 2, 6, 0)
	if err != nil {
		t.Fatal(err)
	}
	// the held-out clip 2's frame 2 + 3 (as read: the .npy holds float32), normalised with the run's statistics
	want := (loaded[2].Pixels[(2+3)*3*8*8] - train.Stats.Mean[0]) / train.Stats.Std[0]
	if cl.Truth.Batch() != 1 || cl.Truth.Frames() != 6 || cl.CondDim != 2 || math.Abs(cl.Truth.Frame(3)[0]-want) > 1e-12 {
		t.Errorf("Clips: truth %v, %d actions, first pixel %g, want %g", cl.Truth.Shape, cl.CondDim, cl.Truth.Frame(3)[0], want)
	}
	sampler, err := eqflib.ParseSampler("nag:0.3,closed")
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.Roll(r.DiT, eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 1, Depth: 2},
		Sampler: sampler, Seed: 1})
	if err != nil || res.Frames.Frames() != 6 {
		t.Errorf("closed-loop rollout of the loaded run: %v", err)
	}
	for _, c := range []struct {
		n, frames int
		want      string
	}{
		{2, 6, "n = 2 out of range: the run validated on 1 clip(s) of " + clipDir + " (walks.npy[2]): at most 1"},
		{0, 6, "n = 0 out of range: must be ≥ 1"},
		{1, 9, "clip 0 has 10 frames: must have context + frames = 11"},
	} {
		if _, err := r.Clips(c.n, 2, c.frames, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Clips(%d, 2, %d): %v, want %q", c.n, c.frames, err, c.want)
		}
	}
	// the first n held-out clips, in the record's order
	two := zoo.TrainedOn{Data: clipDir, HeldOut: []string{names[2], names[0]}, Frames: 4}
	if err := two.Save(own); err != nil {
		t.Fatal(err)
	}
	if r, err = zoo.LoadRun(own); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		cl, err := r.Clips(n, 2, 6, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range []int{2, 0}[:n] {
			want := (loaded[k].Pixels[2*3*8*8] - train.Stats.Mean[0]) / train.Stats.Std[0]
			if got := cl.Truth.Frame(i * 6)[0]; math.Abs(got-want) > 1e-12 {
				t.Errorf("Clips(%d): clip %d is not %s (first pixel %g, want %g)", n, i, names[k], got, want)
			}
		}
	}
	// ValClips(n) reads only the first n held-out clips: a missing second one is met only by all
	gone := zoo.TrainedOn{Data: clipDir, HeldOut: []string{names[2], "gone.npy"}, Frames: 4}
	if cs, ns, err := gone.ValClips(1); err != nil || len(cs) != 1 || !reflect.DeepEqual(ns, names[2:]) {
		t.Errorf("ValClips(1): %v, %v", ns, err)
	}
	if _, _, err := gone.ValClips(0); err == nil || !strings.Contains(err.Error(), "gone.npy") {
		t.Errorf("ValClips(0) with a missing held-out clip: %v", err)
	}

	// a run validated on -val's clips: all of them, named in that folder
	valDir := t.TempDir()
	if err := data.SaveNpy(filepath.Join(valDir, "val.npy"), []int{2, 10, 3, 8, 8}, pixels[:2*10*3*8*8]); err != nil {
		t.Fatal(err)
	}
	if err := data.SaveNpy(filepath.Join(valDir, "val.actions.npy"), []int{2, 10, 2}, actions[:2*10*2]); err != nil {
		t.Fatal(err)
	}
	withVal := zoo.TrainedOn{Data: clipDir, Val: valDir, Frames: 4}
	if err := withVal.Save(own); err != nil {
		t.Fatal(err)
	}
	if r, err = zoo.LoadRun(own); err != nil {
		t.Fatal(err)
	}
	if _, names, err := r.TrainedOn.ValClips(0); err != nil || !reflect.DeepEqual(names, []string{"val.npy[0]", "val.npy[1]"}) || r.TrainedOn.ValPath() != valDir {
		t.Errorf("ValClips of -val: %v, %v (in %s)", names, err, r.TrainedOn.ValPath())
	}
	if cl, err := r.Clips(2, 2, 6, 0); err != nil || math.Abs(cl.Truth.Frame(6)[0]-(loaded[1].Pixels[2*3*8*8]-train.Stats.Mean[0])/train.Stats.Std[0]) > 1e-12 {
		t.Errorf("Clips over -val's clips: %v", err)
	}
	if cl, err := r.Clips(1, 2, 6, 0); err != nil || cl.Truth.Batch() != 1 {
		t.Errorf("Clips(1) of two -val clips: %v", err)
	}
	if want := "the clips in " + clipDir + " (validation: " + valDir + ")"; r.TrainedOn.String() != want {
		t.Errorf("String: %s, want %s", r.TrainedOn, want)
	}

	// a run on a world, without h_ω: the world's validation clips, as NewClips renders them
	world := filepath.Join(root, "pan")
	ds, err := data.NewClipDataset(clips, 4, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	trainRun(t, world, ds, zoo.TrainedOn{World: "pan", Frames: 4}, false)
	first := filepath.Join(world, filepath.Base(eqflib.LatestCheckpoint(world)))
	if r, err = zoo.LoadRun(first); err != nil || r.DiT.HasReadout() || r.Dir != world || r.Checkpoint != first {
		t.Fatalf("LoadRun(a checkpoint file): %v (readout %v, dir %s)", err, r != nil && r.DiT.HasReadout(), r.Dir)
	}
	got, err := r.Clips(2, 2, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := zoo.NewClips(pan, ds.Stats, 2, 2, 4, 8, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.All.Data, ref.All.Data) || !reflect.DeepEqual(got.Cond, ref.Cond) {
		t.Error("a pan run's clips are not NewClips' pan validation clips")
	}

	// what a run without train.json, a broken one and bad records say
	os.Remove(filepath.Join(world, zoo.TrainedOnFile))
	if r, err = zoo.LoadRun(world); err != nil || r.TrainedOn != nil {
		t.Fatalf("a run of an earlier eqf: %v", err)
	}
	if _, err := r.Clips(1, 2, 4, 0); err == nil || !strings.Contains(err.Error(), "has no train.json") {
		t.Errorf("Clips without train.json: %v", err)
	}
	if got, want := r.String(), fmt.Sprintf("run %s (%s), with no train.json: %s", world, filepath.Base(r.Checkpoint), r.DiT.String()); got != want {
		t.Errorf("String() without train.json = %q, want %q", got, want)
	}
	// LoadRun's error unread: the nil run's methods say so instead of panicking.
	var none *zoo.Run
	if _, err := none.Clips(1, 2, 4, 0); err == nil || err.Error() != "zoo: Run.Clips of a nil *Run: LoadRun returned an error, read it" {
		t.Errorf("Clips of a nil run: %v", err)
	}
	if _, err := none.History(); err == nil || !strings.HasPrefix(err.Error(), "zoo: Run.History of a nil *Run") {
		t.Errorf("History of a nil run: %v", err)
	}
	if none.String() != "<nil run>" {
		t.Errorf("String() of a nil run = %q", none.String())
	}
	os.WriteFile(filepath.Join(world, zoo.TrainedOnFile), []byte(`{"world": "pan"}`), 0o644)
	if _, err := zoo.LoadRun(world); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(world, zoo.TrainedOnFile)+": the training window Frames = 0 out of range") {
		t.Errorf("a train.json without a window: %v", err)
	}
	for _, bad := range []struct {
		on   zoo.TrainedOn
		want string
	}{
		{zoo.TrainedOn{World: "pan", Data: clipDir, Frames: 4}, "a run is trained on a world or on data"},
		{zoo.TrainedOn{Frames: 4}, "a run is trained on a world or on data"},
		{zoo.TrainedOn{World: "pan", HeldOut: []string{"a"}, Frames: 4}, `validation clips (HeldOut = ["a"], Val = "") of world pan`},
		{zoo.TrainedOn{World: "pan", Val: clipDir, Frames: 4}, `validation clips (HeldOut = [], Val = "` + clipDir + `") of world pan`},
		{zoo.TrainedOn{Data: clipDir, Val: clipDir, HeldOut: []string{"a"}, Frames: 4}, "a run validates on one of them"},
	} {
		if err := bad.on.Save(t.TempDir()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Save(%+v): %v, want %q", bad.on, err, bad.want)
		}
	}
	if _, err := zoo.LoadRun(filepath.Join(root, "none")); err == nil || !strings.Contains(err.Error(), "zoo: LoadRun") {
		t.Errorf("a missing run: %v", err)
	}
	if _, err := zoo.LoadRun(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no checkpoint in") {
		t.Errorf("a folder without checkpoints: %v", err)
	}
}
