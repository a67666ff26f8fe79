package eqflib

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Checkpoints are single files: a magic line, a JSON header (trainer state and the list of
// variables), the variables' raw little-endian bytes, and a SHA-256 of everything before it.
// They are written to a temporary file and renamed into place, so a crash never leaves a
// half-written checkpoint; a truncated or corrupted file fails its hash and is never loaded.
//
// Why not GoMLX's checkpoints package (v0.28.16): a reloaded variable comes back trainable
// whatever it was saved as (the frozen backbone under a readout would train again), the files
// are a JSON + binary pair created in place (os.Create) rather than one atomic, hash-checked file,
// and they do not carry the trainer's random stream, history and configuration that an exact
// resume needs.

const checkpointMagic = "EQFCKPT1\n"

// CheckpointPattern names checkpoint files in a directory: ckpt-<step>.eqf.
const CheckpointPattern = "ckpt-%08d.eqf"

type ckptVar struct {
	Path      string `json:"path"`
	DType     string `json:"dtype"`
	Shape     []int  `json:"shape"`
	Trainable bool   `json:"trainable"`
	Offset    int    `json:"offset"`
	Bytes     int    `json:"bytes"`
}

type ckptHeader struct {
	Step             int         `json:"step"`
	Objective        string      `json:"objective"`
	Config           DiTConfig   `json:"dit"`
	NoiseConditional bool        `json:"noise_conditional"`
	DType            string      `json:"dtype"`
	RNG              []byte      `json:"rng"`
	History          []LossPoint `json:"history"`
	Seconds          float64     `json:"seconds,omitempty"` // Trainer.Seconds (0 in older checkpoints)
	Variables        []ckptVar   `json:"variables"`
	Net              *NetConfig  `json:"net,omitempty"` // for non-DiT networks (the action net)
}

// SaveCheckpoint writes the trainer's full state (weights, EMA, optimiser moments, step, data
// RNG, loss history, training time) to dir/ckpt-<step>.eqf and removes all but the newest
// `keep` checkpoints. It returns the file's path.
func (t *Trainer) SaveCheckpoint(dir string, keep int) (path string, err error) {
	defer catch(&err)
	if keep < 1 {
		return "", paramErr("keep", keep, "≥ 1")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("eqflib: checkpoint directory %s: %w", dir, err)
	}
	rng, err := t.pcg.MarshalBinary()
	if err != nil {
		return "", err
	}
	h := ckptHeader{Step: t.Step, Objective: t.Config.Objective.Kind.String(), Config: t.Model.Config,
		NoiseConditional: t.Model.NoiseConditional, DType: t.Model.DType.String(), RNG: rng, History: t.History, Seconds: t.Seconds}
	file, err := encodeStore(h, t.Model.Store)
	if err != nil {
		return "", err
	}
	path = filepath.Join(dir, fmt.Sprintf(CheckpointPattern, t.Step))
	if err := fsutil.WriteFileAtomic(path, file); err != nil {
		return "", fmt.Errorf("eqflib: %w", err)
	}
	// Keep the newest `keep`, and drop temporary files that a killed writer left behind (a
	// checkpoint folder has one trainer writing to it).
	old, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.eqf"))
	sort.Strings(old)
	for i := 0; i < len(old)-keep; i++ {
		os.Remove(old[i])
	}
	stale, _ := filepath.Glob(filepath.Join(dir, ".ckpt-*.eqf.tmp-*"))
	for _, f := range stale {
		os.Remove(f)
	}
	return path, nil
}

// CheckpointSummary is what a checkpoint says about its training, without its weights.
type CheckpointSummary struct {
	Step    int         // the steps taken
	Seconds float64     // the time Trainer.Run spent on them, over every run resumed; 0 in checkpoints older than it
	History []LossPoint // one point per step
}

// CheckpointInfo reads a checkpoint's step, training time and loss history (the file is verified
// whole, as for loading).
func CheckpointInfo(path string) (CheckpointSummary, error) {
	h, _, err := readCheckpoint(path)
	if err != nil {
		return CheckpointSummary{}, err
	}
	return CheckpointSummary{Step: h.Step, Seconds: h.Seconds, History: h.History}, nil
}

// encodeStore serialises every variable of store after the header h: magic, header length,
// JSON header, raw tensors, SHA-256 of all that.
func encodeStore(h ckptHeader, store *model.Store) ([]byte, error) {
	var payload bytes.Buffer
	paths := make([]string, 0)
	vars := map[string]*tensors.Tensor{}
	for v := range store.IterVariables() {
		val, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("eqflib: checkpoint: variable %s: %w", v.Path(), err)
		}
		paths = append(paths, v.Path())
		vars[v.Path()] = val
		h.Variables = append(h.Variables, ckptVar{Path: v.Path(), DType: val.DType().String(), Shape: val.Shape().Dimensions, Trainable: v.Trainable})
	}
	sort.Strings(paths)
	sort.Slice(h.Variables, func(i, j int) bool { return h.Variables[i].Path < h.Variables[j].Path })
	for i, p := range paths {
		b, err := tensorBytes(vars[p])
		if err != nil {
			return nil, fmt.Errorf("eqflib: checkpoint: variable %s: %w", p, err)
		}
		h.Variables[i].Offset, h.Variables[i].Bytes = payload.Len(), len(b)
		payload.Write(b)
	}
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var file bytes.Buffer
	file.WriteString(checkpointMagic)
	binary.Write(&file, binary.LittleEndian, uint64(len(head)))
	file.Write(head)
	file.Write(payload.Bytes())
	sum := sha256.Sum256(file.Bytes())
	file.Write(sum[:])
	return file.Bytes(), nil
}

