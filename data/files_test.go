package data

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestFrameDirRoundTrip(t *testing.T) {
	dir := t.TempDir()
	m := NewMaze(DefaultMazeConfig())
	c, _ := RenderClip(m, 3, 5, 16, 12)
	path := filepath.Join(dir, "clip")
	if err := SaveFrameDir(path, c, m.CondNames()); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFrameDir(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 5 || got.Height != 16 || got.Width != 12 || got.CondDim != 3 {
		t.Fatalf("loaded shape %d×%d×%d cond %d", got.Frames, got.Height, got.Width, got.CondDim)
	}
	for i := range c.Pixels {
		if math.Abs(got.Pixels[i]-c.Pixels[i]) > 0.5/255+1e-9 {
			t.Fatalf("pixel %d: %g vs %g", i, got.Pixels[i], c.Pixels[i])
		}
	}
	for i := range c.Cond {
		if got.Cond[i] != c.Cond[i] {
			t.Fatalf("action %d: %g vs %g", i, got.Cond[i], c.Cond[i])
		}
	}
	if err := SaveFrameDir(path, c, nil); err == nil {
		t.Error("SaveFrameDir overwrote an existing directory")
	}
	// JSON actions, numbers or arrays
	os.Remove(filepath.Join(path, "actions.csv"))
	os.WriteFile(filepath.Join(path, "actions.json"), []byte("[0, 1, 2, 1, 0]"), 0o644)
	got, err = LoadFrameDir(path)
	if err != nil || got.CondDim != 1 || got.Cond[2] != 2 {
		t.Errorf("JSON actions: %v, %+v", err, got)
	}
}

func TestFrameDirErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	c, _ := RenderClip(NewMaze(DefaultMazeConfig()), 3, 3, 8, 8)
	path := filepath.Join(dir, "clip")
	SaveFrameDir(path, c, nil)
	// truncated PNG
	frame := filepath.Join(path, "0001.png")
	raw, _ := os.ReadFile(frame)
	os.WriteFile(frame, raw[:len(raw)/2], 0o644)
	_, err := LoadFrameDir(path)
	wantErr(t, err, frame)
	os.WriteFile(frame, raw, 0o644)
	// too few action rows
	actions := filepath.Join(path, "actions.csv")
	os.WriteFile(actions, []byte("1,0,0\n0,1,0\n"), 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, actions)
	// a non-number in a later row
	os.WriteFile(actions, []byte("1,0,0\n0,x,0\n0,0,1\n"), 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, actions)
	// values separated otherwise than by commas (row 1 is no header then), and NaN
	os.WriteFile(actions, []byte("1;0;0\n0;1;0\n0;0;1\n"), 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, "row 1 holds a value that is not a number (values are separated by commas)")
	os.WriteFile(actions, []byte("f,l,r\n1,0,0\n0,NaN,0\n0,0,1\n"), 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, "row 3 holds NaN: actions must be finite numbers")
	// malformed JSON
	os.Remove(actions)
	js := filepath.Join(path, "actions.json")
	os.WriteFile(js, []byte("[1, 2,"), 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, js)
	// a frame of another size
	os.Remove(js)
	small, _ := RenderClip(NewMaze(DefaultMazeConfig()), 3, 1, 6, 6)
	other := filepath.Join(dir, "other")
	SaveFrameDir(other, small, nil)
	b, _ := os.ReadFile(filepath.Join(other, "0000.png"))
	os.WriteFile(filepath.Join(path, "0003.png"), b, 0o644)
	_, err = LoadFrameDir(path)
	wantErr(t, err, filepath.Join(path, "0003.png"))
	_, err = LoadFrameDir(filepath.Join(dir, "missing"))
	wantErr(t, err, filepath.Join(dir, "missing"))
}

