package eqflib

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

func TestPrecisionSetting(t *testing.T) {
	for _, s := range []string{"", "float32", "bfloat16"} {
		if _, err := parsePrecision(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"bf16", "float16", "Float32"} {
		_, err := parsePrecision(s)
		if err == nil || !strings.Contains(err.Error(), "$"+PrecisionEnv) || !strings.Contains(err.Error(), `"bfloat16"`) {
			t.Errorf("%q: got %v, want an error naming $%s and the allowed values", s, err, PrecisionEnv)
		}
	}
	gb, err := newGoBackend("")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPrecision(BFloat16, gb); err == nil || !strings.Contains(err.Error(), "XLA") {
		t.Errorf("bfloat16 on the Go backend: got %v, want an error that says it needs XLA", err)
	}
	if err := checkPrecision(Float32, gb); err != nil {
		t.Errorf("float32 on the Go backend: %v", err)
	}
}

// On the pure-Go backend the DiT computes in float32 whatever the process asked for: a graph
// built while the precision says bfloat16 gives the same output bit for bit.
func TestPrecisionGoBackendStaysFloat32(t *testing.T) {
	cfg := DiTPresets["tiny"]
	x, _ := Randn(NewRNG(3), 1, 2, cfg.Channels, cfg.Height, cfg.Width)
	var weights map[string][]float64
	eval := func(p Precision) []float64 {
		_, _ = CurrentPrecision()
		old := precisionVal
		precisionVal = p
		defer func() { precisionVal = old }()
		d, err := NewDiT(cfg, false, 1, dtypes.Float32)
		if err != nil {
			t.Fatal(err)
		}
		f := d.WithConditions(make([]float64, 2*cfg.CondDim))
		if _, err := f.Eval(x, nil, EvalOptions{}); err != nil {
			t.Fatal(err)
		}
		if weights == nil {
			weights = randomWeights(d, NewRNG(5))
		}
		setWeights(t, d, weights)
		out, err := f.Eval(x, nil, EvalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return out.V.Data
	}
	a, b := eval(Float32), eval(BFloat16)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("output %d: %v in float32, %v with bfloat16 asked for on the Go backend", i, a[i], b[i])
		}
	}
}

// randomWeights draws a value for every backbone weight: N(0, 1/fan-in) for matrices, N(0, 0.02²)
// for vectors. Unlike the initialisation (zero AdaLN and head), every output then depends on
// every weight, so the comparison sees the whole network.
func randomWeights(d *DiT, rng interface{ NormFloat64() float64 }) map[string][]float64 {
	out := map[string][]float64{}
	for v := range d.Store.IterVariables() {
		if !strings.HasPrefix(v.Path(), "/dit/") || !v.DType().IsFloat() {
			continue
		}
		dims := v.Shape().Dimensions
		std := 0.02
		if len(dims) == 2 {
			std = 1 / math.Sqrt(float64(dims[0]))
		}
		w := make([]float64, v.Shape().Size())
		for i := range w {
			w[i] = std * rng.NormFloat64()
		}
		out[v.Path()] = w
	}
	return out
}

func setWeights(t *testing.T, d *DiT, w map[string][]float64) {
	t.Helper()
	for path, vals := range w {
		v := d.Store.GetVariable(path)
		if v == nil {
			t.Fatalf("no variable %s", path)
		}
		if err := setVariable(d.Store, path, toTensorAs(d.DType, vals, v.Shape().Dimensions...), true); err != nil {
			t.Fatal(err)
		}
	}
}