// LatestCheckpoint returns the newest checkpoint in dir ("" when there is none).
func LatestCheckpoint(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.eqf"))
	if len(files) == 0 {
		return ""
	}
	sort.Strings(files)
	return files[len(files)-1]
}

// readCheckpoint reads and verifies a checkpoint file.
func readCheckpoint(path string) (*ckptHeader, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("eqflib: checkpoint %s: %w", path, err)
	}
	bad := func(why string) error {
		return fmt.Errorf("eqflib: checkpoint %s is corrupt or truncated (%s): not loaded", path, why)
	}
	if len(raw) < len(checkpointMagic)+8+sha256.Size || string(raw[:len(checkpointMagic)]) != checkpointMagic {
		return nil, nil, bad("bad magic or too short")
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, nil, bad("SHA-256 mismatch")
	}
	n := binary.LittleEndian.Uint64(body[len(checkpointMagic):])
	start := uint64(len(checkpointMagic) + 8)
	if n > uint64(len(body))-start {
		return nil, nil, bad("header length")
	}
	var h ckptHeader
	if err := json.Unmarshal(body[start:start+n], &h); err != nil {
		return nil, nil, bad("header: " + err.Error())
	}
	payload := body[start+n:]
	for _, v := range h.Variables {
		if v.Offset < 0 || v.Bytes < 0 || v.Offset+v.Bytes > len(payload) {
			return nil, nil, bad("variable " + v.Path + " out of bounds")
		}
	}
	return &h, payload, nil
}

// RestoreCheckpoint loads a checkpoint written by SaveCheckpoint into the trainer (same DiT
// configuration and objective) and continues from its step exactly: weights, EMA, optimiser
// moments, data RNG and history.
func (t *Trainer) RestoreCheckpoint(path string) (err error) {
	defer catch(&err)
	h, payload, err := readCheckpoint(path)
	if err != nil {
		return err
	}
	if h.Config != t.Model.Config {
		return paramErr("checkpoint DiT config", fmt.Sprintf("%+v", h.Config), fmt.Sprintf("equal to the trainer's %+v", t.Model.Config))
	}
	if h.Objective != t.Config.Objective.Kind.String() {
		return paramErr("checkpoint objective", h.Objective, t.Config.Objective.Kind.String()+" (the trainer's)")
	}
	if err := restoreVariables(t.Model, h, payload); err != nil {
		return fmt.Errorf("eqflib: checkpoint %s: %w", path, err)
	}
	if err := t.pcg.UnmarshalBinary(h.RNG); err != nil {
		return fmt.Errorf("eqflib: checkpoint %s: data RNG: %w", path, err)
	}
	t.Step, t.History, t.Seconds = h.Step, h.History, h.Seconds
	return nil
}

// LoadEMA loads a checkpoint (a file, or the newest in a folder) for sampling: its EMA weights,
// with h_ω attached (at the width the checkpoint stored) when the checkpoint holds one; readout
// set makes a checkpoint without one an error (closed-loop sampling needs it). It also returns
// the file it read.
func LoadEMA(path string, readout bool) (*DiT, string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		p := LatestCheckpoint(path)
		if p == "" {
			return nil, "", fmt.Errorf("eqflib: no checkpoint in %s", path)
		}
		path = p
	}
	live, err := LoadDiT(path)
	if err != nil {
		return nil, "", err
	}
	m, err := live.EMA()
	if err != nil {
		return nil, "", err
	}
	if readout || m.storesReadout() {
		if err := m.AttachReadout(0); err != nil {
			return nil, "", fmt.Errorf("%s: closed-loop sampling needs h_ω: %w", path, err)
		}
	}
	return m, path, nil
}