// LoadClips reads a clip folder, a .npy file, or a folder of both in name order, and names the
// clip that does not fit.
func TestLoadClips(t *testing.T) {
	dir := t.TempDir()
	m := NewMaze(DefaultMazeConfig())
	for i, name := range []string{"b-walk", "a-walk"} {
		c, _ := RenderClip(m, uint64(3+i), 4+i, 8, 8)
		if err := SaveFrameDir(filepath.Join(dir, "clips", name), c, m.CondNames()); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "clips", "README.md"), []byte("walks"), 0o644)
	os.Mkdir(filepath.Join(dir, "clips", ".cache"), 0o755)
	clips, names, err := LoadClips(filepath.Join(dir, "clips"))
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || names[0] != "a-walk" || names[1] != "b-walk" || clips[0].Frames != 5 || clips[1].Frames != 4 || clips[0].CondDim != 3 {
		t.Fatalf("loaded %v: %d clips", names, len(clips))
	}
	one, names, err := LoadClips(filepath.Join(dir, "clips", "b-walk") + "/")
	if err != nil || len(one) != 1 || names[0] != "b-walk" || one[0].Frames != 4 {
		t.Fatalf("one clip folder: %v %v", names, err)
	}
	// .npy latents: one file, or beside each other in a folder
	lat := filepath.Join(dir, "lat")
	os.Mkdir(lat, 0o755)
	SaveNpy(filepath.Join(lat, "x.npy"), []int{3, 4, 2, 2}, make([]float64, 48))
	SaveNpy(filepath.Join(lat, "y.NPY"), []int{5, 4, 2, 2}, make([]float64, 80))
	if c, _, err := LoadClips(filepath.Join(lat, "x.npy")); err != nil || len(c) != 1 || c[0].Channels != 4 || c[0].Frames != 3 {
		t.Errorf("one .npy: %v", err)
	}
	if c, names, err := LoadClips(lat); err != nil || len(c) != 2 || names[1] != "y.NPY" || c[1].Frames != 5 {
		t.Errorf("a folder of .npy: %v %v", names, err)
	}
	// what does not fit is named
	SaveNpy(filepath.Join(lat, "z.npy"), []int{5, 3, 2, 2}, make([]float64, 60))
	_, _, err = LoadClips(lat)
	wantErr(t, err, filepath.Join(lat, "z.npy"))
	wantErr(t, err, filepath.Join(lat, "x.npy"))
	os.Mkdir(filepath.Join(dir, "clips", "c-empty"), 0o755)
	_, _, err = LoadClips(filepath.Join(dir, "clips"))
	wantErr(t, err, filepath.Join(dir, "clips", "c-empty"))
	_, _, err = LoadClips(filepath.Join(dir, "clips", "README.md"))
	wantErr(t, err, ".npy")
	os.Mkdir(filepath.Join(dir, "none"), 0o755)
	_, _, err = LoadClips(filepath.Join(dir, "none"))
	wantErr(t, err, "holds no clips")
	os.WriteFile(filepath.Join(dir, "none", "walk.MP4"), []byte("not read"), 0o644) // videos are named, with what to do
	_, _, err = LoadClips(filepath.Join(dir, "none"))
	wantErr(t, err, "holds no clips but video files (1), which are not read: extract each one's frames into a sub-folder (ffmpeg")
	_, _, err = LoadClips(filepath.Join(dir, "none", "walk.MP4"))
	wantErr(t, err, "ffmpeg -i "+filepath.Join(dir, "none", "walk.MP4")+" frames/%04d.png")
	_, _, err = LoadClips(filepath.Join(dir, "missing"))
	wantErr(t, err, filepath.Join(dir, "missing"))
}

