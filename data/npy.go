package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// NumPy .npy arrays (format 1.0–3.0, C order): read as float64 whatever their numeric dtype,
// written as float32; latent clips are such arrays, [T, C, H, W] for one clip or
// [N, T, C, H, W] for a batch of N, with their actions in a file beside them.

var npyMagic = []byte("\x93NUMPY")

// LoadNpy reads a .npy array as float64 with its shape: little-endian floats (float16, 32, 64),
// integers (signed and unsigned, 8 to 64 bits) and booleans (0 or 1), in C order.
func LoadNpy(path string) (shape []int, values []float64, err error) {
	_, shape, values, err = loadNpy(path)
	return shape, values, err
}

// loadNpy is LoadNpy that also says the array's dtype as NumPy writes it ("<f4", "|u1").
func loadNpy(path string) (descr string, shape []int, values []float64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, nil, fmt.Errorf("data: npy file %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", nil, nil, fmt.Errorf("data: npy file %s: %w", path, err)
	}
	return readNpy(f, st.Size(), "npy file "+path)
}

// readNpy reads a .npy array of at most size bytes from f; what names it in errors ("npy file
// walks.npy", "array actions.npy of walks.npz").
func readNpy(f io.Reader, size int64, what string) (descr string, shape []int, values []float64, err error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("data: %s: "+format, append([]any{what}, args...)...)
	}
	pos := int64(8)
	head := make([]byte, 10)
	if _, err := io.ReadFull(f, head[:8]); err != nil || !bytes.Equal(head[:6], npyMagic) {
		return "", nil, nil, bad("not a .npy file (bad magic)")
	}
	var hlen int
	switch head[6] {
	case 1:
		if _, err := io.ReadFull(f, head[8:10]); err != nil {
			return "", nil, nil, bad("truncated header")
		}
		hlen, pos = int(binary.LittleEndian.Uint16(head[8:10])), pos+2
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return "", nil, nil, bad("truncated header")
		}
		hlen, pos = int(binary.LittleEndian.Uint32(b[:])), pos+4
	default:
		return "", nil, nil, bad("unsupported format version %d", head[6])
	}
	if hlen > 1<<20 {
		return "", nil, nil, bad("header length %d is implausible", hlen)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(f, header); err != nil {
		return "", nil, nil, bad("truncated header")
	}
	descr, fortran, shape, err := parseNpyHeader(string(header))
	if err != nil {
		return "", nil, nil, bad("%v", err)
	}
	if fortran {
		return "", nil, nil, bad("Fortran order is not supported: save with C order")
	}
	scalar, read := npyScalar(descr)
	if read == nil {
		return "", nil, nil, bad("dtype %q is not supported: must be a little-endian float (float16, 32, 64), integer or boolean", descr)
	}
	// The data must fit in what is left of the file: a header declaring a huge shape is an
	// error, never an allocation (nor an overflowing product).
	left := size - pos - int64(hlen)
	n := 1
	for _, d := range shape {
		if d != 0 && n > int(left)/scalar/d {
			return "", nil, nil, bad("truncated data: shape %v needs more than the %d bytes left after the header", shape, left)
		}
		n *= d
	}
	raw := make([]byte, n*scalar)
	if k, err := io.ReadFull(f, raw); err != nil {
		return "", nil, nil, bad("truncated data: %d of %d bytes for shape %v", k, len(raw), shape)
	}
	if k, _ := f.Read(make([]byte, 1)); k != 0 {
		return "", nil, nil, bad("trailing bytes after the %v array", shape)
	}
	values = make([]float64, n)
	for i := range values {
		values[i] = read(raw[scalar*i:])
	}
	return descr, shape, values, nil
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

// npyScalar gives the size in bytes of one value of dtype descr and its reader; read is nil for a
// dtype LoadNpy does not read (big-endian, complex, strings, objects).
func npyScalar(descr string) (size int, read func([]byte) float64) {
	le := binary.LittleEndian
	switch descr {
	case "<f2":
		return 2, func(b []byte) float64 { return float16To64(le.Uint16(b)) }
	case "<f4":
		return 4, func(b []byte) float64 { return float64(math.Float32frombits(le.Uint32(b))) }
	case "<f8":
		return 8, func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }
	case "|u1", "|b1":
		return 1, func(b []byte) float64 { return float64(b[0]) }
	case "|i1":
		return 1, func(b []byte) float64 { return float64(int8(b[0])) }
	case "<u2":
		return 2, func(b []byte) float64 { return float64(le.Uint16(b)) }
	case "<i2":
		return 2, func(b []byte) float64 { return float64(int16(le.Uint16(b))) }
	case "<u4":
		return 4, func(b []byte) float64 { return float64(le.Uint32(b)) }
	case "<i4":
		return 4, func(b []byte) float64 { return float64(int32(le.Uint32(b))) }
	case "<u8":
		return 8, func(b []byte) float64 { return float64(le.Uint64(b)) }
	case "<i8":
		return 8, func(b []byte) float64 { return float64(int64(le.Uint64(b))) }
	}
	return 0, nil
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

// Latent clips.

// latentActionsSuffixes name the file beside a latent array NAME.npy that holds its actions, in the
// order looked for.
var latentActionsSuffixes = []string{".actions.csv", ".actions.json", ".actions.npy"}

// LoadLatentClip reads a .npy latent array [T, C, H, W] as a clip, as LoadLatentClips does; a
// batch of several clips is an error (LoadLatentClips reads them).
func LoadLatentClip(path string) (*Clip, error) {
	clips, err := LoadLatentClips(path)
	if err != nil {
		return nil, err
	}
	if len(clips) != 1 {
		return nil, fmt.Errorf("data: npy file %s holds a batch of %d clips: LoadLatentClips reads them all, LoadClips(%q) the first", path, len(clips), path+"[0]")
	}
	return clips[0], nil
}

// LoadLatentClips reads a .npy array as latent clips: [T, C, H, W] is one clip, [N, T, C, H, W] a
// batch of N (LoadClips names clip i NAME.npy[i]). An array of bytes (uint8) is read as pixels,
// each value/255 in [0, 1] as frames are; any other numeric dtype as it is.
//
// The clips' actions are in the file beside NAME.npy that holds them: NAME.actions.csv or
// NAME.actions.json (one clip's, as a frame folder's actions file), or NAME.actions.npy of shape
// [T] or [T, A] (a batch's: [N, T] or [N, T, A]). Without one the clips have no actions.
//
// A .npz archive (np.savez, np.savez_compressed) holds the clips array and, named actions, their
// actions array: np.savez("walks.npz", clips=x, actions=a); any other array in it is an error.
func LoadLatentClips(path string) ([]*Clip, error) {
	clips, _, err := loadLatentClips(path)
	return clips, err
}

// loadLatentClips is LoadLatentClips that also says whether the array is a batch [N, T, C, H, W].
func loadLatentClips(path string) (clips []*Clip, batch bool, err error) {
	var (
		descr   string
		shape   []int
		values  []float64
		actions *npyArray // a .npz archive's
	)
	if isNpz(path) {
		var a *npyArray
		if a, actions, err = loadNpzClips(path); err != nil {
			return nil, false, err
		}
		descr, shape, values = a.descr, a.shape, a.values
	} else if descr, shape, values, err = loadNpy(path); err != nil {
		return nil, false, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("data: npy file %s has shape %v: "+format, append([]any{path, shape}, args...)...)
	}
	n, dims := 1, shape
	switch len(shape) {
	case 4:
	case 5:
		n, dims = shape[0], shape[1:]
	case 3:
		return nil, false, bad("a latent clip is [T, C, H, W] (a batch [N, T, C, H, W]); frames of one channel need its axis (a[:, None])")
	default:
		return nil, false, bad("a latent clip is [T, C, H, W], a batch of clips [N, T, C, H, W]")
	}
	for _, d := range shape {
		if d < 1 {
			return nil, false, bad("every dimension must be ≥ 1")
		}
	}
	t, c, h, w := dims[0], dims[1], dims[2], dims[3]
	if w <= 4 && c > 4 {
		return nil, false, bad("read as [T, C, H, W] its frames would be %d×%d with %d channels: it looks channels-last ([T, H, W, C]); save it channels-first (np.moveaxis(a, -1, -3))", w, h, c)
	}
	if descr == "|u1" {
		for i := range values {
			values[i] /= 255
		}
	}
	batch = len(shape) == 5
	var cond []float64
	var k int
	if actions != nil {
		cond, k, err = actionsOf(actions.shape, actions.values, batch, n, t, "array actions of "+path)
	} else {
		cond, k, err = latentActions(path, batch, n, t)
	}
	if err != nil {
		return nil, false, err
	}
	clips = make([]*Clip, n)
	per := t * c * h * w
	for i := range clips {
		clips[i] = &Clip{Frames: t, Channels: c, Height: h, Width: w, Pixels: values[i*per : (i+1)*per : (i+1)*per], CondDim: k}
		if k > 0 {
			clips[i].Cond = cond[i*t*k : (i+1)*t*k : (i+1)*t*k]
		}
	}
	return clips, batch, nil
}

// latentActions reads the actions of the latent array at path — one clip of t frames, or a batch
// of n — from the file beside it (latentActionsSuffixes), as [n, t, k] values; none without one.
func latentActions(path string, batch bool, n, t int) (cond []float64, k int, err error) {
	stem := strings.TrimSuffix(path, filepath.Ext(path))
	for _, suffix := range latentActionsSuffixes {
		ap := stem + suffix
		if _, err := os.Stat(ap); err != nil {
			continue
		}
		switch {
		case !batch:
			return readActionsFile(ap, t)
		case suffix != ".actions.npy":
			return nil, 0, fmt.Errorf("data: actions file %s: %s is a batch of %d clips, whose actions are an array [N, T] or [N, T, A] in %s", ap, path, n, stem+".actions.npy")
		}
		return readActionsNpy(ap, true, n, t)
	}
	return nil, 0, nil
}

// readActionsNpy reads actions from a .npy array: one clip's of t frames ([T] or [T, A]), or a
// batch's of n clips ([N, T] or [N, T, A]), as [n, t, k] values.
func readActionsNpy(path string, batch bool, n, t int) (cond []float64, k int, err error) {
	shape, vals, err := LoadNpy(path)
	if err != nil {
		return nil, 0, err
	}
	return actionsOf(shape, vals, batch, n, t, "actions file "+path)
}

// actionsOf checks an actions array's shape and values (readActionsNpy); what names it.
func actionsOf(shape []int, vals []float64, batch bool, n, t int, what string) (cond []float64, k int, err error) {
	want, dims, of := "[T] or [T, A]", shape, fmt.Sprintf("T = %d frames", t)
	if batch {
		want, dims, of = "[N, T] or [N, T, A]", nil, fmt.Sprintf("N = %d clips of %s", n, of)
		if len(shape) > 0 && shape[0] == n {
			dims = shape[1:]
		}
	}
	switch {
	case len(dims) == 1 && dims[0] == t:
		k = 1
	case len(dims) == 2 && dims[0] == t && dims[1] >= 1:
		k = dims[1]
	default:
		return nil, 0, fmt.Errorf("data: %s has shape %v: must be %s (%s)", what, shape, want, of)
	}
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("data: %s holds %v at flat index %d: actions must be finite numbers", what, v, i)
		}
	}
	return vals, k, nil
}

