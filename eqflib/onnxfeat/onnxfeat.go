// Package onnxfeat computes FVD features with any ONNX video network: the way to compute FVD in
// the real I3D feature space (export the I3D network you trust to ONNX once, e.g. with
// torch.onnx.export, and load it here), or in any other video network's. The graph is converted
// to GoMLX by github.com/gomlx/onnx-gomlx and runs on eqflib's backend; no ONNX Runtime or
// Python is needed. Ops that onnx-gomlx does not convert are reported when Features first
// builds the graph.
//
// It is a package of its own so that importing eqflib (every notebook cell, the REPL) does not
// compile onnx-gomlx and protobuf.
package onnxfeat

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/onnx-gomlx/onnx"
	"github.com/gomlx/onnx-gomlx/onnx/parser"
)

// Clip layouts an ONNX video model may expect.
const (
	LayoutBCTHW = "BCTHW" // channels before time: I3D and most PyTorch video networks
	LayoutBTCHW = "BTCHW" // eqflib's own layout
)

// Options says how clips are fed to an ONNX video model.
type Options struct {
	// Name labels the features in every output, e.g. "I3D-Kinetics400". Required: FVDs are only
	// comparable within one feature space, so the space must be named.
	Name string
	// Input is the name of the graph input that receives the clips; "" means the model's only
	// input.
	Input string
	// Output is the graph output used as the features (flattened per clip); "" means the
	// model's first output. For I3D, export the pre-logits (pooled) layer.
	Output string
	// Layout is LayoutBCTHW (default) or LayoutBTCHW.
	Layout string
	// Size, when > 0, bilinearly resizes every frame to Size×Size before the model (I3D: 224).
	Size int
	// Scale and Shift map eqflib's pixel range [−1, 1] to the model's: x' = Scale·x + Shift.
	// Scale 0 means 1 (I3D expects [−1, 1], the identity).
	Scale, Shift float64
}

// Extractor is an eqflib.FeatureExtractor backed by an ONNX graph.
type Extractor struct {
	opts   Options
	m      onnx.Model
	store  *model.Store
	input  string
	output string
	dtype  dtypes.DType
	dims   []int // the input's dimensions as declared by the model; −1 where dynamic
	exec   *model.Exec
}

// Load reads an ONNX video model from path.
func Load(path string, opts Options) (f *Extractor, err error) {
	defer catch(&err)
	if strings.TrimSpace(opts.Name) == "" {
		return nil, paramErr("Options.Name", `""`, `a name for the feature space, e.g. "I3D-Kinetics400"`)
	}
	if opts.Layout == "" {
		opts.Layout = LayoutBCTHW
	}
	if opts.Layout != LayoutBCTHW && opts.Layout != LayoutBTCHW {
		return nil, paramErr("Options.Layout", opts.Layout, LayoutBCTHW+" or "+LayoutBTCHW)
	}
	if opts.Size < 0 {
		return nil, paramErr("Options.Size", opts.Size, "≥ 0 (0 keeps the frames' size)")
	}
	if opts.Scale == 0 {
		opts.Scale = 1
	}
	if math.IsNaN(opts.Scale) || math.IsInf(opts.Scale, 0) || math.IsNaN(opts.Shift) || math.IsInf(opts.Shift, 0) {
		return nil, paramErr("Options.Scale/Shift", fmt.Sprint(opts.Scale, opts.Shift), "finite numbers")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("onnxfeat: ONNX model %s: %w", path, err)
	}
	m, err := parser.ParseFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnxfeat: ONNX model %s: %w", path, err)
	}
	f = &Extractor{opts: opts, m: m, store: model.NewStore()}
	names, shapes := m.Inputs()
	switch {
	case opts.Input == "" && len(names) != 1:
		return nil, paramErr("Options.Input", `""`, "one of the model's inputs "+fmt.Sprint(names)+" (it has more than one)")
	case opts.Input == "":
		f.input = names[0]
	default:
		f.input = opts.Input
	}
	i := slices.Index(names, f.input)
	if i < 0 {
		return nil, paramErr("Options.Input", opts.Input, "one of the model's inputs "+fmt.Sprint(names))
	}
	if shapes[i].Rank() != 5 {
		return nil, fmt.Errorf("onnxfeat: ONNX input %q has shape %s; a video model takes a rank-5 clip tensor", f.input, shapes[i])
	}
	f.dtype, f.dims = shapes[i].DType, shapes[i].Dimensions
	if !f.dtype.IsFloat() {
		return nil, fmt.Errorf("onnxfeat: ONNX input %q is %s; a video model takes floating-point pixels", f.input, f.dtype)
	}
	outs, _ := m.Outputs()
	switch {
	case opts.Output == "":
		if len(outs) == 0 {
			return nil, fmt.Errorf("onnxfeat: ONNX model %s has no outputs", path)
		}
		f.output = outs[0]
	default:
		f.output = opts.Output // intermediate values may be named too; checked when the graph is built
	}
	if err := m.VariablesToScope(f.store.RootScope()); err != nil {
		return nil, fmt.Errorf("onnxfeat: ONNX model %s: %w", path, err)
	}
	backend, err := eqflib.Backend()
	if err != nil {
		return nil, err
	}
	f.exec, err = model.NewExec(backend, f.store, func(scope *model.Scope, clips *Node) *Node {
		x := f.prepare(clips)
		y := f.m.CallGraph(scope, x.Graph(), map[string]*Node{f.input: x}, f.output)[0]
		return ConvertDType(Reshape(y, y.Shape().Dimensions[0], -1), dtypes.Float64) // [B, F]
	})
	return f, err
}

