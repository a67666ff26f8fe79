package data

import (
	"archive/zip"
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Fuzz targets for every loader of this package: hostile files (truncated, oversized headers,
// huge declared dimensions, wrong dtypes) must give an error, never a panic or an allocation
// beyond what the file's size allows. `go test` replays the seeds (and testdata/fuzz); run one
// with `go test -fuzz FuzzLoadNpy ./data/`.

func writeTemp(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzLoadNpy(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.npy")
	if err := SaveNpy(good, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	f.Add(b)
	f.Add(b[:len(b)-5]) // truncated data
	f.Add([]byte("\x93NUMPY\x01\x00\x46\x00{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }\n"))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f"))                                                          // huge header length
	f.Add([]byte("\x93NUMPY\x01\x00\x40\x00{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }      \n")) // big-endian: not read
	f.Fuzz(func(t *testing.T, b []byte) {
		shape, v, err := LoadNpy(writeTemp(t, "x.npy", b))
		if err != nil {
			return
		}
		n := 1
		for _, d := range shape {
			n *= d
		}
		if n != len(v) || len(v) > len(b) { // at least a byte per value (uint8, bool)
			t.Fatalf("shape %v with %d values from a %d-byte file", shape, len(v), len(b))
		}
	})
}

// FuzzLoadNpz: a .npz archive's entries are bounded by what their bytes can hold (a compressed
// entry by deflate's largest ratio), whatever their headers declare.
func FuzzLoadNpz(f *testing.F) {
	dir := f.TempDir()
	clips, actions := filepath.Join(dir, "clips.npy"), filepath.Join(dir, "actions.npy")
	SaveNpy(clips, []int{2, 1, 4, 4}, make([]float64, 32))
	SaveNpy(actions, []int{2, 1}, []float64{1, 0})
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, p := range []string{clips, actions} {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: filepath.Base(p), Method: method})
			b, _ := os.ReadFile(p)
			w.Write(b)
		}
		zw.Close()
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		clips, err := LoadLatentClips(writeTemp(t, "x.npz", b))
		if err != nil {
			return
		}
		n := 0
		for _, c := range clips {
			n += len(c.Pixels) + len(c.Cond)
		}
		if n > 1100*len(b)+1<<16 {
			t.Fatalf("%d values from a %d-byte archive", n, len(b))
		}
	})
}

func FuzzLoadStats(f *testing.F) {
	f.Add([]byte(`{"mean":[0.5,0.5,0.5],"std":[0.2,0.2,0.2]}`))
	f.Add([]byte(`{"mean":[0.5],"std":[0]}`))
	f.Add([]byte(`{"mean":[],"std":[]}`))
	f.Add([]byte(`[1,2`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := LoadStats(writeTemp(t, "stats.json", b))
		if err != nil {
			return
		}
		if len(s.Mean) == 0 || len(s.Mean) != len(s.Std) {
			t.Fatalf("accepted stats %+v", s)
		}
		for _, v := range s.Std {
			if !(v > 0) {
				t.Fatalf("accepted std %g", v)
			}
		}
	})
}

// FuzzLoadFrameDir fuzzes a frame directory: one frame's bytes and the actions file.
func FuzzLoadFrameDir(f *testing.F) {
	var frame bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	png.Encode(&frame, img)
	f.Add(frame.Bytes(), []byte("forward,left,right\n1,0,0\n0,1,0\n"), false)
	f.Add(frame.Bytes(), []byte("[[1,0,0],[0,1,0]]"), true)
	f.Add(frame.Bytes(), []byte("[1, [2]]"), true)
	f.Add(frame.Bytes()[:20], []byte("1\n2\n"), false)
	// A PNG header that declares 2^30 × 2^30 pixels.
	huge := append([]byte(nil), frame.Bytes()...)
	copy(huge[16:24], []byte{0x40, 0, 0, 0, 0x40, 0, 0, 0})
	f.Add(huge, []byte("1\n2\n"), false)
	f.Fuzz(func(t *testing.T, frameBytes, actions []byte, asJSON bool) {
		dir := t.TempDir()
		// Two frames: a good one and the fuzzed one.
		if err := os.WriteFile(filepath.Join(dir, "000.png"), frame.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "001.png"), frameBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		name := "actions.csv"
		if asJSON {
			name = "actions.json"
		}
		if err := os.WriteFile(filepath.Join(dir, name), actions, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadFrameDir(dir)
		if err != nil {
			return
		}
		if c.Frames != 2 || len(c.Pixels) != 2*c.Channels*c.Height*c.Width || len(c.Cond) != 2*c.CondDim {
			t.Fatalf("inconsistent clip: %d frames, %d pixels for %d×%d×%d, %d conditions of %d", c.Frames, len(c.Pixels), c.Channels, c.Height, c.Width, len(c.Cond), c.CondDim)
		}
	})
}

// FuzzLoadGIF: a GIF's clip is its screen once per frame, so a screen its frames could not paint
// even once (a few bytes declaring a huge screen over tiny frames) is refused before the clip is
// made, as is a clip past maxGIFValues; a clip read has the GIF's frames and screen.
func FuzzLoadGIF(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.gif")
	c := &Clip{Frames: 3, Channels: 3, Height: 4, Width: 5, Pixels: make([]float64, 3*3*4*5)}
	for i := range c.Pixels {
		c.Pixels[i] = float64(i%7) / 7
	}
	if err := SaveGIF(good, c, 1, 10); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	f.Add(b)
	f.Add(b[:len(b)-4]) // truncated
	tiny := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black, color.White})
	var huge bytes.Buffer // 84 bytes declaring a 20000×20000 screen over three 1×1 frames
	if err := gif.EncodeAll(&huge, &gif.GIF{Image: []*image.Paletted{tiny, tiny, tiny}, Delay: []int{0, 0, 0},
		Config: image.Config{Width: 20000, Height: 20000, ColorModel: tiny.Palette}}); err != nil {
		f.Fatal(err)
	}
	f.Add(huge.Bytes())
	huge.Reset() // a 2000×2000 screen: within maxGIFValues, still unpainted
	if err := gif.EncodeAll(&huge, &gif.GIF{Image: []*image.Paletted{tiny, tiny, tiny}, Delay: []int{0, 0, 0},
		Config: image.Config{Width: 2000, Height: 2000, ColorModel: tiny.Palette}}); err != nil {
		f.Fatal(err)
	}
	f.Add(huge.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := LoadGIF(writeTemp(t, "x.gif", b))
		if err != nil {
			return
		}
		g, err := gif.DecodeAll(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("LoadGIF read a clip from what gif.DecodeAll refuses: %v", err)
		}
		painted := 0
		for _, fr := range g.Image {
			painted += fr.Bounds().Dx() * fr.Bounds().Dy()
		}
		hw := c.Height * c.Width
		if c.Frames != len(g.Image) || c.Height != g.Config.Height || c.Width != g.Config.Width || len(c.Pixels) != c.Frames*3*hw ||
			hw > painted || len(c.Pixels) > maxGIFValues {
			t.Fatalf("a clip of %d frames of %d×%d (%d values) from %d frames painting %d pixels of a %d×%d screen",
				c.Frames, c.Width, c.Height, len(c.Pixels), len(g.Image), painted, g.Config.Width, g.Config.Height)
		}
	})
}
