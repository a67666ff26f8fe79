package eqflib

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// The AdamW step of Trainer on the pure-Go backend, fused on the host: the step graph computes
// the loss, the gradients and their global norm, and one pass over each weight then updates the
// weight, both moments and the EMA in place (kernels in adamw_kernel*.go).
//
// Why: the Go backend (compute v0.1.14) runs every elementwise op of applyAdamW's graph as its
// own pass over memory — about 22 passes over every weight for clipping, the two moments, bias
// correction, weight decay, the update and the EMA — with no fusion of elementwise chains.
// On the small DiT (5.1M weights) those passes took 11 ms of a 117 ms training step; the fused
// host pass reads five arrays and writes four once. The graph form (applyAdamW) stays for the
// XLA backend, float64 models and the small probes; TestHostAdamWMatchesGraph checks that both
// give the same weights, moments and EMA. Drop this file when the Go backend fuses elementwise
// chains.

// hostAdamWEnabled lets tests run the graph form on the Go backend.
var hostAdamWEnabled = true

// hostAdamW is applyAdamW's update done on the host, on the same store variables (the moments
// under <ns>/adam_m and <ns>/adam_v, the step count, the EMA), so checkpoints are the same.
type hostAdamW struct {
	backend compute.Backend
	store   *model.Store
	params  []*model.Variable
	cfg     optimConfig
	ns      string
}

// useHostAdamW reports whether a trainer of a model of this dtype on this backend takes the host
// update: the pure-Go backend with shared buffers, float32 weights.
func useHostAdamW(backend compute.Backend, dt dtypes.DType) bool {
	return hostAdamWEnabled && isGoBackend(backend) && backend.HasSharedBuffers() && dt == dtypes.Float32
}

// adamwScalars are one step's per-tensor constants of the fused update (adamwKernel).
type adamwScalars struct {
	scale          float32 // global-norm clipping factor
	b1, c1, b2, c2 float32 // moment decays and 1 − decay
	invBC1, invBC2 float32 // 1 / bias corrections
	eps, lr, wd    float32 // wd = 0 for vectors (biases, gains)
	decay, ema1    float32 // EMA decay and 1 − decay; ema1 = 0 without EMA
}

// adamwSchedule returns the rate, the bias corrections and the EMA decay of step t = 1, 2, … as
// applyAdamW's graph computes them.
func adamwSchedule(cfg optimConfig, t float64) (lr, bc1, bc2, decay float64) {
	lr = math.Min(t/float64(cfg.Warmup), 1) * cfg.LR
	if cfg.CosineSteps > cfg.Warmup {
		p := math.Min(math.Max((t-float64(cfg.Warmup))/float64(cfg.CosineSteps-cfg.Warmup), 0), 1)
		lr *= cfg.MinLR + (1-cfg.MinLR)*(1+math.Cos(math.Pi*p))/2
	}
	bc1 = 1 - math.Exp(t*math.Log(cfg.Beta1+1e-300))
	bc2 = 1 - math.Exp(t*math.Log(cfg.Beta2))
	decay = cfg.EMADecay
	if cfg.EMAWarmup {
		decay = math.Min((t+1)/(t+10), cfg.EMADecay)
	}
	return lr, bc1, bc2, decay
}

// flat32 returns the float32 data of a variable's value, in place: a value that is not in a
// buffer shared with the backend is first replaced by a shared copy, so the executors read what
// the host writes without a transfer.
func (h *hostAdamW) flat32(v *model.Variable) (flat []float32, err error) {
	t, err := v.Value()
	if err != nil {
		return nil, err
	}
	if !t.IsShared() {
		st, err := tensors.FromShapeForBackend(h.backend, 0, t.Shape())
		if err != nil {
			return nil, err
		}
		if err := t.ConstFlatData(func(src any) {
			st.MustMutableFlatData(func(dst any) { copy(dst.([]float32), src.([]float32)) })
		}); err != nil {
			return nil, err
		}
		if err := v.SetValue(st); err != nil {
			return nil, err
		}
		t = st
	}
	err = t.MutableFlatData(func(f any) { flat = f.([]float32) })
	return flat, err
}

