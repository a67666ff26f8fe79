package eqflib

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/gomlx/compute/dtypes"
)

// shiftField is a conditioned field with a known answer: v̂(x | c) = x + Σc.
type shiftField struct{ cond []float64 }

func (f shiftField) Info() FieldInfo                     { return FieldInfo{Name: "shift"} }
func (f shiftField) WithConditions(cond []float64) Field { return shiftField{cond} }
func (f shiftField) Eval(x *Window, _ []float64, _ EvalOptions) (*Output, error) {
	s := 0.0
	for _, c := range f.cond {
		s += c
	}
	v := x.Clone()
	for i := range v.Data {
		v.Data[i] += s
	}
	return &Output{V: v}, nil
}

// Guidance is v̂(∅) + w·(v̂(c) − v̂(∅)) with ∅ = zeros; bad input is named.
func TestGuide(t *testing.T) {
	x, _ := Randn(NewRNG(1), 2, 3, 1, 2, 2)
	cond := []float64{1, 0, 0, 0, 1, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0}
	s := 0.0
	for _, c := range cond {
		s += c
	}
	for _, w := range []float64{0, 1, 2.5} {
		g, err := Guide(shiftField{}, w)
		if err != nil {
			t.Fatal(err)
		}
		out, err := g.(Conditioner).WithConditions(cond).Eval(x, nil, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range out.V.Data {
			if want := x.Data[i] + w*s; math.Abs(v-want) > 1e-12 {
				t.Fatalf("w = %g: v̂[%d] = %v, want x + w·Σc = %v", w, i, v, want)
			}
		}
	}
	g, _ := Guide(shiftField{}, 2)
	_, err := g.Eval(x, nil, EvalOptions{})
	assertParamErr(t, "unbound conditions", err, "cond")
	_, err = Guide(shiftField{}, -1)
	assertParamErr(t, "w = −1", err, "w")
	_, err = Guide(shiftField{}, math.NaN())
	assertParamErr(t, "w = NaN", err, "w")
	_, _, fm, _ := gaussianOracles(t, 2)
	_, err = Guide(fm, 2)
	assertParamErr(t, "a field without conditions", err, "f")
	cfg := DiTPresets["tiny"]
	cfg.CondDim = 0 // a DiT trained without actions (the shapes world, latents) has none to guide on
	m, err := NewDiT(cfg, false, 1, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Guide(m, 2)
	assertParamErr(t, "a DiT without conditions", err, "f")
}

// Through Roll, guidance evaluates each window under its conditions and under zeros; at w = 1 on
// a field that ignores its conditions the rollout is f's own, bit for bit.
func TestGuideRoll(t *testing.T) {
	fm, ctx, opts := slideRoll(t, func(i int) float64 { return float64(i + 1) }) // no zero condition
	var seen [][]float64
	f := condField{fm, &seen}
	plain, err := Roll(f, ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Guide(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen = nil
	guided, err := Roll(g, ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range guided.Frames.Data {
		if v != plain.Frames.Data[i] {
			t.Fatalf("w = 1: frame value %d = %v, want the unguided rollout's %v", i, v, plain.Frames.Data[i])
		}
	}
	if len(seen) != 2*guided.NFE {
		t.Fatalf("%d evaluations of f for %d guided steps, want two per step", len(seen), guided.NFE)
	}
	for i := 0; i < len(seen); i += 2 {
		for j := range seen[i] {
			if seen[i][j] == 0 || seen[i+1][j] != 0 {
				t.Fatalf("evaluation pair %d: conditions %v then %v, want the window's then zeros", i/2, seen[i], seen[i+1])
			}
		}
	}
}

// CondDropout zeroes whole windows' conditions in training batches, about the given share of
// them, and never in validation batches; 0 leaves every training batch as it was.
func TestCondDropout(t *testing.T) {
	cfg := DiTPresets["tiny"]
	m, err := NewDiT(cfg, false, 3, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	train, val, err := data.NewWorldSplits(data.NewMaze(data.DefaultMazeConfig()), 4, cfg.Height, cfg.Width, 64, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := NewObjective(EqF)
	tc := DefaultTrainConfig(obj)
	tc.Batch = 8
	// dropped counts the windows whose conditions are all zero in n batches.
	dropped := func(p float64, training bool) (k, n int) {
		tc.CondDropout = p
		tr, err := NewTrainer(m, train, val, tc)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 50; i++ {
			_, _, _, _, cond, err := tr.batch(train, rng, training)
			if err != nil {
				t.Fatal(err)
			}
			w := len(cond) / tc.Batch
			for b := 0; b < tc.Batch; b++ {
				zero := true
				for _, c := range cond[b*w : (b+1)*w] {
					zero = zero && c == 0
				}
				if zero {
					k++
				}
				n++
			}
		}
		return k, n
	}
	if k, n := dropped(0, true); k != 0 {
		t.Errorf("CondDropout 0: %d of %d training windows without conditions", k, n)
	}
	if k, n := dropped(0.3, true); math.Abs(float64(k)/float64(n)-0.3) > 0.08 {
		t.Errorf("CondDropout 0.3: %d of %d training windows dropped, want about 30 %%", k, n)
	}
	if k, n := dropped(0.3, false); k != 0 {
		t.Errorf("CondDropout 0.3: %d of %d validation windows dropped, want none", k, n)
	}
	tc.CondDropout = 1
	_, err = NewTrainer(m, train, val, tc)
	assertParamErr(t, "CondDropout 1", err, "TrainConfig.CondDropout")
}