// NewClipSplits holds whole clips out (every 10th, the last of a few, none of one) and
// normalises both splits with the train clips' statistics.
func TestClipSplits(t *testing.T) {
	m := NewMaze(DefaultMazeConfig())
	clips := make([]*Clip, 12)
	for k := range clips {
		clips[k], _ = RenderClip(m, uint64(k+1), 6, 8, 8)
		for i := range clips[k].Pixels {
			clips[k].Pixels[i] = float64(k) // clip k is all k: which clip a window comes from shows
		}
	}
	for _, c := range []struct {
		n                int
		valFrom          []float64 // the clips held out
		trainLen, valLen int
	}{
		{n: 12, valFrom: []float64{9}, trainLen: 11 * 3, valLen: 1},
		{n: 10, valFrom: []float64{9}, trainLen: 9 * 3, valLen: 1},
		{n: 3, valFrom: []float64{2}, trainLen: 2 * 3, valLen: 1},
		{n: 1, trainLen: 3},
	} {
		train, val, err := NewClipSplits(clips[:c.n], 4)
		if err != nil {
			t.Fatalf("%d clips: %v", c.n, err)
		}
		if train.Len() != c.trainLen {
			t.Errorf("%d clips: %d train windows, want %d (every frame of 11 clips with 6 frames)", c.n, train.Len(), c.trainLen)
		}
		if c.valFrom == nil {
			if val != nil {
				t.Errorf("one clip: a validation split of %d windows", val.Len())
			}
			continue
		}
		if val == nil || val.Len() != c.valLen || val.Clips[0].Pixels[0] != c.valFrom[0] {
			t.Fatalf("%d clips: validation %+v, want clip %v", c.n, val, c.valFrom)
		}
		for _, tc := range train.Clips {
			if tc.Pixels[0] == c.valFrom[0] {
				t.Errorf("%d clips: the held-out clip is in the train split", c.n)
			}
		}
		if val.Stats.Mean[0] != train.Stats.Mean[0] || val.Stats.Std[0] != train.Stats.Std[0] {
			t.Errorf("%d clips: validation stats %v, train's %v", c.n, val.Stats, train.Stats)
		}
	}
	if _, _, err := NewClipSplits(clips[:3], 7); err == nil || !strings.Contains(err.Error(), "7 frames") {
		t.Errorf("windows longer than every clip: %v", err)
	}
	if _, _, err := NewClipSplits(nil, 4); err == nil {
		t.Error("no clips accepted")
	}
	// clips split already: every train clip trains, every validation clip validates (windows
	// every 4 frames), normalised with the train clips' statistics alone
	train, val, err := NewClipTrainVal(clips[:2], clips[5:8], 4)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 2*3 || val.Len() != 3 || val.Clips[2].Pixels[0] != 7 || train.Stats.Mean[0] != 0.5 || val.Stats.Mean[0] != 0.5 {
		t.Errorf("NewClipTrainVal: %d train windows, %d validation, means %v %v", train.Len(), val.Len(), train.Stats.Mean, val.Stats.Mean)
	}
	small, _ := RenderClip(m, 40, 6, 4, 8)
	for _, c := range []struct {
		val  []*Clip
		want string
	}{
		{nil, "no validation clips"},
		{[]*Clip{clips[5], small}, "validation clip 1 is 8x4 with 3 channels and 3 actions per frame: the train clips are 8x8"},
	} {
		if _, _, err := NewClipTrainVal(clips[:2], c.val, 4); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewClipTrainVal: %v, want %q", err, c.want)
		}
	}
}

// FrameImage draws clips of any number of channels (one and two panicked before: .npy latents).
func TestFrameImageChannels(t *testing.T) {
	for _, c := range []struct {
		channels int
		want     [3]uint8 // the first pixel's red, green, blue
	}{{1, [3]uint8{51, 51, 51}}, {2, [3]uint8{51, 102, 0}}, {3, [3]uint8{51, 102, 153}}, {4, [3]uint8{51, 102, 153}}} {
		clip := &Clip{Frames: 2, Channels: c.channels, Height: 2, Width: 3, Pixels: make([]float64, 2*c.channels*6)}
		for k := 0; k < c.channels; k++ {
			clip.Pixels[6*c.channels+6*k] = 0.2 * float64(k+1) // frame 1, channel k, pixel 0
		}
		img := FrameImage(clip, 1)
		px := img.RGBAAt(0, 0)
		if img.Bounds().Dx() != 3 || img.Bounds().Dy() != 2 || [3]uint8{px.R, px.G, px.B} != c.want {
			t.Errorf("%d channels: %v, %v, want %v", c.channels, img.Bounds(), px, c.want)
		}
	}
	if img := FrameImage(&Clip{Frames: 1, Height: 2, Width: 2}, 0); img.Bounds().Dx() != 0 {
		t.Errorf("a clip of no channels drew %v", img.Bounds())
	}
}