// state returns a variable of the optimiser state at path, created as zeros if absent.
func (h *hostAdamW) state(path string, shape shapes.Shape) (*model.Variable, error) {
	if v := h.store.GetVariable(path); v != nil {
		return v, nil
	}
	t, err := tensors.FromShapeForBackend(h.backend, 0, shape)
	if err != nil {
		return nil, err
	}
	if err := setVariable(h.store, path, t, false); err != nil {
		return nil, err
	}
	return h.store.GetVariable(path), nil
}

// adamwChunk is the part of the update one worker takes at a time.
const adamwChunk = 1 << 15

// step applies one AdamW step with the gradients grads (one per param, as the step graph output
// them) and their global norm before clipping.
func (h *hostAdamW) step(grads []*tensors.Tensor, norm float64) error {
	cfg := h.cfg
	stepVar, err := h.state(h.ns+stepVarPath, shapes.Make(dtypes.Float32))
	if err != nil {
		return err
	}
	steps, err := h.flat32(stepVar)
	if err != nil {
		return err
	}
	t := float64(steps[0]) + 1
	lr, bc1, bc2, decay := adamwSchedule(cfg, t)
	scale := 1.0
	if cfg.ClipNorm > 0 {
		scale = math.Min(cfg.ClipNorm/(norm+1e-6), 1)
	}
	base := adamwScalars{scale: float32(scale), b1: float32(cfg.Beta1), c1: float32(1 - cfg.Beta1),
		b2: float32(cfg.Beta2), c2: float32(1 - cfg.Beta2), invBC1: float32(1 / bc1), invBC2: float32(1 / bc2),
		eps: float32(cfg.Eps), lr: float32(lr)}
	if cfg.EMAPrefix != "" {
		base.decay, base.ema1 = float32(decay), float32(1-decay)
	}

	type job struct {
		theta, m, v, ema, g []float32
		k                   adamwScalars
	}
	var jobs []job
	for i, p := range h.params {
		k := base
		if p.Shape().Rank() >= 2 {
			k.wd = float32(cfg.WeightDecay)
		}
		var j job // the whole tensors; split into chunks below
		if j.theta, err = h.flat32(p); err != nil {
			return err
		}
		for _, s := range []struct {
			prefix string
			dst    *[]float32
		}{{h.ns + adamMPrefix, &j.m}, {h.ns + adamVPrefix, &j.v}} {
			sv, err := h.state(s.prefix+p.Path(), p.Shape())
			if err != nil {
				return err
			}
			if *s.dst, err = h.flat32(sv); err != nil {
				return err
			}
		}
		if cfg.EMAPrefix != "" {
			if j.ema, err = h.flat32(h.store.GetVariable(cfg.EMAPrefix + p.Path())); err != nil {
				return err
			}
		}
		if err := grads[i].ConstFlatData(func(f any) { j.g = f.([]float32) }); err != nil {
			return err
		}
		for lo := 0; lo < len(j.theta); lo += adamwChunk {
			hi := min(lo+adamwChunk, len(j.theta))
			c := job{theta: j.theta[lo:hi], m: j.m[lo:hi], v: j.v[lo:hi], g: j.g[lo:hi], k: k}
			if j.ema != nil {
				c.ema = j.ema[lo:hi]
			}
			jobs = append(jobs, c)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(jobs); i = int(next.Add(1) - 1) {
				j := jobs[i]
				adamwKernel(j.theta, j.m, j.v, j.ema, j.g, j.k)
			}
		}()
	}
	wg.Wait()
	steps[0] = float32(t)
	return nil
}

// adamwScalar is the fused update element by element (the kernels' reference and tail):
// g ← scale·g; m ← b1·m + (1−b1)·g; v ← b2·v + (1−b2)·g²; θ ← θ − lr·(m̂ / (√v̂ + ε) + wd·θ)
// with m̂ = m/bc1, v̂ = v/bc2; ema ← decay·ema + (1−decay)·θ (ema may be nil).
func adamwScalar(theta, m, v, ema, g []float32, k adamwScalars) {
	for i := range theta {
		gi := g[i] * k.scale
		mi := k.b1*m[i] + k.c1*gi
		vi := k.b2*v[i] + k.c2*(gi*gi)
		upd := (mi * k.invBC1) / (float32(math.Sqrt(float64(vi*k.invBC2))) + k.eps)
		th := theta[i] - k.lr*(upd+k.wd*theta[i])
		m[i], v[i], theta[i] = mi, vi, th
		if ema != nil {
			ema[i] = k.decay*ema[i] + k.ema1*th
		}
	}
}
