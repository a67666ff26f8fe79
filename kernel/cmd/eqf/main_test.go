package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/zoo"
)

func TestSettings(t *testing.T) {
	dc := eqflib.DiTPresets["tiny"]
	s := settings{}
	if err := s.Set("lr=0.01"); err != nil {
		t.Fatal(err)
	}
	s.Set("depth=3")
	s.Set("weight_decay=0.05")
	tp, devices := eqflib.TrainPresets["quick"], 0
	if err := applySettings(s, &tp, &devices, &dc); err != nil || tp.LR != 0.01 || tp.WeightDecay != 0.05 || dc.Depth != 3 {
		t.Errorf("applySettings: %v, lr %g weight_decay %g depth %d", err, tp.LR, tp.WeightDecay, dc.Depth)
	}
	if err := s.Set("novalue"); err == nil {
		t.Error("-set without = accepted")
	}
	for _, bad := range []settings{{"speed": "1"}, {"lr": "fast"}, {"wd": "0.1"}, {"batch": "2.5"}} {
		if err := applySettings(bad, &tp, &devices, &dc); err == nil || !strings.Contains(err.Error(), "-set") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// A tiny train → readout → sample run writes everything it promises.
func TestTrainThenSample(t *testing.T) {
	dir := t.TempDir()
	a, err := parseTrainArgs("train", []string{"-preset", "tiny", "-steps", "6", "-readout-steps", "3", "-out", dir, "-ckpt-every", "3", "-eval-every", "3"}, defaultTrain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train(a); err != nil {
		t.Fatal(err)
	}
	s, err := parseSampleArgs("sample", []string{"-ckpt", dir, "-out", dir, "-frames", "6", "-steps", "4"}, defaultSample)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample(s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"history.csv", "history.json", "loss.png", "stats.json", "train.json", "rollout.gif", "rollout.png", "rollout.html", "truth.png", "ckpt-00000006.eqf"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// resuming at the final step trains nothing more and keeps the history
	a.resume = true
	if _, err := train(a); err != nil {
		t.Fatal(err)
	}
	bad, _ := parseSampleArgs("sample", []string{"-ckpt", dir, "-context", "4", "-out", dir}, defaultSample)
	if err := sample(bad); err == nil {
		t.Error("-context 4 with a 4-frame window was accepted")
	}
	// -sampler is eqflib.ParseSampler's string: an option the sampler does not read is an error
	// naming the flag.
	for spec, wantErr := range map[string]bool{"gd:0.5": true, "ddim,warp=sd3": true, "euler": false,
		"budget:0.2": false, "heun": true, "nag:0.3,closed,warp=c": false} {
		_, err := parseSampleArgs("sample", []string{"-ckpt", dir, "-sampler", spec, "-out", dir}, defaultSample)
		if (err != nil) != wantErr || (err != nil && !strings.Contains(err.Error(), "-sampler")) {
			t.Errorf("-sampler %s: error %v, want one: %v (naming -sampler)", spec, err, wantErr)
		}
	}
}

// A batch of latent clips in one .npy [N, T, C, H, W] with its actions beside it: trained on,
// its held-out clip NAME.npy[i] sampled, one clip of it named on the command line.
func TestTrainOnLatentBatch(t *testing.T) {
	dir := t.TempDir()
	batch := filepath.Join(dir, "walks.npy")
	v, acts := make([]float64, 3*6*2*8*8), make([]float64, 3*6*2)
	for i := range v {
		v[i] = float64(i%11) / 11
	}
	for i := range acts {
		acts[i] = float64(i % 2)
	}
	data.SaveNpy(batch, []int{3, 6, 2, 8, 8}, v)
	data.SaveNpy(filepath.Join(dir, "walks.actions.npy"), []int{3, 6, 2}, acts)
	out := filepath.Join(dir, "run")
	a, err := parseTrainArgs("train", []string{"-data", batch, "-frames", "3", "-steps", "2", "-readout-steps", "1", "-out", out}, defaultTrain)
	if err != nil {
		t.Fatal(err)
	}
	model, err := train(a)
	if err != nil || model.Config.Channels != 2 || model.Config.CondDim != 2 || model.Config.Height != 8 {
		t.Fatalf("training on a batch: %v", err)
	}
	on, err := zoo.ReadTrainedOn(out)
	if err != nil || on == nil || on.Data != batch || !slices.Equal(on.HeldOut, []string{"walks.npy[2]"}) {
		t.Fatalf("train.json: %+v, %v", on, err)
	}
	s, err := parseSampleArgs("sample", []string{"-ckpt", out, "-out", filepath.Join(dir, "s"), "-steps", "2"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil || s.clip != batch+"[2]" || s.frames != 6 {
		t.Errorf("sampling the held-out clip: %v (%d frames of %s)", err, s.frames, s.clip)
	}
	s, err = parseSampleArgs("sample", []string{"-ckpt", out, "-out", filepath.Join(dir, "s"), "-clip", batch}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if want := "holds 3 clips: name one of them (-clip '" + batch + "[0]')"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-clip of a batch: %v, want %q", err, want)
	}
	// one clip of the batch, to train on and to sample
	one := filepath.Join(dir, "one")
	a, err = parseTrainArgs("train", []string{"-data", batch + "[1]", "-frames", "3", "-steps", "1", "-readout-steps", "1", "-out", one}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if on, _ := zoo.ReadTrainedOn(one); err != nil || on == nil || on.Data != batch+"[1]" || len(on.HeldOut) != 0 {
		t.Fatalf("training on clip 1 of the batch: %v, train.json %+v", err, on)
	}
	s, err = parseSampleArgs("sample", []string{"-ckpt", one, "-out", filepath.Join(dir, "s1"), "-steps", "1"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil || s.clip != batch+"[1]" {
		t.Errorf("sampling a run on clip 1: %v (%s)", err, s.clip)
	}
	for _, c := range []struct{ flag, path, want string }{
		{"-clip", batch + "[3]", "clip index 3 out of range: the batch holds 3 clips, 0 to 2"},
		{"-clip", filepath.Join(dir, "none.npy[0]"), "-clip: stat " + filepath.Join(dir, "none.npy")},
	} {
		s, err := parseSampleArgs("sample", []string{"-ckpt", out, "-out", filepath.Join(dir, "s"), c.flag, c.path}, defaultSample)
		if err == nil {
			err = sample(s)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.flag, c.path, err, c.want)
		}
	}
}

// eqf train -data DIR -val DIR trains on every clip of -data and validates on -val's: train.json
// records both, eqf sample -ckpt rolls out over -val's first clip, eqf compare over -val's clips,
// -resume refuses another -val; -val without -data, or the same clips, is refused.
func TestTrainWithVal(t *testing.T) {
	dir := t.TempDir()
	m := data.NewMaze(data.DefaultMazeConfig())
	write := func(folder string, seeds ...uint64) string {
		for _, seed := range seeds {
			c, _ := data.RenderClip(m, seed, 8, 8, 8)
			if err := data.SaveFrameDir(filepath.Join(dir, folder, fmt.Sprintf("walk-%d", seed)), c, m.CondNames()); err != nil {
				t.Fatal(err)
			}
		}
		return filepath.Join(dir, folder)
	}
	clips, val := write("train", 1, 2), write("val", 11, 12)
	runs := map[string]string{}
	for _, objective := range []string{"fm", "eqf"} {
		runs[objective] = filepath.Join(dir, objective)
		a, err := parseTrainArgs("train", []string{"-data", clips, "-val", val, "-objective", objective, "-frames", "3", "-steps", "2", "-eval-every", "2",
			"-readout-steps", "1", "-set", "patch=4", "-out", runs[objective]}, defaultTrain)
		if err == nil {
			_, err = train(a)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	on, err := zoo.ReadTrainedOn(runs["eqf"])
	if err != nil || on == nil || on.Data != clips || on.Val != val || len(on.HeldOut) != 0 ||
		!slices.Equal(on.Commands, []string{"eqf train -data " + clips + " -val " + val + " -objective eqf -frames 3 -steps 2 -eval-every 2 -readout-steps 1 -set patch=4 -out " + runs["eqf"]}) {
		t.Fatalf("train.json: %+v, %v", on, err)
	}
	hist, _ := os.ReadFile(filepath.Join(runs["eqf"], "history.csv"))
	if rows := strings.Split(strings.TrimSpace(string(hist)), "\n"); len(rows) != 3 || strings.HasSuffix(rows[2], ",0") {
		t.Errorf("history: %q, want a validation loss at step 2 (-val's clips)", rows)
	}
	// every clip of -data trained: the statistics are both clips' (a held-out clip would not count)
	both, _, _ := data.LoadClips(clips)
	ds, _ := data.NewClipDataset(both, 3, 1, nil)
	if st, err := data.LoadStats(filepath.Join(runs["eqf"], "stats.json")); err != nil || !slices.Equal(st.Mean, ds.Stats.Mean) {
		t.Errorf("stats %v, want both train clips' %v (%v)", st.Mean, ds.Stats.Mean, err)
	}
	// a resumed run adds its command line to the record
	a, err := parseTrainArgs("train", []string{"-data", clips, "-val", val, "-resume", "-frames", "3", "-steps", "3", "-set", "patch=4", "-out", runs["eqf"]}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if on, _ := zoo.ReadTrainedOn(runs["eqf"]); err != nil || on == nil || len(on.Commands) != 2 || !strings.Contains(on.Commands[1], " -resume ") {
		t.Errorf("resuming: %v, train.json %+v", err, on)
	}
	s, err := parseSampleArgs("sample", []string{"-ckpt", runs["eqf"], "-out", filepath.Join(dir, "s"), "-steps", "1", "-sampler", "gd"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil || s.clip != filepath.Join(val, "walk-11") {
		t.Errorf("sampling over -val's first clip: %v (%s)", err, s.clip)
	}
	// without -sampler, each run takes what its model takes: FM Euler (closed-loop NAG was refused,
	// asking for an h_ω FM never has)
	s, err = parseSampleArgs("sample", []string{"-ckpt", runs["fm"], "-out", filepath.Join(dir, "s-fm"), "-steps", "1"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil {
		t.Errorf("sampling an FM run with its default sampler: %v", err)
	}
	s, err = parseSampleArgs("sample", []string{"-ckpt", runs["eqf"], "-out", filepath.Join(dir, "s-eqf"), "-steps", "1"}, defaultSample)
	var printed string
	if err == nil {
		printed = output(&os.Stdout, func() { err = sample(s) })
	}
	if err != nil || !strings.Contains(printed, "ClosedLoop") {
		t.Errorf("sampling an EqF run with h_ω and its default sampler: %v, %q, want closed-loop NAG", err, printed)
	}
	// -clips 2: both validation clips in one batch, PSNR per clip and frame in psnr.csv, the first
	// clip's strips (the strip of walk-11 as saved)
	many := filepath.Join(dir, "many")
	s, err = parseSampleArgs("sample", []string{"-ckpt", runs["eqf"], "-out", many, "-steps", "1", "-sampler", "gd", "-clips", "2"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(bytes.NewReader(must(os.ReadFile(filepath.Join(many, "psnr.csv"))))).ReadAll()
	if len(rows) != 1+2*6 || rows[1][0] != "walk-11" || rows[1][1] != "2" || rows[12][0] != "walk-12" || rows[12][1] != "7" {
		t.Errorf("psnr.csv: %v", rows)
	}
	if page := string(must(os.ReadFile(filepath.Join(many, "rollout.html")))); !strings.Contains(page, "walk-12") || strings.Count(page, "rollout") < 2 {
		t.Error("-clips 2: rollout.html does not show both clips beside their rollouts")
	}
	first, _, _ := data.LoadClips(filepath.Join(val, "walk-11"))
	data.SaveStrip(filepath.Join(dir, "want.png"), first[0], 4)
	if !bytes.Equal(must(os.ReadFile(filepath.Join(many, "truth.png"))), must(os.ReadFile(filepath.Join(dir, "want.png")))) {
		t.Error("-clips 2: truth.png is not the first validation clip's")
	}
	// the first clip's rollout starts from its own context: the strips' first two frames agree
	gen, truth := stripFrames(t, filepath.Join(many, "rollout.png"), 8), stripFrames(t, filepath.Join(many, "truth.png"), 8)
	if !slices.Equal(gen[0], truth[0]) || !slices.Equal(gen[1], truth[1]) || slices.Equal(gen[5], truth[5]) {
		t.Error("-clips 2: the first rollout's context is not its clip's")
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-clips", "3"}, "-clips = 3 out of range: " + val + " holds 2 clip(s), at most 2"},
		{[]string{"-clip", val}, "holds 2 clips: name one of them (-clip " + filepath.Join(val, "walk-11") + "), or roll out over several (-clips N)"},
	} {
		s, err := parseSampleArgs("sample", append([]string{"-ckpt", runs["eqf"], "-out", many, "-steps", "1", "-sampler", "gd"}, bad.args...), defaultSample)
		if err == nil {
			err = sample(s)
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("eqf sample %v: %v, want %q", bad.args, err, bad.want)
		}
	}
	c, err := parseCompareArgs([]string{"-fm", runs["fm"], "-eqf", runs["eqf"], "-out", filepath.Join(dir, "cmp")})
	if err != nil || len(c.truth) != 2 || c.truth[0].Frames != 8 || c.frames != 6 {
		t.Errorf("compare over -val's clips: %v (%d clips, %d frames)", err, len(c.truth), c.frames)
	}
	other := write("other", 21)
	fmOther := filepath.Join(dir, "fm-other")
	a, err = parseTrainArgs("train", []string{"-data", clips, "-val", other, "-objective", "fm", "-frames", "3", "-steps", "1", "-set", "patch=4", "-out", fmOther}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parseCompareArgs([]string{"-fm", fmOther, "-eqf", runs["eqf"], "-out", filepath.Join(dir, "cmp")}); err == nil ||
		!strings.Contains(err.Error(), "(validation: "+other+"), -eqf") {
		t.Errorf("compare of runs validated on other clips: %v", err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-val", val}, "-val: names the validation clips of -data, which is not given"},
		{[]string{"-data", clips, "-val", clips + "/"}, "-val = " + clips + "/ out of range: the clips of -data, trained on"},
		{[]string{"-data", clips, "-val", filepath.Join(dir, "none")}, "-val: "},
		{[]string{"-data", clips, "-val", other, "-resume", "-out", runs["eqf"]}, "-resume: " + runs["eqf"] + " was trained on the clips in " + clips + " (validation: " + val + "), not"},
	} {
		args := append([]string{"-out", filepath.Join(dir, "bad"), "-frames", "3", "-steps", "3", "-set", "patch=4"}, bad.args...) // a -out of bad.args wins
		a, err := parseTrainArgs("train", args, defaultTrain)
		if err == nil {
			_, err = train(a)
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("eqf train %s: %v, want %q", strings.Join(bad.args, " "), err, bad.want)
		}
	}
	// validation clips of another size are named
	big, _ := data.RenderClip(m, 31, 8, 12, 12)
	data.SaveFrameDir(filepath.Join(dir, "big", "walk-31"), big, m.CondNames())
	a, err = parseTrainArgs("train", []string{"-data", clips, "-val", filepath.Join(dir, "big"), "-frames", "3", "-steps", "1", "-set", "patch=4", "-out", filepath.Join(dir, "big-run")}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if want := "validation clip 0 is 12x12 with 3 channels and 3 actions per frame: the train clips are 8x8"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-val of another size: %v, want %q", err, want)
	}
	bigClip := filepath.Join(dir, "big", "walk-31")
	s, err = parseSampleArgs("sample", []string{"-ckpt", runs["eqf"], "-out", many, "-clip", bigClip}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if want := "-clip " + bigClip + " is 12x12 with 3 channels and 3 actions per frame: the model takes 8x8"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("-clip of another size: %v, want %q", err, want)
	}
}

// eqf train -data trains on a folder of the user's clips at their size, holding a clip out, and
// eqf sample -ckpt rolls out over that held-out clip's actions with the training window; -resume
// refuses other data.
func TestTrainOnClips(t *testing.T) {
	dir := t.TempDir()
	clips, m := filepath.Join(dir, "clips"), data.NewMaze(data.DefaultMazeConfig())
	for k, name := range []string{"a", "b", "c"} {
		c, _ := data.RenderClip(m, uint64(k+1), 6, 12, 16) // 12 high, 16 wide: not the tiny preset's 16×16
		if err := data.SaveFrameDir(filepath.Join(clips, name), c, m.CondNames()); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "run")
	a, err := parseTrainArgs("train", []string{"-data", clips, "-frames", "3", "-steps", "4", "-eval-every", "2", "-readout-steps", "2", "-out", out}, defaultTrain)
	if err != nil {
		t.Fatal(err)
	}
	model, err := train(a)
	if err != nil {
		t.Fatal(err)
	}
	if c := model.Config; c.Height != 12 || c.Width != 16 || c.CondDim != 3 {
		t.Errorf("the model is %dx%d with %d actions: want the clips' 16x12 with 3", c.Width, c.Height, c.CondDim)
	}
	on, err := zoo.ReadTrainedOn(out)
	if err != nil || on == nil || on.Data != clips || !slices.Equal(on.HeldOut, []string{"c"}) || on.Frames != 3 {
		t.Errorf("train.json: %+v, %v", on, err)
	}
	hist, _ := os.ReadFile(filepath.Join(out, "history.csv"))
	if rows := strings.Split(strings.TrimSpace(string(hist)), "\n"); len(rows) != 5 || strings.HasSuffix(rows[2], ",0") {
		t.Errorf("history: %q, want 4 steps and a validation loss at step 2 (clip c)", rows)
	}
	s, err := parseSampleArgs("sample", []string{"-ckpt", out, "-out", dir, "-steps", "2"}, defaultSample)
	if err != nil {
		t.Fatal(err)
	}
	if err := sample(s); err != nil {
		t.Fatal(err)
	}
	if s.window != 3 || s.frames != 6 || s.clip != filepath.Join(clips, "c") {
		t.Errorf("sampled windows of %d, %d frames of %q: want the training window 3 and clip c's 6 frames", s.window, s.frames, s.clip)
	}
	held, _ := data.LoadFrameDir(filepath.Join(clips, "c"))
	want := filepath.Join(dir, "want.png")
	data.SaveStrip(want, held, 4)
	if got, _ := os.ReadFile(filepath.Join(dir, "truth.png")); !bytes.Equal(got, must(os.ReadFile(want))) {
		t.Error("truth.png is not the held-out clip c")
	}
	for args, wantErr := range map[string]string{
		"-clip " + clips:                      "holds 3 clips: name one of them",
		"-clip " + clips + "/a -frames 7":     "-clip " + clips + "/a has 6 frames",
		"-clip " + clips + "/a -world maze":   "-world and -clip",
		"-clip " + filepath.Join(dir, "none"): "-clip",
	} {
		s, err := parseSampleArgs("sample", append([]string{"-ckpt", out, "-out", dir}, strings.Fields(args)...), defaultSample)
		if err == nil {
			err = sample(s)
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("sample %s: %v, want an error saying %q", args, err, wantErr)
		}
	}
	// -resume on other data, -data with -world, and frames the preset's patches do not divide
	other := filepath.Join(dir, "other")
	c, _ := data.RenderClip(m, 9, 6, 10, 10)
	data.SaveFrameDir(filepath.Join(other, "x"), c, nil)
	for args, wantErr := range map[string]string{
		"-resume -out " + out:                     "was trained on the clips in " + clips + ", not world maze",
		"-data " + clips + " -world maze":         "-world and -data",
		"-data " + other + " -out " + dir + "/o2": "-data: the clips' frames are 10x10, the tiny preset's patches 4x4: -set patch=P",
	} {
		a, err := parseTrainArgs("train", append([]string{"-steps", "4", "-frames", "3"}, strings.Fields(args)...), defaultTrain)
		if err == nil {
			_, err = train(a)
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("train %s: %v, want an error saying %q", args, err, wantErr)
		}
	}
	// a patch that divides the clips' size (not the preset's 16) is the clips' business
	a, err = parseTrainArgs("train", []string{"-data", other, "-frames", "3", "-steps", "1", "-set", "patch=5", "-out", filepath.Join(dir, "o5")}, defaultTrain)
	if err == nil {
		model, err = train(a)
	}
	if err != nil || model.Config.Patch != 5 || model.Config.Height != 10 {
		t.Errorf("-set patch=5 on 10x10 clips: %v", err)
	}
	// resuming with longer windows is a choice: train.json records them for eqf sample
	a, err = parseTrainArgs("train", []string{"-resume", "-data", clips, "-frames", "4", "-steps", "5", "-readout-steps", "1", "-out", out}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if on, _ := zoo.ReadTrainedOn(out); err != nil || on == nil || on.Frames != 4 {
		t.Errorf("resumed with -frames 4: %v, train.json %+v", err, on)
	}
	// .npy latents of four channels, no actions
	lat := filepath.Join(dir, "lat")
	os.Mkdir(lat, 0o755)
	for _, name := range []string{"p.npy", "q.npy"} {
		v := make([]float64, 5*4*8*8)
		for i := range v {
			v[i] = float64(i%7) / 7
		}
		data.SaveNpy(filepath.Join(lat, name), []int{5, 4, 8, 8}, v)
	}
	a, err = parseTrainArgs("train", []string{"-data", lat, "-frames", "3", "-steps", "2", "-out", filepath.Join(dir, "lat-run")}, defaultTrain)
	if err == nil {
		model, err = train(a)
	}
	if err != nil || model.Config.Channels != 4 || model.Config.CondDim != 0 {
		t.Fatalf("latents: %v", err)
	}
	s, err = parseSampleArgs("sample", []string{"-ckpt", filepath.Join(dir, "lat-run"), "-out", filepath.Join(dir, "lat-sample"), "-steps", "2", "-sampler", "gd"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil || s.frames != 5 || s.clip != filepath.Join(lat, "q.npy") {
		t.Errorf("sampling latents: %v (%d frames of %s)", err, s.frames, s.clip)
	}
	if _, err := os.Stat(filepath.Join(dir, "lat-sample", "rollout.html")); err == nil {
		t.Error("a player of 4-channel latents, which plots cannot draw")
	}
	// the clips moved away: said, with what to do
	os.Rename(lat, lat+"-moved")
	s, err = parseSampleArgs("sample", []string{"-ckpt", filepath.Join(dir, "lat-run"), "-out", filepath.Join(dir, "lat-sample"), "-sampler", "gd"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err == nil || !strings.Contains(err.Error(), "is not there (moved?): give -clip PATH") {
		t.Errorf("sampling a run whose clips moved: %v", err)
	}
	// a world's run: sampled on its world (the maze by default before), which has no actions
	a, err = parseTrainArgs("train", []string{"-world", "shapes", "-steps", "2", "-out", filepath.Join(dir, "shapes")}, defaultTrain)
	if err == nil {
		_, err = train(a)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err = parseSampleArgs("sample", []string{"-ckpt", filepath.Join(dir, "shapes"), "-out", filepath.Join(dir, "shapes"), "-steps", "2", "-sampler", "gd"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	if err != nil || s.world != "shapes" {
		t.Errorf("sampling a shapes run: %v (world %s)", err, s.world)
	}
	// -clips 3 of a world: its validation-style clips of seeds 7, 9, 11, the first the one -clips 1 drew
	s, err = parseSampleArgs("sample", []string{"-ckpt", filepath.Join(dir, "shapes"), "-out", filepath.Join(dir, "shapes3"), "-steps", "2", "-sampler", "gd", "-clips", "3"}, defaultSample)
	if err == nil {
		err = sample(s)
	}
	rows, _ := csv.NewReader(bytes.NewReader(must(os.ReadFile(filepath.Join(dir, "shapes3", "psnr.csv"))))).ReadAll()
	if err != nil || len(rows) != 1+3*14 || rows[1][0] != "shapes seed 7" || rows[1+2*14][0] != "shapes seed 11" {
		t.Errorf("-clips 3 of shapes: %v, psnr.csv %v", err, rows)
	}
	if !bytes.Equal(must(os.ReadFile(filepath.Join(dir, "shapes3", "truth.png"))), must(os.ReadFile(filepath.Join(dir, "shapes", "truth.png")))) {
		t.Error("-clips 3: the first clip is not the one -clips 1 rolls out over")
	}
	// a train.json that says nothing usable is named, not guessed around
	for body, wantErr := range map[string]string{"{": "is not readable JSON", `{"frames": 4}`: "a run is trained on a world or on data"} {
		os.WriteFile(filepath.Join(dir, "shapes", "train.json"), []byte(body), 0o644)
		s, err = parseSampleArgs("sample", []string{"-ckpt", filepath.Join(dir, "shapes"), "-out", filepath.Join(dir, "shapes"), "-sampler", "gd"}, defaultSample)
		if err == nil {
			err = sample(s)
		}
		if err == nil || !strings.Contains(err.Error(), "-ckpt: "+filepath.Join(dir, "shapes", "train.json")) || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("train.json %s: %v, want an error naming it: %s", body, err, wantErr)
		}
	}
}

// clipsPSNR compares the generated frames only, in the clips' units: [0, 1] pixels against a peak
// of 1, latents against their own range (all clips' together).
func TestClipPSNR(t *testing.T) {
	for _, c := range []struct {
		lo, hi, offset float64
		want           float64 // dB
		peak           float64
	}{{0, 1, 0.1, 20, 1}, {-2, 2, 0.4, 20, 4}, {0.2, 0.7, 0.05, 26.0206, 1}} {
		truth := &data.Clip{Frames: 4, Channels: 2, Height: 2, Width: 2}
		gen := &data.Clip{Frames: 4, Channels: 2, Height: 2, Width: 2}
		for i := 0; i < 32; i++ {
			v := c.lo + (c.hi-c.lo)*float64(i%5)/4
			truth.Pixels = append(truth.Pixels, v)
			if i < 8 {
				gen.Pixels = append(gen.Pixels, v+100) // the context frame: not counted
			} else if i%2 == 0 {
				gen.Pixels = append(gen.Pixels, v+c.offset)
			} else {
				gen.Pixels = append(gen.Pixels, v-c.offset)
			}
		}
		psnr, peak, err := clipsPSNR([]*data.Clip{gen}, []*data.Clip{truth}, 1)
		if err != nil || len(psnr) != 1 || len(psnr[0]) != 3 || peak != c.peak {
			t.Fatalf("%+v: %v, %v, peak %g", c, err, psnr, peak)
		}
		for _, p := range psnr[0] {
			if math.Abs(p-c.want) > 1e-3 {
				t.Errorf("%+v: PSNR %v, want %g dB", c, psnr, c.want)
			}
		}
	}
	// two clips: pixels in [0, 1] beside latents in [-2, 2] share the peak 4, so an error of 0.1
	// is 32.04 dB in both
	a := &data.Clip{Frames: 2, Channels: 1, Height: 1, Width: 2, Pixels: []float64{0, 1, 0.5, 0.5}}
	b := &data.Clip{Frames: 2, Channels: 1, Height: 1, Width: 2, Pixels: []float64{-2, 2, 1, 1}}
	ga := &data.Clip{Frames: 2, Channels: 1, Height: 1, Width: 2, Pixels: []float64{0, 1, 0.6, 0.4}}
	gb := &data.Clip{Frames: 2, Channels: 1, Height: 1, Width: 2, Pixels: []float64{-2, 2, 1.1, 0.9}}
	psnr, peak, err := clipsPSNR([]*data.Clip{gb, ga}, []*data.Clip{b, a}, 1)
	if want := 20 * math.Log10(4/0.1); err != nil || peak != 4 || len(psnr) != 2 || math.Abs(psnr[0][0]-want) > 1e-9 || math.Abs(psnr[1][0]-want) > 1e-9 {
		t.Errorf("two clips: %v, peak %g, %v", err, peak, psnr)
	}
}

// stripFrames reads a strip SaveStrip wrote of n frames as each frame's RGB values in [0, 1].
func stripFrames(t *testing.T, path string, n int) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	w := b.Dx() / n
	frames := make([][]float64, n)
	for k := range frames {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := k * w; x < (k+1)*w; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				frames[k] = append(frames[k], float64(r>>8)/255, float64(g>>8)/255, float64(bl>>8)/255)
			}
		}
	}
	return frames
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestZooModels: eqf sample -model NAME samples a zoo model with what its recipe and card say
// (the window, the steps per frame of its evaluation, FM Euler for FM, closed-loop NAG for EqF
// with h_ω) unless the command line says otherwise, and refuses what the model cannot do; eqf
// compare -recipe compares the zoo's FM and EqF with its action net.
func TestZooModels(t *testing.T) {
	root := t.TempDir()
	t.Setenv(zoo.EnvRoot, root)
	z, err := zoo.Open("quick")
	if err != nil {
		t.Fatal(err)
	}
	// The backbones first, so that their cards go without rollout scores (no action net yet).
	if err := z.Build("eqf", "fm"); err != nil {
		t.Fatal(err)
	}
	if err := z.Build("action-net"); err != nil {
		t.Fatal(err)
	}
	depth := z.Recipe.Eval.WithDefaults().Depth
	run := func(args ...string) (string, error) {
		a, err := parseSampleArgs("sample", append([]string{"-recipe", "quick", "-out", t.TempDir(), "-frames", "6"}, args...), defaultSample)
		if err != nil {
			return "", err
		}
		return output(&os.Stdout, func() { err = sample(a) }), err
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-model", "eqf"}, []string{"windows of 4", "the quick zoo's eqf of training seed 1", "ClosedLoop", fmt.Sprintf("%d steps per frame", depth)}},
		{[]string{"-model", "fm"}, []string{"the quick zoo's fm", "with euler()", fmt.Sprintf("%d steps per frame", depth)}},
		{[]string{"-model", "eqf", "-sampler", "gd", "-window", "3", "-steps", "2"}, []string{"windows of 3", "with gd(", "2 steps per frame"}},
	} {
		out, err := run(c.args...)
		if err != nil {
			t.Errorf("eqf sample %s: %v", strings.Join(c.args, " "), err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("eqf sample %s says %q, want %q in it", strings.Join(c.args, " "), out, w)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", "fm", "-sampler", "nag:0.3,closed"}, "closed-loop sampling needs h_ω, which the zoo's fm lacks"},
		{[]string{"-model", "fm", "-train-seed", "2"}, "of training seed 2 is not trained in " + filepath.Join(z.Dir, "seed-2")},
		{[]string{"-model", "eqf", "-ckpt", root}, "-ckpt and -model"},
		{[]string{"-model", "eqf", "-world", "shapes"}, "-world"},
	} {
		if _, err := run(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eqf sample %s: error %v, want one with %q", strings.Join(c.args, " "), err, c.want)
		}
	}

	out := t.TempDir()
	if err := runCompare([]string{"-recipe", "quick", "-clips", "2", "-frames", "20", "-time-chunk", "10", "-depth", "2", "-out", out}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"FM " + filepath.Join(z.Dir, "fm"), "EqF " + filepath.Join(z.Dir, "eqf"), "Features " + filepath.Join(z.Dir, "action-net", "action-net.eqf")} {
		if !strings.Contains(string(md), w) {
			t.Errorf("eqf compare -recipe quick: results.md does not name %q:\n%s", w, md)
		}
	}
	for _, args := range [][]string{{"-train-seed", "2"}, {"-train-seeds", "2"}} {
		if err := runCompare(append([]string{"-recipe", "quick", "-out", out}, args...)); err == nil || !strings.Contains(err.Error(), "training seed 2") {
			t.Errorf("eqf compare -recipe quick %s: %v, want an error naming training seed 2", strings.Join(args, " "), err)
		}
	}
	if err := runCompare([]string{"-recipe", "quick", "-train-seed", "1", "-train-seeds", "2"}); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("eqf compare -train-seed 1 -train-seeds 2: %v, want it refused", err)
	}

	// -train-seeds 2 compares training runs 1 and 2, paired by training run.
	if err := z.WithTrainSeed(2).Build("eqf", "fm"); err != nil {
		t.Fatal(err)
	}
	if err := runCompare([]string{"-recipe", "quick", "-train-seeds", "2", "-clips", "2", "-frames", "20", "-time-chunk", "10", "-depth", "2", "-out", out}); err != nil {
		t.Fatal(err)
	}
	r, err := paper.LoadResult(out)
	if err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out, "results.md"))
	for _, w := range []string{"over 2 training runs", "1. FM " + filepath.Join(z.Dir, "fm"), "2. FM " + filepath.Join(z.Dir, "seed-2", "fm", "ckpt-"), "EqF " + filepath.Join(z.Dir, "seed-2", "eqf", "ckpt-"),
		"FVD (maze-I3D) − FM Euler's, paired by training run", "![fvd](fvd.png)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("eqf compare -recipe quick -train-seeds 2: results.md does not say %q:\n%s", w, md)
		}
	}
	n := r.Numbers[0]
	if len(n.PerSeed) != 2 {
		t.Fatalf("%q: per run %v, want training runs 1 and 2's", n.Name, n.PerSeed)
	}
	if !strings.Contains(string(md), "is in run-1/ … run-2/ beside this one") {
		t.Errorf("results.md does not point to the runs' own results:\n%s", md)
	}
	for k, ckpt := range []string{filepath.Join(z.Dir, "eqf", "ckpt-"), filepath.Join(z.Dir, "seed-2", "eqf", "ckpt-")} {
		own, err := paper.LoadResult(filepath.Join(out, fmt.Sprintf("run-%d", k+1)))
		if err != nil || !strings.Contains(strings.Join(own.Notes, " "), ckpt) || len(own.Numbers[0].PerSeed) != 0 || own.Numbers[0].Ours != n.PerSeed[k] {
			t.Errorf("training run %d's own result: %v, %+v; want its checkpoint %s… and its value %g", k+1, err, own, ckpt, n.PerSeed[k])
		}
	}
	if r.Recipe != "quick" || !slices.Equal(r.TrainSeeds, []int{1, 2}) {
		t.Errorf("results.json: recipe %q, training seeds %v; want quick, [1 2]", r.Recipe, r.TrainSeeds)
	}
	// A run that fails after others (here: its folder cannot be made) says where theirs are.
	blocked := t.TempDir()
	if err := os.WriteFile(filepath.Join(blocked, "run-2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = runCompare([]string{"-recipe", "quick", "-train-seeds", "2", "-clips", "2", "-frames", "20", "-time-chunk", "10", "-depth", "2", "-out", blocked})
	if err == nil || !strings.Contains(err.Error(), "training run 1 of 2 was rolled out: its own result is in "+filepath.Join(blocked, "run-1")) {
		t.Errorf("a second run that cannot be saved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(blocked, "run-1", "results.json")); err != nil {
		t.Errorf("the first run's own result is not kept: %v", err)
	}
}

// A tiny FM and EqF pair goes through eqf compare: four methods, results written, FVDs named.
func TestCompareTiny(t *testing.T) {
	dir := t.TempDir()
	for _, obj := range []string{"fm", "eqf"} {
		a, err := parseTrainArgs("train", []string{"-preset", "tiny", "-objective", obj, "-steps", "4", "-readout-steps", "2",
			"-out", filepath.Join(dir, obj), "-ckpt-every", "4", "-eval-every", "0"}, defaultTrain)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := train(a); err != nil {
			t.Fatal(err)
		}
	}
	a := compareArgs{runs: []paper.ComparePair{{FM: filepath.Join(dir, "fm"), EqF: filepath.Join(dir, "eqf")}}, features: filepath.Join(dir, "feat.eqf"), out: dir,
		warp: "c:0.8:0.001", clips: 2, frames: 8, context: 2, horizon: 2, stride: 1, depth: 4, subLen: 4, momentum: 0.2, seed: 3, featureSteps: 3, timeChunk: 5}
	if err := compare(&a); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FVD (maze-I3D)", "FVD (pixels-4x4)", "FM Euler", "EqF GD", "closed loop", "budget-adaptive", "NFE per frame", "FVD (maze-I3D), frames 1–5"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("results.md lacks %q:\n%s", want, raw)
		}
	}
	if _, err := os.Stat(a.features); err != nil {
		t.Errorf("the action net was not stored: %v", err)
	}
	for _, f := range []string{"fvd_over_time.png", "fvd_over_time.html", "rollouts.png", "rollouts.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s was not written: %v", f, err)
		}
	}

	// Several training runs: -fm and -eqf comma-separated, paired in order, each run's data and
	// window the first EqF's. Copies of the runs stand for second training runs here.
	for _, obj := range []string{"fm", "eqf"} {
		if err := os.CopyFS(filepath.Join(dir, obj+"2"), os.DirFS(filepath.Join(dir, obj))); err != nil {
			t.Fatal(err)
		}
	}
	p := func(names ...string) string {
		for i, n := range names {
			names[i] = filepath.Join(dir, n)
		}
		return strings.Join(names, ",")
	}
	flags := func(fm, eqf string, more ...string) []string {
		return append([]string{"-fm", fm, "-eqf", eqf, "-out", filepath.Join(dir, "cmp2"), "-features", a.features}, more...)
	}
	two, err := parseCompareArgs(flags(p("fm", "fm2"), strings.ReplaceAll(p("eqf", "eqf2"), ",", ", ")))
	if err != nil {
		t.Fatal(err)
	}
	if want := []paper.ComparePair{{FM: p("fm"), EqF: p("eqf")}, {FM: p("fm2"), EqF: p("eqf2")}}; !slices.Equal(two.runs, want) {
		t.Errorf("-fm fm,fm2 -eqf eqf,eqf2: runs %v, want %v", two.runs, want)
	}
	on, err := zoo.ReadTrainedOn(filepath.Join(dir, "eqf"))
	if err != nil || on == nil {
		t.Fatalf("the EqF run's train.json: %v, %v", on, err)
	}
	other := *on
	other.World = "shapes"
	if err := other.Save(filepath.Join(dir, "fm2")); err != nil {
		t.Fatal(err)
	}
	longer := *on
	longer.Frames++
	if err := longer.Save(filepath.Join(dir, "eqf2")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{flags(p("fm", "fm2"), p("eqf")), "-fm names 2 training runs and -eqf 1"},
		{flags(p("fm", "fm2")+",", p("eqf", "eqf2", "eqf")), "training run 3 names no checkpoint"},
		{flags(p("fm", "fm2"), p("eqf", "eqf")), "-fm's training run 2: " + p("fm2") + " was trained on world shapes, -eqf's training run 1 " + p("eqf") + " on world maze"},
		{flags(p("fm", "fm"), p("eqf", "eqf2")), "-eqf's training run 2: " + p("eqf2") + " was trained on 5-frame windows, -eqf's training run 1 " + p("eqf") + " on 4"},
		{flags(p("fm", "fm"), p("eqf", "missing")), "-eqf's training run 2: stat " + p("missing")},
		{flags(p("fm"), p("eqf"), "-train-seeds", "2"), "-train-seeds: names training runs of the zoo -recipe"},
		{[]string{"-fm", p("fm"), p("fm2"), "-eqf", p("eqf"), p("eqf2")}, "unexpected argument \"" + p("fm2") + "\""},
		{[]string{"-fm", p("fm"), p("fm2"), "-eqf", p("eqf"), p("eqf2")}, "several training runs go in one word, comma-separated"},
		{[]string{"-fm", p("fm"), "-eqf", p("eqf"), p("eqf2")}, "comma-separated: -fm F1,F2 -eqf E1,E2"},
		{[]string{"-fm", p("fm"), "-eqf", p("eqf"), "-out", p("cmp2"), "extra"}, "unexpected argument \"extra\": the command takes flags only"},
	} {
		if _, err := parseCompareArgs(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eqf compare %s: error %v, want one with %q", strings.Join(c.args, " "), err, c.want)
		}
	}
	if _, err := parseCompareArgs([]string{"-fm", p("fm"), "-eqf", p("eqf"), "-out", p("cmp2"), "extra"}); err == nil || strings.Contains(err.Error(), "comma-separated") {
		t.Errorf("a word after -out: %v, want no word on training runs", err)
	}
	if _, err := parseCompareArgs([]string{"stray"}); err == nil || !strings.Contains(err.Error(), `unexpected argument "stray"`) {
		t.Errorf("a word and no flag: %v", err)
	}
	// One run given twice parses (its window and data are its own) and is refused before any rollout.
	twice, err := parseCompareArgs(flags(p("fm", "fm"), p("eqf", "eqf"), "-horizon", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(twice); err == nil || !strings.Contains(err.Error(), "an earlier run's") {
		t.Errorf("eqf compare of one run twice: %v, want it refused", err)
	}
	// A run of another model (one more block) is refused before any rollout too (here run 1's EqF, against its FM).
	deep, err := parseTrainArgs("train", []string{"-preset", "tiny", "-set", "depth=3", "-steps", "4", "-readout-steps", "2",
		"-out", p("eqf-deep"), "-ckpt-every", "4", "-eval-every", "0"}, defaultTrain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train(deep); err != nil {
		t.Fatal(err)
	}
	deeper, err := parseCompareArgs(flags(p("fm", "fm"), p("eqf-deep", "eqf"), "-horizon", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(deeper); err == nil || !strings.Contains(err.Error(), "training run 1's EqF ("+p("eqf-deep")) || !strings.Contains(err.Error(), "another model than run 1's FM") {
		t.Errorf("eqf compare of a run of another model: %v, want it refused", err)
	}
}

// keptRuns: an interrupted comparison names the runs it kept, and keeps the error it wraps.
func TestKeptRuns(t *testing.T) {
	stop := errors.New("interrupted")
	for _, c := range []struct {
		saved int
		want  string
	}{
		{0, "interrupted"},
		{1, "interrupted (training run 1 of 3 was rolled out: its own result is in " + filepath.Join("out", "run-1") + ")"},
		{2, "interrupted (training runs 1–2 of 3 were rolled out: their own results are in " + filepath.Join("out", "run-*") + ")"},
	} {
		if err := keptRuns(stop, c.saved, 3, "out"); err.Error() != c.want || !errors.Is(err, stop) {
			t.Errorf("keptRuns(%d saved): %q, want %q wrapping the error", c.saved, err, c.want)
		}
	}
}

// TestPaperCompare: `eqf paper compare` reads two folders of saved results and prints B − A per
// number; the committed results against themselves differ nowhere, and a wrong call names what
// it needs.
func TestPaperCompare(t *testing.T) {
	results := filepath.Join("..", "..", "..", "results")
	compare := func(a, b string) string { // what `eqf paper compare a b` prints
		w, err := os.Create(filepath.Join(t.TempDir(), "stdout")) // a file, not a pipe: the table is larger than a pipe's buffer
		if err != nil {
			t.Fatal(err)
		}
		stdout := os.Stdout
		os.Stdout = w
		err = runPaper([]string{"compare", a, b})
		os.Stdout = stdout
		w.Close()
		out, _ := os.ReadFile(w.Name())
		if err != nil {
			t.Fatalf("eqf paper compare %s %s: %v", a, b, err)
		}
		return string(out)
	}
	if out := compare(results, results); !regexp.MustCompile(`\d{3} numbers in both runs, \d+ with an interval over training seeds: 0 differ`).MatchString(out) ||
		!strings.Contains(out, "| minecraft_main | S=2: EqF NAG") {
		t.Errorf("eqf paper compare results results printed:\n%.600s", out)
	}
	// Two results of one experiment: minecraft_main on the 8-frame and the 4-frame windows,
	// whose staircase (S = 1) rows match.
	if out := compare(filepath.Join(results, "minecraft_main-paper-8"), filepath.Join(results, "minecraft_main")); !strings.Contains(out, "| minecraft_main-paper-8 | S=1: FM Euler (c-function): FVD (maze-I3D) |") {
		t.Errorf("eqf paper compare of two minecraft_main results printed:\n%.600s", out)
	}
	// One result against a run: the run's result of the same experiment, the file or its folder.
	for _, args := range [][2]string{{results, filepath.Join(results, "bowls")}, {filepath.Join(results, "bowls", "results.json"), results}} {
		if out := compare(args[0], args[1]); !strings.Contains(out, "| bowls | ") || strings.Contains(out, "| nle | ") {
			t.Errorf("eqf paper compare %s %s printed:\n%.600s", args[0], args[1], out)
		}
	}
	onlyNLE := t.TempDir() // a run that holds nle alone
	if err := os.CopyFS(filepath.Join(onlyNLE, "nle"), os.DirFS(filepath.Join(results, "nle"))); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"compare " + filepath.Join(results, "bowls") + " " + onlyNLE:                       "holds no result of bowls to compare with (it holds nle)",
		"compare " + filepath.Join(results, "bowls") + " " + filepath.Join(results, "nle"): "same experiment",
		"compare " + results:                     "want 2: DIR_A DIR_B",
		"-models EqF,FM nope":                    `experiment "nope" unknown`, // the models as the paper writes them pass
		"list minecraft_main":                    `eqf paper list takes no arguments: got ["minecraft_main"]`,
		"compare " + results + " " + t.TempDir(): "holds no saved result",
		"compare " + results + " /nonexistent":   "/nonexistent",
	} {
		if err := runPaper(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("eqf paper %s: error %v, want one saying %q", args, err, want)
		}
	}
}

// eqf paper pool A B pools results of one experiment on disjoint training seeds into OUT: the
// committed minecraft_main (training seeds 1–3) with a copy of it named training seed 4 gives
// seeds 1–4, its numbers kept without per-seed values left out; it never saves over a result it
// pools, and bad arguments are refused, naming them.
func TestPaperPool(t *testing.T) {
	committed := filepath.Join("..", "..", "..", "results", "minecraft_main")
	r, err := paper.LoadResult(committed)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.TrainSeeds) != "[1 2 3]" {
		t.Fatalf("results/minecraft_main has training seeds %v: this test wants 1–3", r.TrainSeeds)
	}
	r.Notes[0] = strings.Replace(r.Notes[0], "training seeds [1 2 3],", "training seeds [4],", 1)
	r.Notes[0] = strings.Replace(r.Notes[0], "Means over 3 training seeds (each the mean over its evaluation seeds) ± standard error over training seeds; "+
		"paired differences with 95 % t-intervals over training seeds.", "One training seed: means ± standard error over evaluation seeds, which says nothing of training variance; every comparison is inconclusive.", 1)
	for i, n := range r.Numbers {
		r.Numbers[i].PerSeed, r.Numbers[i].Lo, r.Numbers[i].Hi = nil, 0, 0
		if n.Verdict != "" {
			r.Numbers[i].Verdict = paper.Inconclusive
		}
	}
	r.TrainSeeds = []int{4}
	fourth := filepath.Join(t.TempDir(), "minecraft_main")
	if err := r.Save(fourth); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	printed := output(&os.Stdout, func() {
		err = runPaper([]string{"-out", out, "pool", committed, filepath.Dir(fourth)}) // a run folder holding it
	})
	if err != nil {
		t.Fatal(err)
	}
	pooled, err := paper.LoadResult(filepath.Join(out, "minecraft_main"))
	if err != nil {
		t.Fatalf("%v (printed %q)", err, printed)
	}
	fvd := pooled.Numbers[0]
	if fmt.Sprint(pooled.TrainSeeds) != "[1 2 3 4]" || !strings.HasSuffix(fvd.Name, "FVD (maze-I3D)") || len(fvd.PerSeed) != 4 || !strings.Contains(printed, "training seeds 1 2 3 4 pooled from 2 results") ||
		!strings.Contains(pooled.Notes[len(pooled.Notes)-1], "Left out: ") {
		t.Errorf("pooled: seeds %v, first number %+v, printed %q, last note %q", pooled.TrainSeeds, fvd, printed, pooled.Notes[len(pooled.Notes)-1])
	}
	// Its run.txt says how it was pooled, from what, with each result's own run.txt.
	run := paper.Run(filepath.Join(out, "minecraft_main"))
	for _, want := range []string{"minecraft_main on the paper recipe, training seeds 1, 2, 3, 4: pooled from 2 results",
		"command: eqf paper -out " + out + " pool " + committed + " " + filepath.Dir(fourth),
		"result 1: " + committed + ", training seeds 1, 2, 3\n  " + strings.SplitN(paper.Run(committed), "\n", 2)[0],
		"result 2: " + fourth + ", training seed 4\n  (no run.txt)"} {
		if !strings.Contains(run, want) {
			t.Errorf("the pooled result's run.txt lacks %q:\n%s", want, run)
		}
	}
	out2 := t.TempDir() // the file itself, first
	if err := runPaper([]string{"-out", out2, "pool", filepath.Join(fourth, "results.json"), committed}); err != nil {
		t.Fatal(err)
	}
	if again, err := paper.LoadResult(filepath.Join(out2, "minecraft_main")); err != nil || fmt.Sprint(again.TrainSeeds) != "[1 2 3 4]" {
		t.Errorf("pooled from results.json: %v", err)
	}
	for args, want := range map[string]string{
		"pool " + committed: "want at least 2",
		"-out " + filepath.Dir(fourth) + " pool " + committed + " " + fourth: "would be saved over result 2",
		"pool " + committed + " " + committed:                                "training seed 1 is in results 1 and 2",
		"pool " + committed + " /nonexistent":                                "/nonexistent",
		"pool " + filepath.Dir(fourth) + " " + filepath.Dir(fourth):          "name at least one result",
		"pool " + committed + " " + t.TempDir():                              "holds no saved result",
		"-train-seed 101 minecraft_main":                                     "-train-seed = 101: must be in [0, 100]",
	} {
		if err := runPaper(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("eqf paper %s: error %v, want one saying %q", args, err, want)
		}
	}
}

// eqf models -list NAME lists only the models named (in any case: FM is fm), for every training
// seed asked for; a name that is no model is refused, naming it, before anything is listed.
func TestModelsList(t *testing.T) {
	dir := t.TempDir()
	list := func(args ...string) (out string, err error) {
		out = output(&os.Stdout, func() { err = runModels(append([]string{"-recipe", "quick", "-dir", dir, "-list"}, args...)) })
		return out, err
	}
	out, err := list("-seeds", "2", "FM") // as the paper writes it
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		models = append(models, strings.Join(strings.Fields(line)[:2], " "))
	}
	if want := []string{"fm 1", "fm 2"}; !slices.Equal(models, want) {
		t.Errorf("eqf models -list -seeds 2 FM lists %q, want %q:\n%s", models, want, out)
	}
	if out, err := list(); err != nil || strings.Count(out, "not trained") != len(zoo.Specs) {
		t.Errorf("eqf models -list lists %d models not trained (%v), want all %d:\n%s", strings.Count(out, "not trained"), err, len(zoo.Specs), out)
	}
	// Without -seeds or -seed, -list lists what the zoo's folder holds: a seed trained alone too.
	if err := os.MkdirAll(filepath.Join(dir, "seed-3", "fm"), 0o755); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string][]string{"fm": {"fm 1", "fm 3"}, "-seeds 2 fm": {"fm 1", "fm 2"}, "-seed 2 fm": {"fm 2"}} {
		out, err := list(strings.Fields(args)...)
		var models []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			models = append(models, strings.Join(strings.Fields(line)[:2], " "))
		}
		if err != nil || !slices.Equal(models, want) {
			t.Errorf("with seed-3 in the zoo, eqf models -list %s lists %q (%v), want %q:\n%s", args, models, err, want, out)
		}
	}
	if out, err := list("fm", "bogus"); err == nil || !strings.Contains(err.Error(), `"bogus"`) || out != "" {
		t.Errorf("eqf models -list fm bogus: %v, output %q; want an error naming \"bogus\" and nothing listed", err, out)
	}
}

// eqf compare of two runs trained on your clips rolls out over their held-out clip (frames and
// chunks as long as it allows, the window's horizon) scored in pooled pixels' features; runs of
// another world over its clips; runs of different data are refused.
func TestCompareOwnClips(t *testing.T) {
	dir := t.TempDir()
	clips, pan := filepath.Join(dir, "clips"), data.NewPan(data.DefaultPanConfig())
	for k, name := range []string{"a", "b", "c"} {
		c, _ := data.RenderClip(pan, uint64(k+1), 14, 12, 16) // 16 wide, 12 high: no maze
		if err := data.SaveFrameDir(filepath.Join(clips, name), c, pan.CondNames()); err != nil {
			t.Fatal(err)
		}
	}
	trainRun := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		a, err := parseTrainArgs("train", append([]string{"-frames", "3", "-steps", "2", "-readout-steps", "1", "-eval-every", "0", "-out", out}, args...), defaultTrain)
		if err == nil {
			_, err = train(a)
		}
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	fm, eqf := trainRun("fm", "-data", clips, "-objective", "fm"), trainRun("eqf", "-data", clips, "-objective", "eqf")
	out := filepath.Join(dir, "cmp")
	a, err := parseCompareArgs([]string{"-fm", fm, "-eqf", eqf, "-depth", "2", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.truth) != 1 || a.truth[0].Frames != 14 || a.frames != 12 || a.horizon != 1 || a.timeChunk != 10 || a.subLen != 6 {
		t.Errorf("compare defaults: %d clips, -frames %d, -horizon %d, -time-chunk %d, -clip-frames %d: want the held-out clip c, 12, 1, 10, 6",
			len(a.truth), a.frames, a.horizon, a.timeChunk, a.subLen)
	}
	if err := compare(a); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "results.md"))
	for _, want := range []string{"FM Euler: FVD (pixels-4x4) |", "EqF NAG", "over one clip of your own", "12-frame rollouts"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "maze-I3D") {
		t.Errorf("clips of your own scored in the maze's features:\n%s", md)
	}
	// other data: refused, naming both
	maze := trainRun("maze", "-world", "maze", "-objective", "fm")
	if _, err := parseCompareArgs([]string{"-fm", maze, "-eqf", eqf, "-out", out}); err == nil ||
		!strings.Contains(err.Error(), "-fm: "+maze+" was trained on world maze, -eqf "+eqf+" on the clips in "+clips) {
		t.Errorf("compare of runs on different data: %v", err)
	}
	// runs of different windows: a geometry must be given
	w6 := trainRun("w6", "-data", clips, "-objective", "fm", "-frames", "6")
	if _, err := parseCompareArgs([]string{"-fm", w6, "-eqf", eqf, "-out", out}); err == nil ||
		!strings.Contains(err.Error(), "-fm: "+w6+" was trained on 6-frame windows, -eqf "+eqf+" on 3: give -horizon") {
		t.Errorf("compare of runs of different windows: %v", err)
	}
	if a, err := parseCompareArgs([]string{"-fm", w6, "-eqf", eqf, "-horizon", "2", "-out", out}); err != nil || a.horizon != 2 {
		t.Errorf("compare of runs of different windows with -horizon 2: %v", err)
	}
	// clips too short to compare: said
	short := filepath.Join(dir, "short")
	for k := range 2 {
		c, _ := data.RenderClip(pan, uint64(k+1), 8, 12, 16)
		data.SaveFrameDir(filepath.Join(short, fmt.Sprint(k)), c, nil)
	}
	sfm, seqf := trainRun("short-fm", "-data", short, "-objective", "fm"), trainRun("short-eqf", "-data", short, "-objective", "eqf")
	if _, err := parseCompareArgs([]string{"-fm", sfm, "-eqf", seqf, "-out", out}); err == nil ||
		!strings.Contains(err.Error(), "the 1 validation clip(s) of "+short+" have 8 frames: a comparison needs -context 2 + 10") {
		t.Errorf("compare over a clip too short: %v", err)
	}
	// another world's runs: its clips, pooled pixels
	sfm, seqf = trainRun("sfm", "-world", "shapes", "-objective", "fm"), trainRun("seqf", "-world", "shapes", "-objective", "eqf")
	if err := runCompare([]string{"-fm", sfm, "-eqf", seqf, "-clips", "2", "-frames", "10", "-time-chunk", "5", "-depth", "2", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(filepath.Join(out, "results.md")); !strings.Contains(string(md), "over 2 clips of the shapes world's validation set") || strings.Contains(string(md), "maze-I3D") {
		t.Errorf("compare of shapes runs:\n%s", md)
	}
}

// The first line of eqf train -data says how many clips, their shape, the windows, the clips too
// short for one and the clips held out.
func TestDescribeClips(t *testing.T) {
	clip := func(frames int) *data.Clip {
		return &data.Clip{Frames: frames, Channels: 2, Height: 4, Width: 6, Pixels: make([]float64, frames*48), CondDim: 1, Cond: make([]float64, frames)}
	}
	for _, c := range []struct {
		lengths []int
		want    string
	}{
		{[]int{5}, "the clip d (6x4, 2 channels, 1 actions per frame; 2 train windows, no validation: one clip)"},
		{[]int{5, 2, 9, 6}, "4 clips of d (6x4, 2 channels, 1 actions per frame; 8 train windows (one train clip is shorter than the 4-frame window: none of it), 1 held out for validation: 3)"},
		{[]int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, "20 clips of d (6x4, 2 channels, 1 actions per frame; 18 train windows, 2 held out for validation: 9, 19)"},
		{[]int{3, 3, 4, 4, 4, 4, 4, 4, 4, 4}, "10 clips of d (6x4, 2 channels, 1 actions per frame; 7 train windows (2 train clips are shorter than the 4-frame window: none of them), 1 held out for validation: 9)"},
	} {
		var clips []*data.Clip
		var names []string
		for k, n := range c.lengths {
			clips, names = append(clips, clip(n)), append(names, fmt.Sprint(k))
		}
		train, val, err := data.NewClipSplits(clips, 4)
		if err != nil {
			t.Fatal(err)
		}
		var held []string
		for k := range names {
			if data.HeldOut(k, len(names)) {
				held = append(held, names[k])
			}
		}
		if got := describeClips("d", "", train, val, held); got != c.want {
			t.Errorf("clips of %v frames:\n got %s\nwant %s", c.lengths, got, c.want)
		}
	}
	// -val: every clip of -data trains, -val's validate (windows every 4 frames)
	train, val, err := data.NewClipTrainVal([]*data.Clip{clip(5), clip(9)}, []*data.Clip{clip(8), clip(4)}, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := "2 clips of d (6x4, 2 channels, 1 actions per frame; 8 train windows; validation: 2 clips of v, 3 windows)"
	if got := describeClips("d", "v", train, val, nil); got != want {
		t.Errorf("-val:\n got %s\nwant %s", got, want)
	}
}
