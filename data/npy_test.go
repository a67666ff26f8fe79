package data

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNpyRoundTripAndErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lat.npy")
	shape := []int{3, 4, 2, 2}
	vals := make([]float64, 48)
	for i := range vals {
		vals[i] = float64(i)*0.25 - 3
	}
	if err := SaveNpy(path, shape, vals); err != nil {
		t.Fatal(err)
	}
	c, err := LoadLatentClip(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Frames != 3 || c.Channels != 4 || c.Height != 2 || c.Width != 2 {
		t.Fatalf("shape %d %d %d %d", c.Frames, c.Channels, c.Height, c.Width)
	}
	for i, v := range vals {
		if c.Pixels[i] != v {
			t.Fatalf("value %d: %g vs %g", i, c.Pixels[i], v)
		}
	}
	raw, _ := os.ReadFile(path)
	// truncated data
	trunc := filepath.Join(dir, "trunc.npy")
	os.WriteFile(trunc, raw[:len(raw)-10], 0o644)
	_, err = LoadLatentClip(trunc)
	wantErr(t, err, trunc)
	wantErr(t, err, "truncated")
	// trailing bytes
	long := filepath.Join(dir, "long.npy")
	os.WriteFile(long, append(append([]byte(nil), raw...), 1, 2, 3, 4), 0o644)
	_, err = LoadLatentClip(long)
	wantErr(t, err, long)
	// bad magic
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, []byte("PK\x03\x04 not numpy"), 0o644)
	_, _, err = LoadNpy(bad)
	wantErr(t, err, bad)
	// a 3-D array is not a latent clip
	three := filepath.Join(dir, "three.npy")
	SaveNpy(three, []int{2, 3, 4}, make([]float64, 24))
	_, err = LoadLatentClip(three)
	wantErr(t, err, three)
	// float64 and float16 files written by hand
	f64 := filepath.Join(dir, "f64.npy")
	writeNpy(t, f64, "<f8", "1,", []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}) // 1.5
	_, v, err := LoadNpy(f64)
	if err != nil || v[0] != 1.5 {
		t.Errorf("float64 npy: %v %v", v, err)
	}
	f16 := filepath.Join(dir, "f16.npy")
	writeNpy(t, f16, "<f2", "1,", []byte{0x00, 0xc1}) // −2.5
	_, v, err = LoadNpy(f16)
	if err != nil || v[0] != -2.5 {
		t.Errorf("float16 npy: %v %v", v, err)
	}
	big := filepath.Join(dir, "big.npy")
	writeNpy(t, big, ">f4", "1,", []byte{0x3f, 0xc0, 0, 0})
	_, _, err = LoadNpy(big)
	wantErr(t, err, `dtype ">f4" is not supported`)
}

