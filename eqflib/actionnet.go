package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// The action-recognition network whose penultimate layer is the "maze-I3D" feature space of
// FVD (the offline analogue of I3D, which is an action-recognition network too). It reads a
// clip [B, T, C, H, W], embeds every frame with a small CNN (odd 3×3 kernels, stride 2, SiLU,
// global average pool), and classifies the action taken between consecutive frames from
// [f_{t−1}, f_t, f_t − f_{t−1}] through one hidden layer: that hidden layer, mean- and
// std-pooled over the clip's transitions, is the clip's feature vector. Outputs are named
// "maze-I3D" — they are not I3D's features and FVDs in them are not comparable to published FVDs.

// DefaultActionHidden is the width of the action net's penultimate layer (features are twice it:
// mean and standard deviation over transitions).
const DefaultActionHidden = 64

// NetConfig describes a non-DiT network stored in a checkpoint.
type NetConfig struct {
	Kind                             string `json:"kind"`
	Channels, Height, Width, Actions int
	Widths                           []int
	Hidden                           int
}

// ActionNet is the maze-I3D feature network.
type ActionNet struct {
	NetConfig
	Store   *model.Store
	DType   dtypes.DType
	Config  ProbeConfig
	Step    int
	History []float64

	feats, logits, train *model.Exec
	rng                  *rand.Rand
}

