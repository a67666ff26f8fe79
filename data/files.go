package data

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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

// ActionsFiles are the names of a clip folder's actions file, looked for in order.
var ActionsFiles = []string{"actions.csv", "actions.json", "actions.npy"}

// LoadFrameDir reads a clip from a directory of frames (*.png, *.jpg, *.jpeg, in name order with
// numbers read as numbers: frame2.png before frame10.png, as `ffmpeg … frame%d.png` numbers them;
// all the same size) and, if present, an actions file: actions.csv (one row per frame: numbers
// separated by commas; a header row of names is allowed), actions.json (an array with one
// number or one array of numbers per frame) or actions.npy ([T] or [T, A]). Pixels are RGB in
// [0, 1].
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
	if path := actionsFile(dir); path != "" {
		if clip.Cond, clip.CondDim, err = readActionsFile(path, clip.Frames); err != nil {
			return nil, err
		}
	}
	return clip, nil
}

// actionsFile is the path of dir's actions file (ActionsFiles), "" without one.
func actionsFile(dir string) string {
	for _, name := range ActionsFiles {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}

// readActionsFile reads one clip's actions file of one row per frame, all as long as the first:
// CSV or JSON (readActions), or a .npy array [T] or [T, A]; cond holds [frames, k] values.
func readActionsFile(path string, frames int) (cond []float64, k int, err error) {
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		return readActionsNpy(path, false, 1, frames)
	}
	rows, err := readActions(path)
	if err != nil {
		return nil, 0, err
	}
	if len(rows) != frames {
		return nil, 0, fmt.Errorf("data: actions file %s has %d rows: must have one per frame (%d)", path, len(rows), frames)
	}
	k = len(rows[0])
	for t, r := range rows {
		if len(r) != k {
			return nil, 0, fmt.Errorf("data: actions file %s row %d has %d values: must have %d like row 1", path, t+1, len(r), k)
		}
		cond = append(cond, r...)
	}
	return cond, k, nil
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

// LoadClips reads the clips at path, in name order (numbers read as numbers, as LoadFrameDir
// orders frames), with their names (relative to path when it is a folder of clips, else to its
// folder: ClipPath makes a name a path again):
//   - a .npy file or .npz archive: its latent clip, or each of its batch's (LoadLatentClips),
//     named NAME.npy[i];
//   - NAME.npy[i]: clip i of that batch;
//   - a .gif file: its frames (LoadGIF), its actions beside it as a latent array's;
//   - a folder of one clip: its frames (LoadFrameDir), or its one latent array and an actions file
//     (ActionsFiles);
//   - a folder of clips: each sub-folder (one clip, as above) and each .npy, .npz and .gif file
//     in it.
//
// Names starting with "." are passed over, as are files of other kinds (a README, notes); a
// sub-folder that is not a clip, or actions beside no latent array, is an error naming it. Every
// clip must have the first one's channels, size and number of actions. All of them are read into
// memory.
func LoadClips(path string) (clips []*Clip, names []string, err error) {
	st, err := os.Stat(path)
	if file, i, ok := SplitBatchPath(path); err != nil && ok {
		return loadBatchClip(file, i)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("data: clips: %w", err)
	}
	if !st.IsDir() {
		if isVideo(path) {
			return nil, nil, fmt.Errorf("data: clips %s: a video file is not read: extract its frames into a folder first (ffmpeg -i %s frames/%%04d.png)", path, path)
		}
		if isGIF(path) {
			c, err := LoadGIF(path)
			if err != nil {
				return nil, nil, err
			}
			return []*Clip{c}, []string{filepath.Base(path)}, nil
		}
		if !isArray(path) {
			return nil, nil, fmt.Errorf("data: clips %s: a file must be a .npy latent array [T, C, H, W] (a batch [N, T, C, H, W]), a .npz archive of one or an animated .gif; frames go in a folder", path)
		}
		return loadLatentFile(path, filepath.Base(path))
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: clips: %w", err)
	}
	if isClipDir(path, entries) {
		c, err := loadClipDir(path, entries)
		if err != nil {
			return nil, nil, err
		}
		return []*Clip{c}, []string{filepath.Base(filepath.Clean(path))}, nil
	}
	videos, lower := 0, map[string]bool{}
	for _, e := range entries {
		lower[strings.ToLower(e.Name())] = true
	}
	sort.Slice(entries, func(i, j int) bool { return naturalLess(entries[i].Name(), entries[j].Name()) })
	for _, e := range entries {
		name, full := e.Name(), filepath.Join(path, e.Name())
		var cs []*Clip
		var ns []string
		switch lname := strings.ToLower(name); {
		case strings.HasPrefix(name, "."):
			continue
		case !e.IsDir() && isVideo(name):
			videos++
			continue
		case e.IsDir():
			var sub []os.DirEntry
			if sub, err = os.ReadDir(full); err == nil {
				var c *Clip
				c, err = loadClipDir(full, sub)
				cs, ns = []*Clip{c}, []string{name}
			}
		case isLatentActions(lname):
			if stem := latentOf(lname); !lower[stem+".npy"] && !lower[stem+".npz"] && !lower[stem+".gif"] {
				return nil, nil, fmt.Errorf("data: actions file %s is beside no latent array %s.npy (nor GIF %s.gif)", full, latentOf(full), latentOf(full))
			}
			continue
		case lname == "actions.npy":
			return nil, nil, fmt.Errorf("data: %s is in a folder of clips: a clip's actions are in its own folder, or beside its array as NAME.actions.npy", full)
		case isArray(lname):
			cs, ns, err = loadLatentFile(full, name)
		case isGIF(lname):
			var c *Clip
			c, err = LoadGIF(full)
			cs, ns = []*Clip{c}, []string{name}
		default:
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for k, c := range cs {
			if len(clips) > 0 {
				if c0 := clips[0]; c.Channels != c0.Channels || c.Height != c0.Height || c.Width != c0.Width || c.CondDim != c0.CondDim {
					return nil, nil, fmt.Errorf("data: clip %s is %d×%d with %d channels and %d actions per frame: must match %s's %d×%d with %d channels and %d actions",
						filepath.Join(path, ns[k]), c.Width, c.Height, c.Channels, c.CondDim, filepath.Join(path, names[0]), c0.Width, c0.Height, c0.Channels, c0.CondDim)
				}
			}
			clips, names = append(clips, c), append(names, ns[k])
		}
	}
	if len(clips) == 0 && videos > 0 {
		return nil, nil, fmt.Errorf("data: clips folder %s holds no clips but video files (%d), which are not read: extract each one's frames into a sub-folder (ffmpeg -i walk.mp4 walk/%%04d.png)", path, videos)
	}
	if len(clips) == 0 {
		return nil, nil, fmt.Errorf("data: clips folder %s holds no clips: want frames (.png/.jpg/.jpeg, one clip), sub-folders of frames, .npy latent arrays [T, C, H, W] (batches [N, T, C, H, W], .npz archives of them) or animated .gif files", path)
	}
	return clips, names, nil
}

// LoadNamedClips reads the clips LoadClips(path) names names, in that order, each alone (not the
// others of a folder), reading a batch's file once however many of its clips are named.
func LoadNamedClips(path string, names []string) ([]*Clip, error) {
	batches := map[string][]*Clip{} // a batch file's clips, read once (nil: not a batch, or unreadable)
	out := make([]*Clip, len(names))
	for k, name := range names {
		p := ClipPath(path, name)
		if file, i, ok := SplitBatchPath(p); ok {
			if _, err := os.Stat(p); err != nil { // clip i of a batch, not a file so named
				cs, read := batches[file]
				if !read {
					if all, batch, err := loadLatentClips(file); err == nil && batch {
						cs = all
					}
					batches[file] = cs
				}
				if i < len(cs) {
					out[k] = cs[i]
					continue
				}
			}
		}
		clips, _, err := LoadClips(p) // what it cannot read, LoadClips says
		if err != nil {
			return nil, err
		}
		out[k] = clips[0]
	}
	return out, nil
}

// loadLatentFile reads the latent array at path as LoadClips does, its clips named name or, for
// a batch, name[i].
func loadLatentFile(path, name string) ([]*Clip, []string, error) {
	clips, batch, err := loadLatentClips(path)
	if err != nil {
		return nil, nil, err
	}
	names := []string{name}
	if batch {
		names = make([]string, len(clips))
		for i := range names {
			names[i] = fmt.Sprintf("%s[%d]", name, i)
		}
	}
	return clips, names, nil
}

// loadBatchClip reads clip i of the batch of latent clips in file, named as LoadClips names it.
func loadBatchClip(file string, i int) ([]*Clip, []string, error) {
	clips, batch, err := loadLatentClips(file)
	if err != nil {
		return nil, nil, err
	}
	if !batch {
		return nil, nil, fmt.Errorf("data: clips %s[%d]: %s is one clip [T, C, H, W], not a batch [N, T, C, H, W]: name the file alone", file, i, file)
	}
	if i >= len(clips) {
		return nil, nil, fmt.Errorf("data: clips %s[%d]: clip index %d out of range: the batch holds %d clips, 0 to %d", file, i, i, len(clips), len(clips)-1)
	}
	return clips[i : i+1], []string{fmt.Sprintf("%s[%d]", filepath.Base(file), i)}, nil
}

// SplitBatchPath splits a path naming clip i of a batch of latent clips, NAME.npy[i], into the
// file and i; ok is false for any other path.
func SplitBatchPath(path string) (file string, i int, ok bool) {
	m := reBatchPath.FindStringSubmatch(path)
	if m == nil {
		return "", 0, false
	}
	i, err := strconv.Atoi(m[2])
	return m[1], i, err == nil
}

var reBatchPath = regexp.MustCompile(`^(.*\.(?i:npy|npz))\[([0-9]+)\]$`)

// ClipPath is the path of the clip LoadClips(path) named name: in the folder of clips path, or
// beside path (a clip's folder, a .npy file).
func ClipPath(path, name string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		if entries, err := os.ReadDir(path); err == nil && !isClipDir(path, entries) {
			return filepath.Join(path, name)
		}
	}
	return filepath.Join(filepath.Dir(filepath.Clean(path)), name)
}

// isClipDir tells a folder of one clip: frames, or one latent array with an actions file.
func isClipDir(dir string, entries []os.DirEntry) bool {
	frames, arrays, _ := clipDirContents(entries)
	return frames || (arrays == 1 && actionsFile(dir) != "")
}

// clipDirContents says whether a folder holds frames, and how many latent arrays (actions
// arrays not counted), naming the last.
func clipDirContents(entries []os.DirEntry) (frames bool, arrays int, npy string) {
	for _, e := range entries {
		lname := strings.ToLower(e.Name())
		switch {
		case isFrame(e):
			frames = true
		case !e.IsDir() && isArray(lname) && !isLatentActions(lname) && lname != "actions.npy" && !strings.HasPrefix(lname, "."):
			npy, arrays = e.Name(), arrays+1
		}
	}
	return frames, arrays, npy
}

// loadClipDir reads the clip in a folder: its frames, or its one latent array with its actions
// (beside the array, else the folder's actions file).
func loadClipDir(dir string, entries []os.DirEntry) (*Clip, error) {
	frames, arrays, npy := clipDirContents(entries)
	switch {
	case frames:
		return LoadFrameDir(dir)
	case arrays != 1:
		return nil, fmt.Errorf("data: clip folder %s holds no frames (.png/.jpg/.jpeg) and %d latent arrays (.npy): a clip's folder holds frames or one array [T, C, H, W]", dir, arrays)
	}
	c, err := LoadLatentClip(filepath.Join(dir, npy))
	if err != nil {
		return nil, err
	}
	if path := actionsFile(dir); path != "" && c.CondDim == 0 {
		if c.Cond, c.CondDim, err = readActionsFile(path, c.Frames); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// latentOf is the NAME of the latent array NAME.npy (or .npz) whose actions file is name,
// NAME.actions.csv (…).
func latentOf(name string) string {
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	return strings.TrimSuffix(stem, filepath.Ext(stem))
}

// isArray tells a latent array's file by its name: .npy, or a .npz archive.
func isArray(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".npy" || ext == ".npz"
}

// isLatentActions tells (by its lower-case name) a file holding a latent array's actions.
func isLatentActions(lname string) bool {
	for _, suffix := range latentActionsSuffixes {
		if strings.HasSuffix(lname, suffix) {
			return true
		}
	}
	return false
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
// a second each, looping), atomically. A frame of at most 256 colours (every 16×16 frame) keeps
// them exactly, so LoadGIF reads the clip back to the byte; a frame of more is dithered onto the
// Plan 9 palette.
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