func TestDatasets(t *testing.T) {
	train, val, err := NewWorldSplits(NewMaze(DefaultMazeConfig()), 8, 16, 16, 200, 50, 9)
	if err != nil {
		t.Fatal(err)
	}
	if f, c, h, w, k := train.Shape(); f != 8 || c != 3 || h != 16 || w != 16 || k != 3 {
		t.Fatalf("shape %d %d %d %d %d", f, c, h, w, k)
	}
	seen := map[uint64]bool{}
	for i := 0; i < train.Len(); i++ {
		seen[train.clipSeed(i)] = true
	}
	for i := 0; i < val.Len(); i++ {
		if seen[val.clipSeed(i)] {
			t.Fatalf("validation clip %d shares its seed with a train clip", i)
		}
	}
	// normalised: per-channel mean ≈ 0 and std ≈ 1 over train windows
	px, cond := make([]float64, 8*3*16*16), make([]float64, 8*3)
	var sum, sum2 [3]float64
	var n float64
	for i := 0; i < 100; i++ {
		if err := train.Window(i, px, cond); err != nil {
			t.Fatal(err)
		}
		for j, v := range px {
			c := (j / 256) % 3
			sum[c] += v
			sum2[c] += v * v
		}
		n += 8 * 256
	}
	for c := 0; c < 3; c++ {
		m := sum[c] / n
		s := math.Sqrt(sum2[c]/n - m*m)
		if math.Abs(m) > 0.1 || math.Abs(s-1) > 0.1 {
			t.Errorf("channel %d: mean %.3f std %.3f after normalisation", c, m, s)
		}
	}
	// statistics survive a save/load; denormalise inverts normalise
	sp := filepath.Join(t.TempDir(), "stats.json")
	if err := train.Stats.Save(sp); err != nil {
		t.Fatal(err)
	}
	st, err := LoadStats(sp)
	if err != nil || st.Mean[1] != train.Stats.Mean[1] {
		t.Errorf("stats round trip: %v %v", st, err)
	}
	clip, _ := RenderClip(train.World, train.clipSeed(0), 8, 16, 16)
	train.Window(0, px, cond)
	back := train.Stats.Denormalise(px, 256)
	for i := range back {
		if math.Abs(back[i]-clip.Pixels[i]) > 1e-12 {
			t.Fatalf("denormalise: %g vs %g", back[i], clip.Pixels[i])
		}
	}
	wantErr(t, train.Window(200, px, cond), "window index")

	// windows over loaded clips
	cd, err := NewClipDataset([]*Clip{clip, clip}, 5, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cd.Len() != 4 { // t0 ∈ {0, 2} per clip
		t.Errorf("ClipDataset has %d windows, want 4", cd.Len())
	}
	p5, c5 := make([]float64, 5*3*256), make([]float64, 5*3)
	if err := cd.Window(1, p5, c5); err != nil {
		t.Fatal(err)
	}
	if c5[0] != clip.Cond[2*3] {
		t.Error("window 1 does not start at frame 2")
	}
	_, err = NewClipDataset([]*Clip{clip}, 9, 1, nil)
	wantErr(t, err, "9 frames")
}

// Frames and clips are ordered as a person numbers them: frame2 before frame10.
func TestNaturalOrder(t *testing.T) {
	names := []string{"frame10.png", "frame9.png", "frame1.png", "frame0010.png", "frame2.png", "b", "a10b", "a2c", "a2b", "x", "frame01.png", ""}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	want := []string{"", "a2b", "a2c", "a10b", "b", "frame01.png", "frame1.png", "frame2.png", "frame9.png", "frame0010.png", "frame10.png", "x"}
	if !slices.Equal(names, want) {
		t.Errorf("ordered %q, want %q", names, want)
	}
	// a clip whose frames ffmpeg numbered frame%d.png: loaded in time order
	dir := t.TempDir()
	c, _ := RenderClip(NewMaze(DefaultMazeConfig()), 5, 12, 8, 8)
	if err := SaveFrameDir(filepath.Join(dir, "padded"), c, nil); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "plain"), 0o755)
	for f := 0; f < 12; f++ {
		os.Rename(filepath.Join(dir, "padded", fmt.Sprintf("%04d.png", f)), filepath.Join(dir, "plain", fmt.Sprintf("frame%d.png", f+1)))
	}
	got, err := LoadFrameDir(filepath.Join(dir, "plain"))
	if err != nil {
		t.Fatal(err)
	}
	n := 3 * 8 * 8
	for f := 0; f < 12; f++ {
		for i := 0; i < n; i++ {
			if math.Abs(got.Pixels[f*n+i]-c.Pixels[f*n+i]) > 0.5/255+1e-9 {
				t.Fatalf("frame %d (frame%d.png) is not the clip's frame %d", f, f+1, f)
			}
		}
	}
}
