package data

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decode JPEG frames
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/internal/imgutil"
)

// Loaders for real data: a directory of PNG/JPEG frames per clip with an actions file, and .npy
// latent arrays [T, C, H, W]. Malformed or truncated files give errors that name the file.
// Savers write atomically (a temporary file or directory, then a rename), so nothing a user
// saved is ever half-written.

// ActionsFiles are the names LoadFrameDir looks for, in order.
var ActionsFiles = []string{"actions.csv", "actions.json"}

// LoadFrameDir reads a clip from a directory of frames (*.png, *.jpg, *.jpeg, in name order with
// numbers read as numbers: frame2.png before frame10.png, as `ffmpeg … frame%d.png` numbers them;
// all the same size) and, if present, an actions file: actions.csv (one row per frame: numbers
// separated by commas; a header row of names is allowed) or actions.json (an array with one
// number or one array of numbers per frame). Pixels are RGB in [0, 1].
func LoadFrameDir(dir string) (*Clip, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("data: frame directory %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if isFrame(e) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("data: frame directory %s holds no .png/.jpg/.jpeg frames", dir)
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	var clip *Clip
	for t, name := range names {
		path := filepath.Join(dir, name)
		img, err := decodeImage(path)
		if err != nil {
			return nil, err
		}
		b := img.Bounds()
		if clip == nil {
			if err := checkClipShape(len(names), b.Dy(), b.Dx()); err != nil {
				return nil, fmt.Errorf("data: frame %s: %w", path, err)
			}
			clip = &Clip{Frames: len(names), Channels: 3, Height: b.Dy(), Width: b.Dx()}
			clip.Pixels = make([]float64, clip.Frames*3*clip.Height*clip.Width)
		} else if b.Dx() != clip.Width || b.Dy() != clip.Height {
			return nil, fmt.Errorf("data: frame %s is %d×%d: must match the first frame's %d×%d", path, b.Dx(), b.Dy(), clip.Width, clip.Height)
		}
		px := clip.Frame(t)
		hw := clip.Height * clip.Width
		for y := 0; y < clip.Height; y++ {
			for x := 0; x < clip.Width; x++ {
				r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				px[y*clip.Width+x] = float64(r) / 65535
				px[hw+y*clip.Width+x] = float64(g) / 65535
				px[2*hw+y*clip.Width+x] = float64(bl) / 65535
			}
		}
	}
	for _, name := range ActionsFiles {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		rows, err := readActions(path)
		if err != nil {
			return nil, err
		}
		if len(rows) != clip.Frames {
			return nil, fmt.Errorf("data: actions file %s has %d rows: must have one per frame (%d)", path, len(rows), clip.Frames)
		}
		clip.CondDim = len(rows[0])
		for t, r := range rows {
			if len(r) != clip.CondDim {
				return nil, fmt.Errorf("data: actions file %s row %d has %d values: must have %d like row 1", path, t+1, len(r), clip.CondDim)
			}
			clip.Cond = append(clip.Cond, r...)
		}
		break
	}
	return clip, nil
}

// naturalLess orders names as a person does: runs of digits by their value (walk-2 before
// walk-10), the rest byte by byte; names equal so (f1, f01) fall back to byte order.
func naturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			i0, j0 := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			x, y := strings.TrimLeft(a[i0:i], "0"), strings.TrimLeft(b[j0:j], "0")
			if len(x) != len(y) {
				return len(x) < len(y)
			}
			if x != y {
				return x < y
			}
			continue
		}
		if a[i] != b[j] {
			return a[i] < b[j]
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isFrame tells a frame file LoadFrameDir reads: .png, .jpg or .jpeg.
func isFrame(e os.DirEntry) bool {
	ext := strings.ToLower(filepath.Ext(e.Name()))
	return !e.IsDir() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg")
}

func decodeImage(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: frame %s: %w", path, err)
	}
	defer f.Close()
	// The declared size bounds the decoder's allocation: refuse one that no file of this size
	// can hold (deflate and JPEG compress at most about 1000:1) before decoding.
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("data: frame %s is not a readable PNG/JPEG image: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("data: frame %s: %w", path, err)
	}
	if px := float64(cfg.Width) * float64(cfg.Height); px > float64(MaxFramePixels) || px > 1024*float64(st.Size())+1<<16 {
		return nil, fmt.Errorf("data: frame %s declares %d×%d pixels: implausible for a %d-byte file (at most %d pixels)", path, cfg.Width, cfg.Height, st.Size(), MaxFramePixels)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("data: frame %s: %w", path, err)
	}
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("data: frame %s is not a readable PNG/JPEG image: %w", path, err)
	}
	return img, nil
}

