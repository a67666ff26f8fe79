package eqflib

import (
	"os"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
)

// Mixed precision on XLA. The paper trains and samples in bfloat16 with float32 master weights
// (App. D); eqf does the same on the XLA backend when $EQF_PRECISION is "bfloat16": the DiT's
// matrix products and attention take bfloat16 operands (attention then runs through cuDNN's
// fused kernel on CUDA, never materialising the scores), while its variables, optimiser state,
// LayerNorms, residual stream, modulations, loss and the sampler's arithmetic stay float32.
// The pure-Go backend computes in float32 only; asking it for bfloat16 is an error, returned
// by Backend. docs/gpu.md has the measurements.

// PrecisionEnv is the environment variable that selects the DiT's arithmetic: "float32"
// (DefaultPrecision) or "bfloat16" (XLA only).
const PrecisionEnv = "EQF_PRECISION"

// Precision names the arithmetic of the DiT's matrix products and attention.
type Precision string

// The precisions eqf computes in.
const (
	Float32  Precision = "float32"
	BFloat16 Precision = "bfloat16"
)

// DefaultPrecision is the precision when $EQF_PRECISION is unset or empty.
const DefaultPrecision = Float32

var (
	precisionOnce sync.Once
	precisionVal  Precision
	precisionErr  error
)

// CurrentPrecision is the process-wide precision, read once from $EQF_PRECISION.
func CurrentPrecision() (Precision, error) {
	precisionOnce.Do(func() { precisionVal, precisionErr = parsePrecision(os.Getenv(PrecisionEnv)) })
	return precisionVal, precisionErr
}

func parsePrecision(s string) (Precision, error) {
	switch Precision(s) {
	case "":
		return DefaultPrecision, nil
	case Float32, BFloat16:
		return Precision(s), nil
	}
	return "", paramErr("$"+PrecisionEnv, s, `"float32" or "bfloat16" (bfloat16 only with the XLA backend)`)
}

// checkPrecision returns an error when precision p cannot run on backend b (bfloat16 on the
// pure-Go backend).
func checkPrecision(p Precision, b compute.Backend) error {
	if p == BFloat16 && isGoBackend(b) {
		return paramErr("$"+PrecisionEnv, string(p), `"float32" on the pure-Go backend (bfloat16 needs the XLA backend: `+
			"a `-tags xla` build with $GOMLX_BACKEND=xla:cuda; docs/gpu.md)")
	}
	return nil
}

// halfPrecision reports whether graph g computes the DiT's products in bfloat16: the process
// asked for it and g is not on the pure-Go backend.
func halfPrecision(g *Graph) bool {
	p, err := CurrentPrecision()
	return err == nil && p == BFloat16 && !isGoBackend(g.Backend())
}

// inHalf runs f on bfloat16 copies of its operands and returns its result in dtype dt.
func inHalf(dt dtypes.DType, f func(...*Node) *Node, xs ...*Node) *Node {
	hs := make([]*Node, len(xs))
	for i, x := range xs {
		hs[i] = ConvertDType(x, dtypes.BFloat16)
	}
	return ConvertDType(f(hs...), dt)
}
