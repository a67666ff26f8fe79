package paper

import (
	"fmt"
	"sync"

	"github.com/equilibriumforcing/eqf/eqflib"
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

const maxCachedRollouts = 64

type rolloutCache struct {
	mu      sync.Mutex
	entries map[string]*scores
	order   []string // insertion order, oldest first (evicted first)
}

var rollouts = &rolloutCache{entries: map[string]*scores{}}

func (c *rolloutCache) get(key string) (*scores, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.entries[key]
	return s, ok
}

func (c *rolloutCache) put(key string, s *scores) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	kept := *s
	kept.Frames = firstClip(s.Frames)
	c.entries[key] = &kept
	c.order = append(c.order, key)
	if len(c.order) > maxCachedRollouts {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
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
		l.z.Dir, m.Model, zm.Card.Hash, gphi, l.netHash, fs, fs.Depth, fs.Estimator != nil, fs.Probe != nil, fs.Schedule,
		geom, l.p.Frames, l.p.Clips, seed, l.p.FVDClip, l.p.Chunk, keepTrace), true
}