// MaxFramePixels is the largest frame LoadFrameDir decodes (Width·Height).
const MaxFramePixels = 1 << 26

func readActions(path string) ([][]float64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data: actions file %s: %w", path, err)
	}
	var rows [][]float64
	if strings.HasSuffix(path, ".json") {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("data: actions file %s is not a JSON array: %w", path, err)
		}
		for i, it := range items {
			var v float64
			if err := json.Unmarshal(it, &v); err == nil {
				rows = append(rows, []float64{v})
				continue
			}
			var vs []float64
			if err := json.Unmarshal(it, &vs); err != nil || len(vs) == 0 {
				return nil, fmt.Errorf("data: actions file %s item %d is neither a number nor a non-empty array of numbers", path, i)
			}
			rows = append(rows, vs)
		}
	} else {
		r := csv.NewReader(bytes.NewReader(raw))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			return nil, fmt.Errorf("data: actions file %s is not valid CSV: %w", path, err)
		}
		for i, rec := range recs {
			row := make([]float64, len(rec))
			bad := false
			sep := ""
			for j, s := range rec {
				if row[j], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
					bad = true
					if strings.ContainsAny(s, ";\t") {
						sep = " (values are separated by commas)"
					}
				} else if math.IsNaN(row[j]) || math.IsInf(row[j], 0) {
					return nil, fmt.Errorf("data: actions file %s row %d holds %s: actions must be finite numbers", path, i+1, strings.TrimSpace(s))
				}
			}
			if bad {
				if i == 0 && sep == "" {
					continue // a header row of names
				}
				return nil, fmt.Errorf("data: actions file %s row %d holds a value that is not a number%s: %q", path, i+1, sep, rec)
			}
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("data: actions file %s holds no rows", path)
	}
	return rows, nil
}