// prepare maps clips [B, T, C, H, W] (float32) to the model's input: scaled, resized, laid out
// and converted to the model's dtype.
func (f *Extractor) prepare(clips *Node) *Node {
	x := clips // [B, T, C, H, W]
	if f.opts.Scale != 1 || f.opts.Shift != 0 {
		x = AddScalar(MulScalar(x, f.opts.Scale), f.opts.Shift)
	}
	if s := f.opts.Size; s > 0 {
		x = Interpolate(x, -1, -1, -1, s, s).Bilinear().Done() // [B, T, C, s, s]
	}
	if f.opts.Layout == LayoutBCTHW {
		x = TransposeAllDims(x, 0, 2, 1, 3, 4) // [B, C, T, H, W]
	}
	return ConvertDType(x, f.dtype)
}

// Name implements FeatureExtractor: the name given in Options.
func (f *Extractor) Name() string { return f.opts.Name }

// Features implements FeatureExtractor: the chosen output, flattened per clip.
func (f *Extractor) Features(clips *eqflib.Window) (out [][]float64, err error) {
	defer catch(&err)
	if err := clips.Validate("clips"); err != nil {
		return nil, err
	}
	want := f.modelShape(clips)
	for i, d := range f.dims {
		if d > 0 && d != want[i] {
			return nil, paramErr("clips.Shape", clips.Shape, fmt.Sprintf("clips the ONNX input %q accepts: %s %v (−1 = any), got %v after layout and resizing", f.input, f.opts.Layout, f.dims, want))
		}
	}
	in := make([]float32, len(clips.Data))
	for i, x := range clips.Data {
		in[i] = float32(x)
	}
	outs, err := f.exec.Call(tensors.FromFlatDataAndDimensions(in, clips.Shape[:]...))
	if err != nil {
		return nil, err
	}
	v, err := tensors.CopyFlatData[float64](outs[0])
	if err != nil {
		return nil, err
	}
	B := clips.Batch()
	d := len(v) / B
	for b := 0; b < B; b++ {
		row := v[b*d : (b+1)*d]
		for _, x := range row {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("onnxfeat: ONNX features %q are not finite", f.opts.Name)
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// modelShape is the shape the model sees for clips: laid out and resized.
func (f *Extractor) modelShape(clips *eqflib.Window) []int {
	B, T, C, H, W := clips.Shape[0], clips.Shape[1], clips.Shape[2], clips.Shape[3], clips.Shape[4]
	if f.opts.Size > 0 {
		H, W = f.opts.Size, f.opts.Size
	}
	if f.opts.Layout == LayoutBCTHW {
		return []int{B, C, T, H, W}
	}
	return []int{B, T, C, H, W}
}

func paramErr(param string, value any, allowed string) error {
	return &eqflib.ParamError{Param: param, Value: value, Allowed: allowed}
}

// catch turns a panic of GoMLX (or onnx-gomlx) into an error.
func catch(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = fmt.Errorf("onnxfeat: %w", e)
		} else {
			*err = fmt.Errorf("onnxfeat: %v", r)
		}
	}
}