// NewActionNet builds an untrained action net for frames [C, H, W] and `actions` classes.
func NewActionNet(channels, height, width, actions int, cfg ProbeConfig, seed uint64) (n *ActionNet, err error) {
	defer catch(&err)
	switch {
	case channels < 1 || height < 4 || width < 4:
		return nil, paramErr("frame shape", fmt.Sprintf("[%d, %d, %d]", channels, height, width), "channels ≥ 1, height and width ≥ 4")
	case actions < 2:
		return nil, paramErr("actions", actions, "≥ 2 classes")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n = &ActionNet{NetConfig: NetConfig{Kind: "action-net", Channels: channels, Height: height, Width: width, Actions: actions,
		Widths: []int{16, 32, 32}, Hidden: DefaultActionHidden}, Store: model.NewStore(), DType: dtypes.Float32, Config: cfg}
	if err := n.Store.SetRNGStateFromSeed(int64(seed)); err != nil {
		return nil, err
	}
	return n, n.compile()
}

func (n *ActionNet) compile() error {
	backend, err := Backend()
	if err != nil {
		return err
	}
	n.rng = rand.New(rand.NewPCG(n.Config.Seed, 0xac7))
	if n.feats, err = model.NewExec(backend, n.Store, func(scope *model.Scope, clips *Node) *Node {
		keepVariablesAsParameters(scope, clips.Graph())
		h, _ := n.forward(scope.In("act"), clips) // [B, T−1, Hidden]
		mean := ReduceMean(h, 1)                  // [B, Hidden]
		std := Sqrt(AddScalar(ReduceMean(Square(Sub(h, InsertAxes(mean, 1))), 1), 1e-6))
		return Concatenate([]*Node{mean, std}, -1) // [B, 2·Hidden]
	}); err != nil {
		return err
	}
	if n.logits, err = model.NewExec(backend, n.Store, func(scope *model.Scope, clips *Node) *Node {
		keepVariablesAsParameters(scope, clips.Graph())
		_, l := n.forward(scope.In("act"), clips)
		return l
	}); err != nil {
		return err
	}
	n.train, err = model.NewExec(backend, n.Store, func(scope *model.Scope, clips, onehot *Node) *Node {
		keepVariablesAsParameters(scope, clips.Graph())
		_, l := n.forward(scope.In("act"), clips) // [B, T−1, A]
		logp := LogSoftmax(l, -1)
		loss := Neg(ReduceAllMean(ReduceSum(Mul(onehot, logp), -1))) // cross-entropy
		applyAdamW(scope.Store(), variablesUnder(scope.Store(), "/act/"), loss, optimConfig{LR: n.Config.LR, Warmup: n.Config.Warmup,
			Beta1: DefaultBeta1, Beta2: DefaultBeta2, Eps: DefaultAdamEps, ClipNorm: DefaultClipNorm}, "/act_opt")
		return loss
	})
	return err
}

// forward returns the penultimate activations [B, T−1, Hidden] and the action logits
// [B, T−1, Actions] of the transitions of clips [B, T, C, H, W].
func (n *ActionNet) forward(scope *model.Scope, clips *Node) (hidden, logits *Node) {
	d := clips.Shape().Dimensions
	B, T := d[0], d[1]
	f := Reshape(frameEncoder(scope, Reshape(clips, B*T, d[2], d[3], d[4]), n.Widths), B, T, n.Widths[len(n.Widths)-1]) // [B, T, w]
	prev := Slice(f, AxisRange(), AxisRange(0, T-1), AxisRange())                                                       // [B, T−1, w]
	next := Slice(f, AxisRange(), AxisRange(1, T), AxisRange())                                                         // [B, T−1, w]
	pair := Concatenate([]*Node{prev, next, Sub(next, prev)}, -1)                                                       // [B, T−1, 3w]
	hidden = activation.Swish(dense(scope.In("fc1"), pair, n.Hidden, false))                                            // [B, T−1, Hidden]
	logits = dense(scope.In("fc2"), hidden, n.Actions, false)                                                           // [B, T−1, A]
	return hidden, logits
}

// Train takes `steps` steps on clips of ds whose conditions are one-hot actions (the maze
// world's); the action of frame t (the one that led into it) is the label of transition t−1 → t.
func (n *ActionNet) Train(ds Dataset, steps int) (loss float64, err error) {
	defer catch(&err)
	if err := n.checkData(ds); err != nil {
		return 0, err
	}
	T, _, _, _, _ := ds.Shape()
	for i := 0; i < steps; i++ {
		idx := make([]int, n.Config.Batch)
		for j := range idx {
			idx[j] = n.rng.IntN(ds.Len())
		}
		x, cond, err := LoadBatch(ds, idx)
		if err != nil {
			return 0, err
		}
		B := x.Batch()
		labels := make([]float64, 0, B*(T-1)*n.Actions)
		for b := 0; b < B; b++ {
			labels = append(labels, cond[(b*T+1)*n.Actions:(b*T+T)*n.Actions]...)
		}
		v, err := callFloats(n.train, n.DType, toTensorAs(n.DType, x.Data, x.Shape[:]...), toTensorAs(n.DType, labels, B, T-1, n.Actions))
		if err != nil {
			return 0, err
		}
		loss = v[0]
		n.Step++
		n.History = append(n.History, loss)
	}
	return loss, nil
}

func (n *ActionNet) checkData(ds Dataset) error {
	if ds == nil {
		return paramErr("ds", "nil", "a Dataset")
	}
	T, c, h, w, cd := ds.Shape()
	if c != n.Channels || h != n.Height || w != n.Width {
		return paramErr("ds.Shape", fmt.Sprintf("[T, %d, %d, %d]", c, h, w), fmt.Sprintf("[T, %d, %d, %d] (the action net's frames)", n.Channels, n.Height, n.Width))
	}
	if cd != n.Actions {
		return paramErr("ds conditions", cd, fmt.Sprintf("%d one-hot actions", n.Actions))
	}
	if T < 2 {
		return paramErr("ds frames", T, "≥ 2 (actions are read from transitions)")
	}
	return nil
}

// Accuracy is the fraction of transitions of the first `clips` clips of ds whose action is
// predicted correctly.
func (n *ActionNet) Accuracy(ds Dataset, clips int) (acc float64, err error) {
	defer catch(&err)
	if err := n.checkData(ds); err != nil {
		return 0, err
	}
	right, total := 0, 0
	for start := 0; start < min(clips, ds.Len()); start += 16 {
		idx := []int{}
		for i := start; i < min(start+16, clips, ds.Len()); i++ {
			idx = append(idx, i)
		}
		x, cond, err := LoadBatch(ds, idx)
		if err != nil {
			return 0, err
		}
		r, t, err := n.agree(x, cond)
		if err != nil {
			return 0, err
		}
		for a := range r {
			right, total = right+r[a], total+t[a]
		}
	}
	return float64(right) / float64(total), nil
}

// Predict classifies the action of every transition t−1 → t of clips [B, T, C, H, W]: [B, T−1]
// class indices (0 forward, 1 left, 2 right for the maze), batch-major.
func (n *ActionNet) Predict(clips *Window) (actions []int, err error) {
	defer catch(&err)
	if err := clips.Validate("clips"); err != nil {
		return nil, err
	}
	if clips.Shape[2] != n.Channels || clips.Shape[3] != n.Height || clips.Shape[4] != n.Width || clips.Frames() < 2 {
		return nil, paramErr("clips.Shape", clips.Shape, fmt.Sprintf("[B, T ≥ 2, %d, %d, %d]", n.Channels, n.Height, n.Width))
	}
	B, T := clips.Batch(), clips.Frames()
	for start := 0; start < B; start += 16 { // in batches of 16 clips (bounded memory)
		b := min(16, B-start)
		part := &Window{Shape: [5]int{b, T, n.Channels, n.Height, n.Width}, Data: clips.Data[start*T*clips.FrameSize() : (start+b)*T*clips.FrameSize()]}
		l, err := callFloats(n.logits, n.DType, toTensorAs(n.DType, part.Data, part.Shape[:]...))
		if err != nil {
			return nil, err
		}
		for i := 0; i < b*(T-1); i++ {
			actions = append(actions, argmax(l[i*n.Actions:(i+1)*n.Actions]))
		}
	}
	return actions, nil
}

// agree counts, per true action class, the transitions of clips whose predicted action equals
// the one-hot condition of the frame they lead into (cond [B, T, Actions]) and all transitions.
func (n *ActionNet) agree(clips *Window, cond []float64) (right, total []int, err error) {
	B, T := clips.Batch(), clips.Frames()
	if len(cond) != B*T*n.Actions {
		return nil, nil, paramErr("cond", fmt.Sprintf("len %d", len(cond)), fmt.Sprintf("len %d = B·T·%d one-hot actions", B*T*n.Actions, n.Actions))
	}
	pred, err := n.Predict(clips)
	if err != nil {
		return nil, nil, err
	}
	right, total = make([]int, n.Actions), make([]int, n.Actions)
	for b := 0; b < B; b++ {
		for t := 1; t < T; t++ {
			want := argmax(cond[(b*T+t)*n.Actions : (b*T+t+1)*n.Actions])
			if pred[b*(T-1)+t-1] == want {
				right[want]++
			}
			total[want]++
		}
	}
	return right, total, nil
}

func argmax(v []float64) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

// Name implements FeatureExtractor.
func (n *ActionNet) Name() string { return "maze-I3D" }

// Features implements FeatureExtractor: [B, 2·Hidden] per clip (T ≥ 2 frames).
func (n *ActionNet) Features(clips *Window) (out [][]float64, err error) {
	defer catch(&err)
	if err := clips.Validate("clips"); err != nil {
		return nil, err
	}
	if clips.Shape[2] != n.Channels || clips.Shape[3] != n.Height || clips.Shape[4] != n.Width || clips.Frames() < 2 {
		return nil, paramErr("clips.Shape", clips.Shape, fmt.Sprintf("[B, T ≥ 2, %d, %d, %d]", n.Channels, n.Height, n.Width))
	}
	v, err := callFloats(n.feats, n.DType, toTensorAs(n.DType, clips.Data, clips.Shape[:]...))
	if err != nil {
		return nil, err
	}
	d := 2 * n.Hidden
	for b := 0; b < clips.Batch(); b++ {
		row := v[b*d : (b+1)*d]
		for _, x := range row {
			if math.IsNaN(x) {
				return nil, fmt.Errorf("eqflib: action net features are NaN")
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// Save writes the network atomically (the checkpoint format of checkpoint.go).
func (n *ActionNet) Save(path string) (err error) {
	defer catch(&err)
	cfg := n.NetConfig
	file, err := encodeStore(ckptHeader{Step: n.Step, Objective: "action-net", DType: n.DType.String(), Net: &cfg}, n.Store)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, file)
}

// LoadActionNet reads a network written by Save; a corrupt or truncated file is an error.
func LoadActionNet(path string) (n *ActionNet, err error) {
	defer catch(&err)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("eqflib: action net %s: %w", path, err)
	}
	h, payload, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if h.Net == nil || h.Net.Kind != "action-net" {
		return nil, fmt.Errorf("eqflib: %s is not an action-net checkpoint", path)
	}
	n = &ActionNet{NetConfig: *h.Net, Store: model.NewStore(), DType: dtypes.Float32, Config: DefaultProbeConfig(), Step: h.Step}
	if err := restoreStore(n.Store, h, payload); err != nil {
		return nil, fmt.Errorf("eqflib: %s: %w", path, err)
	}
	return n, n.compile()
}