// writeNpy writes a .npy file by hand: dtype descr, shape as NumPy writes it ("2, 3"), the raw
// little-endian payload.
func writeNpy(t *testing.T, path, descr, shape string, payload []byte) {
	t.Helper()
	header := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }"
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	b = append(append(b, header...), payload...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Integer and boolean arrays (actions, uint8 videos) are read as numbers.
func TestNpyDtypes(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		descr   string
		payload []byte
		want    float64
	}{
		{"|u1", []byte{200}, 200},
		{"|i1", []byte{0xfe}, -2},
		{"|b1", []byte{1}, 1},
		{"<u2", []byte{0x34, 0x12}, 0x1234},
		{"<i2", []byte{0xfd, 0xff}, -3},
		{"<u4", []byte{0, 0, 0, 0x80}, 1 << 31},
		{"<i4", []byte{0xfc, 0xff, 0xff, 0xff}, -4},
		{"<u8", []byte{5, 0, 0, 0, 0, 0, 0, 0}, 5},
		{"<i8", []byte{0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, -5},
	} {
		path := filepath.Join(dir, "x.npy")
		writeNpy(t, path, c.descr, "1,", c.payload)
		if _, v, err := LoadNpy(path); err != nil || len(v) != 1 || v[0] != c.want {
			t.Errorf("%s: %v %v, want %g", c.descr, v, err, c.want)
		}
	}
}

// A uint8 array is pixels (value/255), a batch [N, T, C, H, W] is N clips with an actions array
// [N, T] or [N, T, A] beside it, and LoadClips names clip i NAME.npy[i].
func TestLatentBatch(t *testing.T) {
	dir := t.TempDir()
	// a uint8 video: 2 frames of 1×4×4
	u8 := filepath.Join(dir, "u8.npy")
	px := make([]byte, 2*16)
	for i := range px {
		px[i] = byte(i * 8)
	}
	writeNpy(t, u8, "|u1", "2, 1, 4, 4", px)
	c, err := LoadLatentClip(u8)
	if err != nil || c.Frames != 2 || c.Channels != 1 || c.Pixels[31] != 248.0/255 || c.CondDim != 0 {
		t.Fatalf("uint8 clip: %+v %v", c, err)
	}
	// a batch of 3 clips of 4 frames (2 channels, 4×4) and their 2 actions per frame
	batch := filepath.Join(dir, "walks.npy")
	vals := make([]float64, 3*4*2*16)
	for i := range vals {
		vals[i] = float64(i)
	}
	SaveNpy(batch, []int{3, 4, 2, 4, 4}, vals)
	acts := make([]float64, 3*4*2)
	for i := range acts {
		acts[i] = float64(i % 7)
	}
	SaveNpy(filepath.Join(dir, "walks.actions.npy"), []int{3, 4, 2}, acts)
	clips, err := LoadLatentClips(batch)
	if err != nil || len(clips) != 3 {
		t.Fatalf("batch: %d clips, %v", len(clips), err)
	}
	for i, c := range clips {
		if c.Frames != 4 || c.Channels != 2 || c.CondDim != 2 || c.Pixels[0] != float64(i*128) || c.Cond[7] != acts[i*8+7] {
			t.Errorf("batch clip %d: %d frames, %d channels, %d actions, first pixel %g, last action %g", i, c.Frames, c.Channels, c.CondDim, c.Pixels[0], c.Cond[7])
		}
	}
	_, err = LoadLatentClip(batch)
	wantErr(t, err, "a batch of 3 clips: LoadLatentClips reads them")
	all, names, err := LoadClips(batch)
	if err != nil || len(all) != 3 || !slices.Equal(names, []string{"walks.npy[0]", "walks.npy[1]", "walks.npy[2]"}) {
		t.Fatalf("LoadClips of a batch: %v %v", names, err)
	}
	one, names, err := LoadClips(batch + "[2]")
	if err != nil || len(one) != 1 || names[0] != "walks.npy[2]" || !slices.Equal(one[0].Pixels, all[2].Pixels) || !slices.Equal(one[0].Cond, all[2].Cond) {
		t.Fatalf("LoadClips of clip 2: %v %v", names, err)
	}
	_, _, err = LoadClips(batch + "[3]")
	wantErr(t, err, "clip index 3 out of range: the batch holds 3 clips, 0 to 2")
	_, _, err = LoadClips(u8 + "[0]")
	wantErr(t, err, "is one clip [T, C, H, W], not a batch")
	// actions of the wrong shape, of a batch in CSV, not finite; shapes that are not clips
	SaveNpy(filepath.Join(dir, "walks.actions.npy"), []int{2, 4, 2}, make([]float64, 16))
	_, err = LoadLatentClips(batch)
	wantErr(t, err, "walks.actions.npy has shape [2 4 2]: must be [N, T] or [N, T, A] (N = 3 clips of T = 4 frames)")
	SaveNpy(filepath.Join(dir, "walks.actions.npy"), []int{3, 4}, make([]float64, 12))
	if clips, err := LoadLatentClips(batch); err != nil || clips[2].CondDim != 1 || len(clips[2].Cond) != 4 {
		t.Errorf("batch actions [N, T]: %v", err)
	}
	os.Remove(filepath.Join(dir, "walks.actions.npy"))
	os.WriteFile(filepath.Join(dir, "walks.actions.csv"), []byte("1\n2\n3\n4\n"), 0o644)
	_, err = LoadLatentClips(batch)
	wantErr(t, err, "whose actions are an array [N, T] or [N, T, A] in "+filepath.Join(dir, "walks.actions.npy"))
	os.Remove(filepath.Join(dir, "walks.actions.csv"))
	SaveNpy(filepath.Join(dir, "u8.actions.npy"), []int{2}, []float64{1, math.NaN()})
	_, err = LoadLatentClip(u8)
	wantErr(t, err, "u8.actions.npy holds NaN at flat index 1")
	SaveNpy(filepath.Join(dir, "u8.actions.npy"), []int{3}, []float64{1, 2, 3})
	_, err = LoadLatentClip(u8)
	wantErr(t, err, "u8.actions.npy has shape [3]: must be [T] or [T, A] (T = 2 frames)")
	os.Remove(filepath.Join(dir, "u8.actions.npy"))
	grey := filepath.Join(dir, "grey.npy")
	SaveNpy(grey, []int{2, 8, 8}, make([]float64, 128))
	_, err = LoadLatentClip(grey)
	wantErr(t, err, "frames of one channel need its axis (a[:, None])")
	last := filepath.Join(dir, "last.npy")
	SaveNpy(last, []int{2, 8, 8, 3}, make([]float64, 384))
	_, err = LoadLatentClip(last)
	wantErr(t, err, "it looks channels-last ([T, H, W, C]); save it channels-first (np.moveaxis(a, -1, -3))")
}

// A latent clip's folder (one array and actions.csv, as frames are converted to latents in
// place) and NAME.actions.csv beside an array are read with their actions; actions beside no
// array are named; ClipPath makes each name LoadClips gives a path that loads that clip alone.
func TestLatentClipFolders(t *testing.T) {
	dir := t.TempDir()
	clips := filepath.Join(dir, "clips")
	m := NewMaze(DefaultMazeConfig())
	walk, _ := RenderClip(m, 1, 5, 8, 8)
	if err := SaveFrameDir(filepath.Join(clips, "walk-10"), walk, nil); err != nil {
		t.Fatal(err)
	}
	csv := []byte("forward,left,right\n")
	for t := 0; t < walk.Frames; t++ {
		csv = fmt.Appendf(csv, "%g,%g,%g\n", walk.Cond[3*t], walk.Cond[3*t+1], walk.Cond[3*t+2])
	}
	os.Mkdir(filepath.Join(clips, "walk-2"), 0o755)
	SaveNpy(filepath.Join(clips, "walk-2", "latent.npy"), []int{5, 3, 8, 8}, walk.Pixels)
	os.WriteFile(filepath.Join(clips, "walk-2", "actions.csv"), csv, 0o644)
	SaveNpy(filepath.Join(clips, "walk-1.npy"), []int{5, 3, 8, 8}, walk.Pixels)
	os.WriteFile(filepath.Join(clips, "walk-1.actions.csv"), csv, 0o644)
	SaveNpy(filepath.Join(clips, "walk-3.npy"), []int{2, 5, 3, 8, 8}, append(slices.Clone(walk.Pixels), walk.Pixels...))
	SaveNpy(filepath.Join(clips, "walk-3.actions.npy"), []int{2, 5, 3}, append(slices.Clone(walk.Cond), walk.Cond...))
	all, names, err := LoadClips(clips)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"walk-1.npy", "walk-2", "walk-3.npy[0]", "walk-3.npy[1]", "walk-10"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	for k, c := range all {
		if !slices.Equal(c.Cond, walk.Cond) {
			t.Errorf("clip %s: actions %v, want %v", names[k], c.Cond, walk.Cond)
		}
		one, n1, err := LoadClips(ClipPath(clips, names[k]))
		if err != nil || len(one) != 1 || n1[0] != names[k] || !slices.Equal(one[0].Pixels, c.Pixels) {
			t.Errorf("ClipPath(%s, %s) = %s: %v %v", clips, names[k], ClipPath(clips, names[k]), n1, err)
		}
	}
	for _, path := range []string{filepath.Join(clips, "walk-2"), filepath.Join(clips, "walk-10"), filepath.Join(clips, "walk-1.npy")} {
		if _, names, err := LoadClips(path); err != nil || ClipPath(path, names[0]) != path {
			t.Errorf("ClipPath(%s, %v) = %s: %v", path, names, ClipPath(path, names[0]), err)
		}
	}
	if p := ClipPath(filepath.Join(clips, "walk-3.npy"), "walk-3.npy[1]"); p != filepath.Join(clips, "walk-3.npy[1]") {
		t.Errorf("ClipPath of a batch's clip: %s", p)
	}
	// actions.npy in a folder of frames or of one latent array
	os.Remove(filepath.Join(clips, "walk-2", "actions.csv"))
	SaveNpy(filepath.Join(clips, "walk-2", "actions.npy"), []int{5, 3}, walk.Cond)
	os.Remove(filepath.Join(clips, "walk-10", "actions.csv"))
	SaveNpy(filepath.Join(clips, "walk-10", "actions.npy"), []int{5, 3}, walk.Cond)
	for _, name := range []string{"walk-2", "walk-10"} {
		if c, _, err := LoadClips(filepath.Join(clips, name)); err != nil || !slices.Equal(c[0].Cond, walk.Cond) {
			t.Errorf("%s with actions.npy: %v", name, err)
		}
	}
	SaveNpy(filepath.Join(clips, "walk-2", "more.npy"), []int{5, 3, 8, 8}, walk.Pixels)
	_, _, err = LoadClips(clips)
	wantErr(t, err, "clip folder "+filepath.Join(clips, "walk-2")+" holds no frames (.png/.jpg/.jpeg) and 2 latent arrays (.npy): a clip's folder holds frames or one array")
	os.Remove(filepath.Join(clips, "walk-2", "more.npy"))
	os.WriteFile(filepath.Join(clips, "walk-4.actions.csv"), csv, 0o644)
	_, _, err = LoadClips(clips)
	wantErr(t, err, "actions file "+filepath.Join(clips, "walk-4.actions.csv")+" is beside no latent array "+filepath.Join(clips, "walk-4.npy"))
	os.Remove(filepath.Join(clips, "walk-4.actions.csv"))
	SaveNpy(filepath.Join(clips, "actions.npy"), []int{5, 3}, walk.Cond)
	_, _, err = LoadClips(clips)
	wantErr(t, err, filepath.Join(clips, "actions.npy")+" is in a folder of clips")
	os.Remove(filepath.Join(clips, "actions.npy"))
	os.Mkdir(filepath.Join(clips, "walk-5"), 0o755)
	os.WriteFile(filepath.Join(clips, "walk-5", "actions.csv"), csv, 0o644)
	_, _, err = LoadClips(clips)
	wantErr(t, err, "clip folder "+filepath.Join(clips, "walk-5")+" holds no frames (.png/.jpg/.jpeg) and 0 latent arrays (.npy)")
}

// writeNpz writes a .npz archive of the .npy files at paths (named by their keyword: the file's
// name), deflated as np.savez_compressed does or stored as np.savez does.
func writeNpz(t *testing.T, path string, deflate bool, arrays ...string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, a := range arrays {
		method := zip.Store
		if deflate {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.Base(a), Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(must(os.ReadFile(a)))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A .npz archive (np.savez_compressed(path, clips=x, actions=a)) is read as a .npy is, its
// actions from its array named actions; an array it would not read is named.
func TestLatentNpz(t *testing.T) {
	dir := t.TempDir()
	m := NewMaze(DefaultMazeConfig())
	var px, acts []float64
	for k := range 2 {
		c, _ := RenderClip(m, uint64(k+1), 5, 8, 8)
		px, acts = append(px, c.Pixels...), append(acts, c.Cond...)
	}
	arrays := filepath.Join(dir, "arrays")
	os.Mkdir(arrays, 0o755)
	SaveNpy(filepath.Join(arrays, "clips.npy"), []int{2, 5, 3, 8, 8}, px)
	SaveNpy(filepath.Join(arrays, "actions.npy"), []int{2, 5, 3}, acts)
	SaveNpy(filepath.Join(arrays, "one.npy"), []int{5, 3, 8, 8}, px[:5*3*64])
	SaveNpy(filepath.Join(arrays, "acts.npy"), []int{5, 3}, acts[:15])
	clips := filepath.Join(dir, "clips")
	os.Mkdir(clips, 0o755)
	walks := filepath.Join(clips, "walks.npz")
	writeNpz(t, walks, true, filepath.Join(arrays, "clips.npy"), filepath.Join(arrays, "actions.npy"))
	writeNpz(t, filepath.Join(clips, "a.npz"), false, filepath.Join(arrays, "one.npy")) // stored, its actions beside it
	os.WriteFile(filepath.Join(clips, "a.actions.csv"), []byte("0,1,0\n1,0,0\n0,0,1\n0,1,0\n1,0,0\n"), 0o644)
	all, names, err := LoadClips(clips)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"a.npz", "walks.npz[0]", "walks.npz[1]"}) || all[0].Cond[1] != 1 || all[0].Cond[3] != 1 {
		t.Fatalf("names %v, a.npz's actions %v", names, all[0].Cond)
	}
	for k := range 2 {
		if c := all[1+k]; c.CondDim != 3 || !slices.Equal(c.Cond, acts[k*15:(k+1)*15]) || math.Abs(c.Pixels[7]-float64(float32(px[k*5*3*64+7]))) > 0 {
			t.Errorf("walks.npz[%d]: %d actions %v", k, c.CondDim, c.Cond)
		}
	}
	if one, names, err := LoadClips(ClipPath(clips, "walks.npz[1]")); err != nil || names[0] != "walks.npz[1]" || !slices.Equal(one[0].Cond, all[2].Cond) {
		t.Errorf("walks.npz[1] alone: %v %v", names, err)
	}
	// an array it would not read, no clips, not a zip, a declared size its bytes cannot hold
	bad := filepath.Join(dir, "bad.npz")
	writeNpz(t, bad, true, filepath.Join(arrays, "one.npy"), filepath.Join(arrays, "acts.npy"))
	_, _, err = LoadClips(bad)
	wantErr(t, err, "holds arrays acts [5 3] beside the clips one: a clips archive holds the clips and their actions, named actions")
	writeNpz(t, bad, true, filepath.Join(arrays, "acts.npy"))
	_, _, err = LoadClips(bad)
	wantErr(t, err, "holds no array of clips [T, C, H, W] or [N, T, C, H, W] (it holds acts [5 3])")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	_, _, err = LoadClips(bad)
	wantErr(t, err, "npz file "+bad+" is not a readable .npz (zip) archive")
	huge := filepath.Join(arrays, "huge.npy")
	writeNpy(t, huge, "<f4", "1000000000, 3, 64, 64", nil) // a header alone: no data
	writeNpz(t, bad, true, huge)
	_, _, err = LoadClips(bad)
	wantErr(t, err, "array huge.npy of "+bad+": truncated data")
}

// LoadNamedClips reads the named clips alone, in the names' order, a batch's from one read; what
// it cannot read is said as LoadClips says it.
func TestLoadNamedClips(t *testing.T) {
	dir := t.TempDir()
	vals := make([]float64, 3*2*1*4*4)
	for i := range vals {
		vals[i] = float64(i)
	}
	SaveNpy(filepath.Join(dir, "b.npy"), []int{3, 2, 1, 4, 4}, vals)
	SaveNpy(filepath.Join(dir, "a.npy"), []int{2, 1, 4, 4}, vals[:32])
	clips, err := LoadNamedClips(dir, []string{"b.npy[2]", "a.npy", "b.npy[0]"})
	if err != nil || len(clips) != 3 || clips[0].Pixels[0] != 64 || clips[1].Pixels[0] != 0 || clips[2].Pixels[31] != 31 {
		t.Fatalf("named clips: %v", err)
	}
	for name, want := range map[string]string{"b.npy[3]": "clip index 3 out of range", "a.npy[0]": "is one clip [T, C, H, W], not a batch", "c.npy": "c.npy"} {
		if _, err := LoadNamedClips(dir, []string{"b.npy[1]", name}); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			wantErr(t, err, want)
		}
	}
	one, err := LoadNamedClips(filepath.Join(dir, "b.npy"), []string{"b.npy[1]"}) // a batch file as the path
	if err != nil || one[0].Pixels[0] != 32 {
		t.Errorf("a batch file's clip 1: %v", err)
	}
}
