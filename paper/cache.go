package paper

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Rollouts that experiments share are computed once per process: `eqf paper all` rolls FM Euler
// and EqF NAG on the c-function warp at D = 20 out in several tables (minecraft_main,
// fm_conditioning_ablation, minecraft_inference_expts, mc_eq_finetune; the 50-frame sweeps
// share theirs too). A rollout's scores are kept under a key made of everything that decides
// them — the zoo folder, the model's and g_φ's configuration hashes (training seed included),
// the action net's, the sampler and its options, the depth, the window geometry, the frames,
// clips and evaluation seed, the FVD clip and chunk lengths, and whether the trace is kept —
// so a hit returns what the rollout would compute (bit for bit on the pure-Go backend).
// Config.NoCache turns it off. Only the first clip of a cached rollout's frames is kept (the
// rollout strip shows it), so the cache holds at most maxCachedRollouts × a few MB.
//
// With Config.CacheDir (`eqf paper` keeps it in its output folder) the scores also go to disk as
// they are computed, one gob file per rollout named by the SHA-256 of its key and of the running
// executable, so that a run that was stopped (Ctrl-C, a session's end, a GPU machine given back)
// and started again with the same binary, zoo and flags computes only the rollouts it had not
// finished, and gets the same numbers. The key holds each card's finish time besides its
// configuration hash, so a model retrained since is a miss; another build of eqf is one too,
// unless Config.RolloutsOf names that build (a change that decides no rollout: a figure, a
// note), and the result's notes then say how many rollouts it gave.

const maxCachedRollouts = 64

type rolloutCache struct {
	mu      sync.Mutex
	entries map[string]*scores
	order   []string // insertion order, oldest first (evicted first)
}

var rollouts = &rolloutCache{entries: map[string]*scores{}}

// disk is where rollouts' scores go on disk: the folder (Config.CacheDir; "" for none), the
// digest of the executable that names the files this process writes, and the digests of other
// builds whose files it also reads (Config.RolloutsOf).
type disk struct {
	dir  string
	exe  string
	also []string
}

// get returns the scores kept under key, from this process or else from d.
func (c *rolloutCache) get(key string, d disk) (*scores, bool) {
	c.mu.Lock()
	s, ok := c.entries[key]
	c.mu.Unlock()
	if ok || d.dir == "" {
		return s, ok
	}
	if s, ok = readCached(d, key); ok {
		c.keep(key, s)
	}
	return s, ok
}

// put keeps s (whose Frames hold the strip's clip only: rollout trims them) under key in this
// process and, when d has a folder, on disk under this executable.
func (c *rolloutCache) put(key string, s *scores, d disk) error {
	c.keep(key, s)
	if d.dir == "" {
		return nil
	}
	return writeCached(d, key, s)
}

func (c *rolloutCache) keep(key string, s *scores) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = s
	c.order = append(c.order, key)
	if len(c.order) > maxCachedRollouts {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
}

// executableDigest is the SHA-256 of the running executable ("" when it cannot be read: the
// disk cache is then off).
var executableDigest = sync.OnceValue(func() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	d, err := fileDigest(path)
	if err != nil {
		return ""
	}
	return d
})

// fileDigest is the SHA-256 of a file, in hex.
func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cachedPath is the file of key's scores in dir as the executable of digest exe writes it (""
// when the disk cache is off).
func cachedPath(dir, exe, key string) string {
	if exe == "" {
		return ""
	}
	h := sha256.Sum256([]byte(exe + "\n" + key))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".gob")
}

// cachedScores is a cache file: the key beside the scores, so that a file is only ever read
// back for the key it was written for.
type cachedScores struct {
	Key    string
	Scores scores
}

// readCached reads key's scores from d, as this executable wrote them or else as another build
// of d.also did (the scores then say which: scores.from); a missing, unreadable or foreign file
// is a miss.
func readCached(d disk, key string) (*scores, bool) {
	for i, exe := range append([]string{d.exe}, d.also...) {
		path := cachedPath(d.dir, exe, key)
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var c cachedScores
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil || c.Key != key {
			continue
		}
		if i > 0 {
			c.Scores.from = exe
		}
		return &c.Scores, true
	}
	return nil, false
}

// writeCached writes key's scores to d's folder atomically, under this executable.
func writeCached(d disk, key string, s *scores) error {
	path := cachedPath(d.dir, d.exe, key)
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(d.dir, 0o755); err != nil {
		return fmt.Errorf("paper: Config.CacheDir: %w", err)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(cachedScores{Key: key, Scores: *s}); err != nil {
		return fmt.Errorf("paper: caching a rollout: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b.Bytes())
}

// cardID names a trained model in the cache's keys: its configuration hash and when its
// training finished (a retrained model is another model).
func cardID(c *zoo.Card) string {
	return c.Hash + " finished " + c.Finished.UTC().Format(time.RFC3339Nano)
}

// firstClip is batch element 0 of a window (nil for nil).
func firstClip(w *eqflib.Window) *eqflib.Window {
	if w == nil {
		return nil
	}
	n := w.Frames() * w.FrameSize()
	return &eqflib.Window{Shape: [5]int{1, w.Shape[1], w.Shape[2], w.Shape[3], w.Shape[4]}, Data: append([]float64(nil), w.Data[:n]...)}
}

// rolloutKey identifies a rollout (see above); ok is false for one that cannot be cached (a
// sampler with a callback, or a model without a card).
func (l *setup) rolloutKey(m method, fs eqflib.FrameSampler, geom eqflib.RollConfig, seed uint64, keepTrace bool) (key string, ok bool) {
	zm := l.models[m.Model]
	if l.cfg.NoCache || fs.Callback != nil || zm == nil || zm.Card == nil {
		return "", false
	}
	gphi := ""
	if fs.Estimator != nil || fs.Probe != nil {
		gphi = l.byRun[l.run].gphiHash
	}
	return fmt.Sprintf("zoo %s | %s %s | g_φ %s | action net %s | %s depth %d estimator %v probe %v schedule %p | %+v | frames %d clips %d seed %d | fvd clip %d chunk %d | trace %v",
		l.z.Dir, m.Model, cardID(zm.Card), gphi, l.netHash, fs, fs.Depth, fs.Estimator != nil, fs.Probe != nil, fs.Schedule,
		geom, l.p.Frames, l.p.Clips, seed, l.p.FVDClip, l.p.Chunk, keepTrace), true
}