// SaveFrameDir writes a clip as dir/0000.png … and, when it has conditions, dir/actions.csv
// (with a header row of names when given). The directory is built next to dir and renamed into
// place; an existing dir is an error (nothing is overwritten). Missing parent folders are made,
// so a loop can write a folder of clips for LoadClips.
func SaveFrameDir(dir string, c *Clip, condNames []string) (err error) {
	if c == nil {
		return fmt.Errorf("data: SaveFrameDir: the clip c is nil")
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("data: %s exists: SaveFrameDir never overwrites", dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	for t := 0; t < c.Frames; t++ {
		var buf bytes.Buffer
		if err := png.Encode(&buf, FrameImage(c, t)); err != nil {
			return fmt.Errorf("data: encoding frame %d: %w", t, err)
		}
		if err := os.WriteFile(filepath.Join(tmp, fmt.Sprintf("%04d.png", t)), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	if c.CondDim > 0 {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if len(condNames) == c.CondDim {
			w.Write(condNames)
		}
		for t := 0; t < c.Frames; t++ {
			rec := make([]string, c.CondDim)
			for j := range rec {
				rec[j] = strconv.FormatFloat(c.Cond[t*c.CondDim+j], 'g', -1, 64)
			}
			w.Write(rec)
		}
		w.Flush()
		if err := os.WriteFile(filepath.Join(tmp, "actions.csv"), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}

// FrameImage converts frame t of a clip (values in [0, 1], clamped) to an image: three channels as
// red, green and blue, one as grey, two as red and green; channels past the third (a latent's
// fourth) are not drawn.
func FrameImage(c *Clip, t int) *image.RGBA {
	if c == nil || t < 0 || t >= c.Frames || c.Channels < 1 || c.Height < 1 || c.Width < 1 || len(c.Pixels) < c.Frames*c.Channels*c.Height*c.Width {
		return image.NewRGBA(image.Rect(0, 0, 0, 0)) // no such frame: an empty image
	}
	img := image.NewRGBA(image.Rect(0, 0, c.Width, c.Height))
	px := c.Frame(t)
	hw := c.Height * c.Width
	to8 := func(v float64) uint8 { return uint8(math.Round(255 * math.Min(math.Max(v, 0), 1))) }
	channel := func(k, i int) uint8 { // red, green and blue of pixel i
		switch {
		case c.Channels == 1:
			return to8(px[i]) // grey
		case k < c.Channels:
			return to8(px[k*hw+i])
		}
		return 0
	}
	for y := 0; y < c.Height; y++ {
		for x := 0; x < c.Width; x++ {
			i := y*c.Width + x
			img.SetRGBA(x, y, color.RGBA{channel(0, i), channel(1, i), channel(2, i), 255})
		}
	}
	return img
}

// ---------------------------------------------------------------------------------------------
// .npy arrays (NumPy format 1.0–3.0, little-endian float16/32/64, C order).

var npyMagic = []byte("\x93NUMPY")

// LoadNpy reads a .npy array as float64 with its shape.
func LoadNpy(path string) (shape []int, values []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: npy file %s: %w", path, err)
	}
	defer f.Close()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("data: npy file %s: "+format, append([]any{path}, args...)...)
	}
	head := make([]byte, 10)
	if _, err := io.ReadFull(f, head[:8]); err != nil || !bytes.Equal(head[:6], npyMagic) {
		return nil, nil, bad("not a .npy file (bad magic)")
	}
	var hlen int
	switch head[6] {
	case 1:
		if _, err := io.ReadFull(f, head[8:10]); err != nil {
			return nil, nil, bad("truncated header")
		}
		hlen = int(binary.LittleEndian.Uint16(head[8:10]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return nil, nil, bad("truncated header")
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, nil, bad("unsupported format version %d", head[6])
	}
	if hlen > 1<<20 {
		return nil, nil, bad("header length %d is implausible", hlen)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(f, header); err != nil {
		return nil, nil, bad("truncated header")
	}
	descr, fortran, shape, err := parseNpyHeader(string(header))
	if err != nil {
		return nil, nil, bad("%v", err)
	}
	if fortran {
		return nil, nil, bad("Fortran order is not supported: save with C order")
	}
	var size int
	switch descr {
	case "<f2":
		size = 2
	case "<f4":
		size = 4
	case "<f8":
		size = 8
	default:
		return nil, nil, bad("dtype %q is not supported: must be little-endian float16, float32 or float64", descr)
	}
	// The data must fit in what is left of the file: a header declaring a huge shape is an
	// error, never an allocation (nor an overflowing product).
	st, err := f.Stat()
	if err != nil {
		return nil, nil, bad("%v", err)
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, nil, bad("%v", err)
	}
	left := st.Size() - pos
	n := 1
	for _, d := range shape {
		if d != 0 && n > int(left)/size/d {
			return nil, nil, bad("truncated data: shape %v needs more than the %d bytes left after the header", shape, left)
		}
		n *= d
	}
	raw := make([]byte, n*size)
	if k, err := io.ReadFull(f, raw); err != nil {
		return nil, nil, bad("truncated data: %d of %d bytes for shape %v", k, len(raw), shape)
	}
	if k, _ := f.Read(make([]byte, 1)); k != 0 {
		return nil, nil, bad("trailing bytes after the %v array", shape)
	}
	values = make([]float64, n)
	for i := range values {
		switch size {
		case 2:
			values[i] = float16To64(binary.LittleEndian.Uint16(raw[2*i:]))
		case 4:
			values[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
		default:
			values[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
	}
	return shape, values, nil
}

var (
	reDescr   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	reFortran = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	reShape   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

func parseNpyHeader(h string) (descr string, fortran bool, shape []int, err error) {
	d, fo, s := reDescr.FindStringSubmatch(h), reFortran.FindStringSubmatch(h), reShape.FindStringSubmatch(h)
	if d == nil || fo == nil || s == nil {
		return "", false, nil, errors.New("malformed header: needs 'descr', 'fortran_order' and 'shape'")
	}
	for _, part := range strings.Split(s[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		v, err := strconv.Atoi(part)
		if err != nil || v < 0 {
			return "", false, nil, fmt.Errorf("malformed shape %q", s[1])
		}
		shape = append(shape, v)
	}
	return d[1], fo[1] == "True", shape, nil
}

func float16To64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 31:
		if frac == 0 {
			return sign * math.Inf(1)
		}
		return math.NaN()
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

// SaveNpy writes values with the given shape as a little-endian float32 .npy file (format 1.0),
// atomically.
func SaveNpy(path string, shape []int, values []float64) error {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("data: SaveNpy %s: shape %v has a negative dimension", path, shape)
		}
		n *= d
	}
	if n != len(values) {
		return fmt.Errorf("data: SaveNpy %s: %d values do not fill shape %v (%d)", path, len(values), shape, n)
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	shapeStr := strings.Join(dims, ", ")
	if len(shape) == 1 {
		shapeStr += ","
	}
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", shapeStr)
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var buf bytes.Buffer
	buf.Write(npyMagic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	for _, v := range values {
		binary.Write(&buf, binary.LittleEndian, math.Float32bits(float32(v)))
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// LoadLatentClip reads a .npy latent array [T, C, H, W] as an unconditioned clip.
func LoadLatentClip(path string) (*Clip, error) {
	shape, values, err := LoadNpy(path)
	if err != nil {
		return nil, err
	}
	if len(shape) != 4 || shape[0] < 1 || shape[1] < 1 || shape[2] < 1 || shape[3] < 1 {
		return nil, fmt.Errorf("data: npy file %s has shape %v: a latent clip must be [T, C, H, W] with every dimension ≥ 1", path, shape)
	}
	return &Clip{Frames: shape[0], Channels: shape[1], Height: shape[2], Width: shape[3], Pixels: values}, nil
}

// LoadClips reads the clips at path, in name order (numbers read as numbers, as LoadFrameDir
// orders frames), with their names (relative to path):
//   - a .npy file: one latent clip (LoadLatentClip);
//   - a folder holding frames: one clip (LoadFrameDir);
//   - a folder of clips: each sub-folder (a clip's frames) and each .npy file in it.
//
// Names starting with "." are passed over, as are files of other kinds (a README, notes); a
// sub-folder without frames is an error naming it. Every clip must have the first one's channels,
// size and number of actions. All of them are read into memory.
func LoadClips(path string) (clips []*Clip, names []string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: clips: %w", err)
	}
	if !st.IsDir() {
		if isVideo(path) {
			return nil, nil, fmt.Errorf("data: clips %s: a video file is not read: extract its frames into a folder first (ffmpeg -i %s frames/%%04d.png)", path, path)
		}
		if !strings.EqualFold(filepath.Ext(path), ".npy") {
			return nil, nil, fmt.Errorf("data: clips %s: a file must be a .npy latent array [T, C, H, W]; frames go in a folder", path)
		}
		c, err := LoadLatentClip(path)
		if err != nil {
			return nil, nil, err
		}
		return []*Clip{c}, []string{filepath.Base(path)}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: clips: %w", err)
	}
	for _, e := range entries { // a folder of frames is one clip
		if isFrame(e) {
			c, err := LoadFrameDir(path)
			if err != nil {
				return nil, nil, err
			}
			return []*Clip{c}, []string{filepath.Base(filepath.Clean(path))}, nil
		}
	}
	videos := 0
	sort.Slice(entries, func(i, j int) bool { return naturalLess(entries[i].Name(), entries[j].Name()) })
	for _, e := range entries {
		name, full := e.Name(), filepath.Join(path, e.Name())
		var c *Clip
		switch {
		case strings.HasPrefix(name, "."):
			continue
		case !e.IsDir() && isVideo(name):
			videos++
			continue
		case e.IsDir():
			c, err = LoadFrameDir(full)
		case strings.EqualFold(filepath.Ext(name), ".npy"):
			c, err = LoadLatentClip(full)
		default:
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if len(clips) > 0 {
			if c0 := clips[0]; c.Channels != c0.Channels || c.Height != c0.Height || c.Width != c0.Width || c.CondDim != c0.CondDim {
				return nil, nil, fmt.Errorf("data: clip %s is %d×%d with %d channels and %d actions per frame: must match %s's %d×%d with %d channels and %d actions",
					full, c.Width, c.Height, c.Channels, c.CondDim, filepath.Join(path, names[0]), c0.Width, c0.Height, c0.Channels, c0.CondDim)
			}
		}
		clips, names = append(clips, c), append(names, name)
	}
	if len(clips) == 0 && videos > 0 {
		return nil, nil, fmt.Errorf("data: clips folder %s holds no clips but video files (%d), which are not read: extract each one's frames into a sub-folder (ffmpeg -i walk.mp4 walk/%%04d.png)", path, videos)
	}
	if len(clips) == 0 {
		return nil, nil, fmt.Errorf("data: clips folder %s holds no clips: want frames (.png/.jpg/.jpeg, one clip), sub-folders of frames, or .npy latent arrays [T, C, H, W]", path)
	}
	return clips, names, nil
}

// isVideo tells a video file by its name, which LoadClips does not read but names.
func isVideo(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".mp4", ".mov", ".avi", ".mkv", ".webm", ".m4v":
		return true
	}
	return false
}

// WriteFileAtomic writes data to a temporary file in path's directory, syncs it and renames it
// over path, so readers see the old file or the new one, never a partial one.
func WriteFileAtomic(path string, data []byte) error {
	if err := fsutil.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}

// SaveStrip writes the clip's frames side by side as one PNG, each frame scaled up by `scale`,
// atomically.
func SaveStrip(path string, c *Clip, scale int) error {
	if scale < 1 {
		return fmt.Errorf("data: SaveStrip %s: scale = %d out of range: must be ≥ 1", path, scale)
	}
	strip := image.NewRGBA(image.Rect(0, 0, c.Frames*c.Width*scale, c.Height*scale))
	for t := 0; t < c.Frames; t++ {
		fr := FrameImage(c, t)
		for y := 0; y < c.Height*scale; y++ {
			for x := 0; x < c.Width*scale; x++ {
				strip.Set(t*c.Width*scale+x, y, fr.At(x/scale, y/scale))
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, strip); err != nil {
		return fmt.Errorf("data: SaveStrip %s: %w", path, err)
	}
	return WriteFileAtomic(path, buf.Bytes())
}

// SaveGIF writes the clip as an animated GIF (frames scaled up by `scale`, `delay` hundredths of
// a second each, looping), atomically.
func SaveGIF(path string, c *Clip, scale, delay int) error {
	if scale < 1 || delay < 1 {
		return fmt.Errorf("data: SaveGIF %s: scale = %d, delay = %d out of range: both must be ≥ 1", path, scale, delay)
	}
	frames := make([]image.Image, c.Frames)
	for t := range frames {
		fr := FrameImage(c, t)
		big := image.NewRGBA(image.Rect(0, 0, c.Width*scale, c.Height*scale))
		for y := 0; y < c.Height*scale; y++ {
			for x := 0; x < c.Width*scale; x++ {
				big.Set(x, y, fr.At(x/scale, y/scale))
			}
		}
		frames[t] = big
	}
	b, err := imgutil.EncodeGIF(frames, delay)
	if err != nil {
		return fmt.Errorf("data: SaveGIF %s: %w", path, err)
	}
	return WriteFileAtomic(path, b)
}
