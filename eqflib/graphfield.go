package eqflib

import (
	"fmt"
	"sync/atomic"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
)

// GraphFieldFn builds a field inside a graph: x is [B, T, C, H, W], level is [B, T]; it returns
// v̂ (x's shape) and, for fields with a readout, σ̂ [B, T] (nil otherwise).
type GraphFieldFn func(x, level *Node) (v, sigmaHat *Node)

// GraphField adapts a graph function to the Field interface. The graph is compiled once per
// input shape by a single executor and reused on every Eval: windows and levels are inputs,
// never constants, so a sampler's steps never recompile.
type GraphField struct {
	info     FieldInfo
	dtype    dtypes.DType
	exec     *Exec
	compiles atomic.Int64
}

// NewGraphField compiles fn lazily on the compute backend. dtype is the graph's float type
// (Float32 for models, Float64 for reference checks). info.HasReadout must match whether fn
// returns σ̂.
func NewGraphField(info FieldInfo, dtype dtypes.DType, fn GraphFieldFn) (gf *GraphField, err error) {
	defer catch(&err)
	if fn == nil {
		return nil, paramErr("fn", "nil", "a GraphFieldFn")
	}
	if dtype != dtypes.Float32 && dtype != dtypes.Float64 {
		return nil, paramErr("dtype", dtype, "Float32 or Float64")
	}
	backend, err := Backend()
	if err != nil {
		return nil, err
	}
	gf = &GraphField{info: info, dtype: dtype}
	gf.exec, err = NewExec(backend, func(x, level *Node) []*Node {
		gf.compiles.Add(1)
		v, s := fn(x, level)
		if v == nil {
			panic(fmt.Errorf("GraphFieldFn returned a nil velocity"))
		}
		if (s != nil) != info.HasReadout {
			panic(fmt.Errorf("GraphFieldFn returned σ̂ = %v but FieldInfo.HasReadout = %v", s != nil, info.HasReadout))
		}
		if s == nil {
			return []*Node{v}
		}
		return []*Node{v, s}
	})
	if err != nil {
		return nil, err
	}
	return gf, nil
}

// Info implements Field.
func (g *GraphField) Info() FieldInfo { return g.info }

// Compiles reports how many graphs the executor has built (one per distinct input shape).
func (g *GraphField) Compiles() int { return int(g.compiles.Load()) }

// Eval implements Field. A nil level (noise-unconditional use) feeds zeros.
func (g *GraphField) Eval(x *Window, level []float64, opts EvalOptions) (out *Output, err error) {
	defer catch(&err)
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if level == nil {
		level = make([]float64, x.NumFrames())
	}
	if err := perFrame("level", x, level); err != nil {
		return nil, err
	}
	if opts.Readout && !g.info.HasReadout {
		return nil, paramErr("EvalOptions.Readout", true, "false: "+g.info.Name+" has no readout")
	}
	if opts.Activations {
		return nil, paramErr("EvalOptions.Activations", true, "false: a GraphField returns no activations")
	}
	B, T := x.Shape[0], x.Shape[1]
	outs, err := callToHost(g.exec.Call, g.dtype, toTensorAs(g.dtype, x.Data, x.Shape[:]...), toTensorAs(g.dtype, level, B, T))
	if err != nil {
		return nil, err
	}
	out = &Output{V: &Window{Shape: x.Shape, Data: outs[0]}}
	if opts.Readout {
		out.SigmaHat = outs[1]
	}
	return out, nil
}