// LoadDiT builds a DiT from a checkpoint, for sampling and finetuning: its live weights, with
// the EMA ones available through DiT.EMA().
func LoadDiT(path string) (d *DiT, err error) {
	defer catch(&err)
	h, payload, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	dt := dtypes.Float32
	if h.DType == dtypes.Float64.String() {
		dt = dtypes.Float64
	}
	// The header's configuration sizes the model built before its weights are read: a file
	// whose configuration needs more bytes than it carries is refused before any allocation.
	if err := h.Config.Validate(); err != nil {
		return nil, fmt.Errorf("eqflib: checkpoint %s: %w", path, err)
	}
	c := h.Config
	hid, pp := float64(c.Hidden), float64(c.Channels*c.Patch)*float64(c.Patch)
	weights := 2*pp*hid + float64(c.Depth)*(4*hid*hid+2*hid*c.MLPRatio*hid) // patch embedding, head and blocks: a lower bound, in float64 (no overflow)
	if need := weights * float64(dt.Size()); need > float64(len(payload)) {
		return nil, fmt.Errorf("eqflib: checkpoint %s: its DiT configuration needs %.0f bytes of weights, the file holds %d", path, need, len(payload))
	}
	if d, err = NewDiT(h.Config, h.NoiseConditional, 0, dt); err != nil {
		return nil, err
	}
	d.Diffusion = h.Objective == Diffusion.String()
	if err := restoreVariables(d, h, payload); err != nil {
		return nil, fmt.Errorf("eqflib: checkpoint %s: %w", path, err)
	}
	return d, nil
}

func restoreVariables(d *DiT, h *ckptHeader, payload []byte) error {
	return restoreStore(d.Store, h, payload)
}

func restoreStore(store *model.Store, h *ckptHeader, payload []byte) error {
	for _, cv := range h.Variables {
		t, err := tensorFromBytes(cv, payload[cv.Offset:cv.Offset+cv.Bytes])
		if err != nil {
			return fmt.Errorf("variable %s: %w", cv.Path, err)
		}
		// Reloaded variables come back trainable in GoMLX: the saved flags are restored (the
		// RNG state and optimiser moments must not be optimised).
		if err := setVariable(store, cv.Path, t, cv.Trainable); err != nil {
			return err
		}
	}
	return nil
}

func tensorBytes(t *tensors.Tensor) ([]byte, error) {
	var buf bytes.Buffer
	switch t.DType() {
	case dtypes.Float32:
		v, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			binary.Write(&buf, binary.LittleEndian, math.Float32bits(x))
		}
	case dtypes.Float64:
		v, err := tensors.CopyFlatData[float64](t)
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			binary.Write(&buf, binary.LittleEndian, math.Float64bits(x))
		}
	case dtypes.Uint64:
		v, err := tensors.CopyFlatData[uint64](t)
		if err != nil {
			return nil, err
		}
		binary.Write(&buf, binary.LittleEndian, v)
	default:
		return nil, fmt.Errorf("dtype %s is not checkpointed", t.DType())
	}
	return buf.Bytes(), nil
}

func tensorFromBytes(cv ckptVar, b []byte) (*tensors.Tensor, error) {
	n := 1
	for _, d := range cv.Shape {
		if d < 0 || (d > 0 && n > len(b)/d) {
			return nil, fmt.Errorf("shape %v does not fit its %d bytes", cv.Shape, len(b))
		}
		n *= d
	}
	dims := cv.Shape
	if len(dims) == 0 {
		dims = nil
	}
	switch {
	case strings.EqualFold(cv.DType, dtypes.Float32.String()) && len(b) == 4*n:
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	case strings.EqualFold(cv.DType, dtypes.Float64.String()) && len(b) == 8*n:
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	case strings.EqualFold(cv.DType, dtypes.Uint64.String()) && len(b) == 8*n:
		v := make([]uint64, n)
		for i := range v {
			v[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	}
	return nil, fmt.Errorf("dtype %s with %d bytes for shape %v is not loadable", cv.DType, len(b), cv.Shape)
}