// .npz archives (np.savez, np.savez_compressed): a zip of .npy arrays.

// npyArray is one array of a .npz archive, named by its keyword (the entry without ".npy").
type npyArray struct {
	name, descr string
	shape       []int
	values      []float64
}

// isNpz tells a .npz archive by its name.
func isNpz(path string) bool { return strings.EqualFold(filepath.Ext(path), ".npz") }

// loadNpz reads every array of a .npz archive, in the archive's order.
func loadNpz(path string) ([]npyArray, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("data: npz file %s is not a readable .npz (zip) archive: %w", path, err)
	}
	defer zr.Close()
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("data: npz file %s: %w", path, err)
	}
	var arrays []npyArray
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".npy") {
			continue
		}
		// What an entry holds is bounded by the archive's bytes (deflate expands them at most
		// about 1032 times), whatever the sizes its header declares: never an allocation beyond.
		limit := min(int64(min(f.UncompressedSize64, 1<<50)), st.Size())
		if f.Method != zip.Store {
			limit = min(int64(min(f.UncompressedSize64, 1<<50)), 1100*st.Size()+1<<16)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("data: npz file %s: array %s: %w", path, f.Name, err)
		}
		descr, shape, values, err := readNpy(rc, limit, fmt.Sprintf("array %s of %s", f.Name, path))
		rc.Close()
		if err != nil {
			return nil, err
		}
		arrays = append(arrays, npyArray{strings.TrimSuffix(f.Name, ".npy"), descr, shape, values})
	}
	if len(arrays) == 0 {
		return nil, fmt.Errorf("data: npz file %s holds no .npy arrays", path)
	}
	return arrays, nil
}

// loadNpzClips reads the latent clips of a .npz archive: its one array of 4 or 5 dimensions and,
// when present, its array named actions. Any other array is an error naming it, so actions saved
// under another name are not dropped silently.
func loadNpzClips(path string) (clips, actions *npyArray, err error) {
	arrays, err := loadNpz(path)
	if err != nil {
		return nil, nil, err
	}
	var others []string
	for i := range arrays {
		switch a := &arrays[i]; {
		case a.name == "actions":
			actions = a
		case (len(a.shape) == 4 || len(a.shape) == 5) && clips == nil:
			clips = a
		default:
			others = append(others, fmt.Sprintf("%s %v", a.name, a.shape))
		}
	}
	switch {
	case clips == nil:
		return nil, nil, fmt.Errorf("data: npz file %s holds no array of clips [T, C, H, W] or [N, T, C, H, W] (it holds %s)", path, strings.Join(others, ", "))
	case others != nil:
		return nil, nil, fmt.Errorf("data: npz file %s holds arrays %s beside the clips %s: a clips archive holds the clips and their actions, named actions (np.savez(path, clips=x, actions=a))",
			path, strings.Join(others, ", "), clips.name)
	}
	return clips, actions, nil
}
