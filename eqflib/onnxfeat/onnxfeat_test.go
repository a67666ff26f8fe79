package onnxfeat

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"

	"google.golang.org/protobuf/encoding/protowire"
)

// A tiny ONNX writer for the test: just the fields of onnx.proto a video feature network of
// Flatten → MatMul → Add → Relu needs. Field numbers are those of onnx/onnx.proto (IR 8).
type pb []byte

func (m pb) bytes(field protowire.Number, v []byte) pb {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendBytes(m, v)
}
func (m pb) str(field protowire.Number, s string) pb { return m.bytes(field, []byte(s)) }
func (m pb) varint(field protowire.Number, v int64) pb {
	m = protowire.AppendTag(m, field, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

// onnxTensorInfo is a ValueInfoProto for a float tensor; a dimension < 0 is dynamic (named).
func onnxTensorInfo(name string, dims ...int) pb {
	var shape pb
	for i, d := range dims {
		var dim pb
		if d < 0 {
			dim = dim.str(2, "d"+string(rune('0'+i))) // dim_param
		} else {
			dim = dim.varint(1, int64(d)) // dim_value
		}
		shape = shape.bytes(1, dim)
	}
	tensorType := pb(nil).varint(1, 1).bytes(2, shape) // elem_type FLOAT, shape
	typ := pb(nil).bytes(1, tensorType)                // TypeProto.tensor_type
	return pb(nil).str(1, name).bytes(2, typ)
}

func onnxInitializer(name string, v []float32, dims ...int) pb {
	var t pb
	for _, d := range dims {
		t = t.varint(1, int64(d))
	}
	t = t.varint(2, 1) // data_type FLOAT
	var packed []byte
	for _, x := range v {
		packed = protowire.AppendFixed32(packed, math.Float32bits(x))
	}
	return t.bytes(4, packed).str(8, name) // float_data, name
}

func onnxNode(op string, in []string, out string, attrs ...pb) pb {
	var n pb
	for _, s := range in {
		n = n.str(1, s)
	}
	n = n.str(2, out).str(3, op+"_"+out).str(4, op)
	for _, a := range attrs {
		n = n.bytes(5, a)
	}
	return n
}

// writeTestONNX writes features = Relu(Flatten(video) · W + b) with a second output "pre"
// (before the Relu), for video [N, C, T, H, W] where a negative dimension is dynamic.
func writeTestONNX(t testing.TB, dims []int, w []float32, b []float32) string {
	t.Helper()
	in := 1
	for _, d := range dims[1:] {
		in *= d
	}
	F := len(b)
	axis := pb(nil).str(1, "axis").varint(3, 1).varint(20, 2) // name, i, type INT
	g := pb(nil).
		bytes(1, onnxNode("Flatten", []string{"video"}, "flat", axis)).
		bytes(1, onnxNode("MatMul", []string{"flat", "W"}, "mm")).
		bytes(1, onnxNode("Add", []string{"mm", "b"}, "pre")).
		bytes(1, onnxNode("Relu", []string{"pre"}, "features")).
		str(2, "toy-video-net").
		bytes(5, onnxInitializer("W", w, in, F)).
		bytes(5, onnxInitializer("b", b, F)).
		bytes(11, onnxTensorInfo("video", dims...)).
		bytes(12, onnxTensorInfo("features", -1, F)).
		bytes(12, onnxTensorInfo("pre", -1, F))
	opset := pb(nil).str(1, "").varint(2, 13)
	m := pb(nil).varint(1, 8).str(2, "eqflib-test").bytes(7, g).bytes(8, opset)
	path := filepath.Join(t.TempDir(), "toy.onnx")
	if err := os.WriteFile(path, m, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestONNXFeatures loads a video network from an ONNX file built here and checks its features
// against a float64 evaluation of the same network, for both layouts, the scale/shift, the
// resize, the output choice, and the errors a user meets.
func TestONNXFeatures(t *testing.T) {
	const B, T, C, H, W, F = 3, 4, 2, 4, 4, 5
	in := C * T * H * W
	rng := eqflib.NewRNG(7)
	w := make([]float32, in*F)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.1)
	}
	bias := []float32{0.1, -0.2, 0.05, 0, 0.3}
	clips, _ := eqflib.Randn(rng, B, T, C, H, W)

	// want evaluates the network in float64 on clips laid out as the model sees them.
	want := func(x *eqflib.Window, layout string, scale, shift float64, relu bool) [][]float64 {
		_, Tx, Cx, Hx, Wx := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4]
		out := make([][]float64, B)
		for b := 0; b < B; b++ {
			flat := make([]float64, 0, in)
			outer, inner := Cx, Tx
			if layout == LayoutBTCHW {
				outer, inner = Tx, Cx
			}
			for o := 0; o < outer; o++ {
				for i := 0; i < inner; i++ {
					tt, c := i, o
					if layout == LayoutBTCHW {
						tt, c = o, i
					}
					for p := 0; p < Hx*Wx; p++ {
						flat = append(flat, scale*x.Data[(((b*Tx+tt)*Cx+c)*Hx*Wx)+p]+shift)
					}
				}
			}
			row := make([]float64, F)
			for f := 0; f < F; f++ {
				s := float64(bias[f])
				for k, v := range flat {
					s += v * float64(w[k*F+f])
				}
				if relu {
					s = math.Max(s, 0)
				}
				row[f] = s
			}
			out[b] = row
		}
		return out
	}
	check := func(name string, got, ref [][]float64) {
		t.Helper()
		if len(got) != len(ref) {
			t.Fatalf("%s: %d clips, want %d", name, len(got), len(ref))
		}
		positive := 0
		for b := range ref {
			if len(got[b]) != F {
				t.Fatalf("%s: clip %d has %d features, want %d", name, b, len(got[b]), F)
			}
			for f := range ref[b] {
				if math.Abs(got[b][f]-ref[b][f]) > 1e-4*(1+math.Abs(ref[b][f])) {
					t.Fatalf("%s: features[%d][%d] = %.6f, float64 reference %.6f", name, b, f, got[b][f], ref[b][f])
				}
				if ref[b][f] > 0 {
					positive++
				}
			}
		}
		if positive == 0 {
			t.Fatalf("%s: every reference feature is 0; the test would not see a wrong network", name)
		}
	}

	dyn := writeTestONNX(t, []int{-1, C, T, H, W}, w, bias)
	fe, err := Load(dyn, Options{Name: "toy-ONNX"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := fe.Features(clips)
	if err != nil {
		t.Fatal(err)
	}
	check("BCTHW", got, want(clips, LayoutBCTHW, 1, 0, true))

	// Scale/shift and the pre-Relu output.
	fe2, err := Load(dyn, Options{Name: "toy-ONNX-pre", Output: "pre", Scale: 0.5, Shift: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = fe2.Features(clips); err != nil {
		t.Fatal(err)
	}
	check("pre, scaled", got, want(clips, LayoutBCTHW, 0.5, 0.25, false))

	// eqflib's own layout: the model's input is [N, T, C, H, W].
	btchw := writeTestONNX(t, []int{-1, T, C, H, W}, w, bias)
	fe3, err := Load(btchw, Options{Name: "toy-ONNX", Layout: LayoutBTCHW})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = fe3.Features(clips); err != nil {
		t.Fatal(err)
	}
	check("BTCHW", got, want(clips, LayoutBTCHW, 1, 0, true))

	// Resizing 8×8 frames to 4×4: bilinear with half-pixel centres at exactly half size is the
	// mean of each 2×2 block.
	big, _ := eqflib.Randn(rng, B, T, C, 2*H, 2*W)
	small := eqflib.MustNewWindow(B, T, C, H, W)
	for i := range small.Data {
		x, y := i%W, (i/W)%H
		frame := i / (H * W)
		at := func(yy, xx int) float64 { return big.Data[frame*4*H*W+yy*2*W+xx] }
		small.Data[i] = (at(2*y, 2*x) + at(2*y, 2*x+1) + at(2*y+1, 2*x) + at(2*y+1, 2*x+1)) / 4
	}
	fe4, err := Load(dyn, Options{Name: "toy-ONNX", Size: H})
	if err != nil {
		t.Fatal(err)
	}
	if got, err = fe4.Features(big); err != nil {
		t.Fatal(err)
	}
	check("resized", got, want(small, LayoutBCTHW, 1, 0, true))

	// FVD carries the extractor's name, and equal sets are at distance ~0.
	fvd, err := eqflib.ComputeFVD(fe, clips, clips)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fvd.String(), "toy-ONNX") || math.Abs(fvd.Value) > 1e-6 {
		t.Fatalf("FVD of a set with itself: %v", fvd)
	}

	// Errors name the parameter.
	var pe *eqflib.ParamError
	if _, err := fe.Features(eqflib.MustNewWindow(1, T+1, C, H, W)); err == nil {
		t.Fatal("a clip of the wrong length was accepted by a model with fixed T")
	} else if !errors.As(err, &pe) || pe.Param != "clips.Shape" {
		t.Fatalf("wrong-length clip: %v, want a ParamError on clips.Shape", err)
	}
	for _, bad := range []struct {
		opts  Options
		param string
	}{
		{Options{}, "Options.Name"},
		{Options{Name: "x", Layout: "NHWC"}, "Options.Layout"},
		{Options{Name: "x", Input: "frames"}, "Options.Input"},
		{Options{Name: "x", Size: -1}, "Options.Size"},
	} {
		if _, err := Load(dyn, bad.opts); !errors.As(err, &pe) || pe.Param != bad.param {
			t.Errorf("Load(%+v) = %v, want a ParamError on %s", bad.opts, err, bad.param)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.onnx"), Options{Name: "x"}); err == nil {
		t.Error("a missing file was accepted")
	}
	garbage := filepath.Join(t.TempDir(), "garbage.onnx")
	if err := os.WriteFile(garbage, []byte("not a protobuf\xff\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(garbage, Options{Name: "x"}); err == nil {
		t.Error("a corrupt file was accepted")
	}
	if _, err := (&Extractor{}).Features(nil); err == nil {
		t.Error("nil clips were accepted")
	}
}

// FuzzLoad feeds hostile ONNX files to Load (and a loaded model one clip): an error, never a
// panic. `go test -fuzz FuzzLoad ./eqflib/onnxfeat/` runs it; `go test` replays the seeds.
func FuzzLoad(f *testing.F) {
	const C, T, H, W, F = 1, 2, 2, 2, 3
	w := make([]float32, C*T*H*W*F)
	for i := range w {
		w[i] = float32(i%5) * 0.1
	}
	good, err := os.ReadFile(writeTestONNX(f, []int{-1, C, T, H, W}, w, []float32{0.1, 0, -0.1}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("not a protobuf\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "m.onnx")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := Load(path, Options{Name: "fuzz"})
		if err != nil {
			return
		}
		e.Features(eqflib.MustNewWindow(1, T, C, H, W))
	})
}
