// Package eqf holds the small, non-generic helpers that interpreted code (the `eqf repl`, `eqf
// run` scripts, yaegi) needs where GoMLX's API is generic and therefore invisible to yaegi
// (graph.MustNewExec, graph.Scalar, tensors.FromValue, …), plus Show, which writes figures and
// videos into the session folder.
//
// Every function returns an error instead of panicking: GoMLX panics while building graphs are
// caught here and returned, naming the helper.
package eqf

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// DefaultPreview is how many values Describe shows before eliding the rest.
const DefaultPreview = 8

// catch turns a panic into an error naming the helper.
func catch(name string, err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = fmt.Errorf("eqf.%s: %w", name, e)
		} else {
			*err = fmt.Errorf("eqf.%s: %v", name, r)
		}
	}
}

// Backend is eqflib's process-wide backend ($GOMLX_BACKEND, default eqflib.DefaultBackend).
func Backend() (compute.Backend, error) { return eqflib.Backend() }

// Func is a compiled GoMLX computation: build it once with Exec1, Exec2, ExecN or ExecG and
// call it many times; graphs are recompiled only for new input shapes.
type Func struct {
	exec    *graph.Exec
	name    string
	outputs int
}

// Exec1 compiles a one-input, one-output graph function, e.g.
//
//	f, _ := eqf.Exec1(func(x *graph.Node) *graph.Node { return graph.Mul(x, x) })
func Exec1(fn func(x *graph.Node) *graph.Node) (*Func, error) {
	if fn == nil {
		return nil, errors.New("eqf.Exec1: fn is nil")
	}
	return compile("Exec1", 1, 1, false, func(_ *graph.Graph, in []*graph.Node) []*graph.Node {
		return []*graph.Node{fn(in[0])}
	})
}

// Exec2 compiles a two-input, one-output graph function.
func Exec2(fn func(x, y *graph.Node) *graph.Node) (*Func, error) {
	if fn == nil {
		return nil, errors.New("eqf.Exec2: fn is nil")
	}
	return compile("Exec2", 2, 1, false, func(_ *graph.Graph, in []*graph.Node) []*graph.Node {
		return []*graph.Node{fn(in[0], in[1])}
	})
}

// ExecN compiles a graph function of numInputs inputs and numOutputs outputs; fn receives the
// graph (for constants when numInputs is 0) and the inputs, and must return numOutputs nodes.
func ExecN(numInputs, numOutputs int, fn func(g *graph.Graph, inputs []*graph.Node) []*graph.Node) (*Func, error) {
	switch {
	case fn == nil:
		return nil, errors.New("eqf.ExecN: fn is nil")
	case numInputs < 0:
		return nil, fmt.Errorf("eqf.ExecN: numInputs = %d is out of range: must be ≥ 0", numInputs)
	case numOutputs < 1:
		return nil, fmt.Errorf("eqf.ExecN: numOutputs = %d is out of range: must be ≥ 1", numOutputs)
	}
	return compile("ExecN", numInputs, numOutputs, true, func(g *graph.Graph, in []*graph.Node) []*graph.Node {
		out := fn(g, in)
		if len(out) != numOutputs {
			panic(fmt.Errorf("fn returned %d nodes, numOutputs = %d", len(out), numOutputs))
		}
		return out
	})
}

// ExecG compiles a graph function with no inputs (built from constants), e.g.
//
//	f, _ := eqf.ExecG(func(g *graph.Graph) *graph.Node { return graph.Iota(g, shapes.Make(dtypes.Float32, 5), 0) })
func ExecG(fn func(g *graph.Graph) *graph.Node) (*Func, error) {
	if fn == nil {
		return nil, errors.New("eqf.ExecG: fn is nil")
	}
	return compile("ExecG", 0, 1, true, func(g *graph.Graph, _ []*graph.Node) []*graph.Node {
		return []*graph.Node{fn(g)}
	})
}

func compile(name string, numIn, numOut int, withGraph bool, fn func(g *graph.Graph, in []*graph.Node) []*graph.Node) (f *Func, err error) {
	defer catch(name, &err)
	backend, err := eqflib.Backend()
	if err != nil {
		return nil, err
	}
	canon := func(g *graph.Graph, in []*graph.Node) []*graph.Node { return fn(g, in) }
	// The canonical form takes the graph first when inputIsGraph, then the inputs as one slice,
	// and returns the outputs as one slice.
	exec, err := graph.NewExecCanonical(backend, canon, numIn, numOut, true, true, true)
	if err != nil {
		return nil, fmt.Errorf("eqf.%s: %w", name, err)
	}
	return &Func{exec: exec, name: name, outputs: numOut}, nil
}

// Call runs the computation and returns its first output. Arguments may be tensors, Go
// numbers, or (nested) slices of numbers; Go float64 values become float64 tensors, so use
// float32(...) or eqf.Tensor32 for float32.
func (f *Func) Call(args ...any) (*tensors.Tensor, error) {
	outs, err := f.CallAll(args...)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// CallAll runs the computation and returns every output.
func (f *Func) CallAll(args ...any) (outs []*tensors.Tensor, err error) {
	if f == nil || f.exec == nil {
		return nil, errors.New("eqf.Func.Call: the Func is nil (did Exec1/Exec2/ExecN/ExecG return an error?)")
	}
	defer catch(f.name+".Call", &err)
	outs, err = f.exec.Call(args...)
	if err != nil {
		return nil, fmt.Errorf("eqf.%s.Call: %w", f.name, err)
	}
	return outs, nil
}

// Scalar is a float32 constant in g (graph.Scalar is generic).
func Scalar(g *graph.Graph, v float64) *graph.Node { return graph.Const(g, float32(v)) }

// ScalarLike is a constant of x's dtype, ready to combine with x.
func ScalarLike(x *graph.Node, v float64) *graph.Node {
	return graph.ConstAsDType(x.Graph(), x.DType(), v)
}

// Tensor converts a Go value (a number or a nested slice of numbers) to a tensor of the same
// dtype (tensors.FromValue is generic).
func Tensor(value any) (t *tensors.Tensor, err error) {
	defer catch("Tensor", &err)
	return tensors.FromAnyValue(value)
}

// Tensor32 converts numbers or nested slices of numbers of any numeric type to a float32
// tensor, the dtype every eqflib graph uses.
func Tensor32(value any) (t *tensors.Tensor, err error) {
	defer catch("Tensor32", &err)
	v, err := toFloat32(reflect.ValueOf(value))
	if err != nil {
		return nil, err
	}
	return tensors.FromAnyValue(v.Interface())
}

func toFloat32(v reflect.Value) (reflect.Value, error) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return reflect.ValueOf(float32(v.Float())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return reflect.ValueOf(float32(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return reflect.ValueOf(float32(v.Uint())), nil
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			return reflect.Value{}, errors.New("eqf.Tensor32: value has an empty slice; every dimension must be ≥ 1")
		}
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			e, err := toFloat32(v.Index(i))
			if err != nil {
				return reflect.Value{}, err
			}
			if i == 0 {
				out = reflect.MakeSlice(reflect.SliceOf(e.Type()), v.Len(), v.Len())
			}
			out.Index(i).Set(e)
		}
		return out, nil
	case reflect.Interface:
		return toFloat32(v.Elem())
	}
	return reflect.Value{}, fmt.Errorf("eqf.Tensor32: value of type %s: must be a number or a nested slice of numbers", v.Type())
}

// Floats returns a tensor's values, flattened in row-major order, as float64.
func Floats(t *tensors.Tensor) (vals []float64, err error) {
	if t == nil {
		return nil, errors.New("eqf.Floats: t is nil")
	}
	defer catch("Floats", &err)
	flat := reflect.ValueOf(t.Value())
	out := make([]float64, 0, t.Size())
	var walk func(v reflect.Value) error
	walk = func(v reflect.Value) error {
		switch v.Kind() {
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				if err := walk(v.Index(i)); err != nil {
					return err
				}
			}
		case reflect.Float32, reflect.Float64:
			out = append(out, v.Float())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out = append(out, float64(v.Int()))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out = append(out, float64(v.Uint()))
		case reflect.Bool:
			b := 0.0
			if v.Bool() {
				b = 1
			}
			out = append(out, b)
		default:
			return fmt.Errorf("dtype %s has no float value", t.DType())
		}
		return nil
	}
	if err := walk(flat); err != nil {
		return nil, fmt.Errorf("eqf.Floats: %w", err)
	}
	return out, nil
}

// Describe is a one-line summary of a tensor: dtype and shape, the first DefaultPreview values,
// and for floating-point tensors of more than one value their mean, std, min and max, e.g.
//
//	float32[2 3] [1 2 3 4 5 6]  mean 3.5 std 1.708 min 1 max 6
func Describe(t *tensors.Tensor) string {
	if t == nil {
		return "<nil tensor>"
	}
	head := fmt.Sprintf("%s%v", t.DType(), t.Shape().Dimensions)
	if t.Shape().IsScalar() {
		head = t.DType().String()
	}
	vals, err := Floats(t)
	if err != nil {
		return head + " " + fmt.Sprint(t.Value())
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(" [")
	for i, v := range vals {
		if i == DefaultPreview {
			fmt.Fprintf(&b, " … +%d", len(vals)-DefaultPreview)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.4g", v)
	}
	b.WriteByte(']')
	if len(vals) > 1 && (t.DType() == dtypes.Float32 || t.DType() == dtypes.Float64) {
		mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			mean += v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		mean /= float64(len(vals))
		ss := 0.0
		for _, v := range vals {
			ss += (v - mean) * (v - mean)
		}
		fmt.Fprintf(&b, "  mean %.4g std %.4g min %.4g max %.4g", mean, math.Sqrt(ss/float64(len(vals))), lo, hi)
	}
	return b.String()
}

// The session folder Show writes into.
var (
	sessionMu  sync.Mutex
	sessionDir string
	shown      int
)

// SetSessionDir sets the folder Show writes into (created on first Show). The REPL sets it at
// start; scripts may call it.
func SetSessionDir(dir string) {
	sessionMu.Lock()
	defer sessionMu.Unlock()
	sessionDir, shown = dir, 0
}

// SessionDir is the folder Show writes into: the one SetSessionDir set, else $EQF_SESSION_DIR,
// else ./out/repl.
func SessionDir() string {
	sessionMu.Lock()
	defer sessionMu.Unlock()
	return sessionDirLocked()
}

func sessionDirLocked() string {
	switch {
	case sessionDir != "":
		return sessionDir
	case os.Getenv("EQF_SESSION_DIR") != "":
		return os.Getenv("EQF_SESSION_DIR")
	}
	return filepath.Join("out", "repl")
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

func slug(title string) string {
	s := strings.Trim(slugRE.ReplaceAllString(strings.ToLower(title), "-"), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "figure"
	}
	return s
}

// Videos are videos shown together with the options that turn their values into pixels: a
// zoo model's frames are standardised by its data statistics, so a rollout beside its truth is
//
//	eqf.Videos{List: []plots.Video{{Name: "real", Frames: cl.Truth}, {Name: "eqf", Frames: res.Frames}},
//		Options: plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std}}
//
// which the REPL shows as Show does (as notebooks' display.Videos and display.Strip do).
type Videos struct {
	List    []plots.Video
	Options plots.VideoOptions
}

// Show writes x into the session folder and returns the paths written:
//   - *plots.Figure: NNN-title.png (gonum) and NNN-title.html (echarts, offline);
//   - Videos, plots.Video or []plots.Video: NNN-video.png (a strip of every video, labelled
//     rows of frames, the picture a terminal draws), NNN-video.gif (the first video) and
//     NNN-video.html (a player of all of them); plots.Video and []plots.Video take values
//     as pixels in [0, 1] (nil VideoOptions), Videos its Options;
//   - *eqflib.Window: shown as a video of its first batch element, values in [-1, 1].
//
// Files are written atomically; NNN counts up within the session.
func Show(x any) (paths []string, err error) {
	defer catch("Show", &err)
	sessionMu.Lock()
	defer sessionMu.Unlock()
	dir := sessionDirLocked()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("eqf.Show: session folder: %w", err)
	}
	shown++
	prefix := filepath.Join(dir, fmt.Sprintf("%03d-", shown))
	write := func(path string, data []byte, err error) error {
		if err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(path, data); err != nil {
			return err
		}
		paths = append(paths, path)
		return nil
	}
	switch v := x.(type) {
	case *plots.Figure:
		if v == nil {
			return nil, errors.New("eqf.Show: x is a nil *plots.Figure")
		}
		base := prefix + slug(v.Title)
		png, err := v.Bytes("png")
		if err := write(base+".png", png, err); err != nil {
			return paths, fmt.Errorf("eqf.Show: %w", err)
		}
		html, err := v.Bytes("html")
		if err := write(base+".html", html, err); err != nil {
			return paths, fmt.Errorf("eqf.Show: %w (the PNG was written)", err)
		}
	case *eqflib.Window:
		if v == nil {
			return nil, errors.New("eqf.Show: x is a nil *eqflib.Window")
		}
		c := v.Shape[2]
		o := plots.VideoOptions{Mean: make([]float64, c), Std: make([]float64, c)}
		for i := range c {
			o.Mean[i], o.Std[i] = 0.5, 0.5 // eqflib's data range [-1, 1] → pixels [0, 1]
		}
		err = showVideos(prefix, []plots.Video{{Name: "window", Frames: v}}, o, write)
	case plots.Video:
		err = showVideos(prefix, []plots.Video{v}, plots.VideoOptions{}, write)
	case []plots.Video:
		err = showVideos(prefix, v, plots.VideoOptions{}, write)
	case Videos:
		err = showVideos(prefix, v.List, v.Options, write)
	default:
		shown--
		return nil, fmt.Errorf("eqf.Show: x of type %T: must be *plots.Figure, eqf.Videos, plots.Video, []plots.Video or *eqflib.Window", x)
	}
	return paths, err
}

// showVideos writes all the videos as a strip, the first as a GIF and all of them as an HTML
// player.
func showVideos(prefix string, vs []plots.Video, o plots.VideoOptions, write func(string, []byte, error) error) error {
	if len(vs) == 0 {
		return errors.New("eqf.Show: no videos")
	}
	strip, err := plots.StripPNG(vs, o)
	if err := write(prefix+"video.png", strip, err); err != nil {
		return fmt.Errorf("eqf.Show: %w", err)
	}
	gif, err := plots.GIFBytes(vs[0], o)
	if err := write(prefix+"video.gif", gif, err); err != nil {
		return fmt.Errorf("eqf.Show: %w (the strip was written)", err)
	}
	html, err := plots.PlayerHTML(vs[0].Name, vs, o)
	if err := write(prefix+"video.html", html, err); err != nil {
		return fmt.Errorf("eqf.Show: %w (the strip and GIF were written)", err)
	}
	return nil
}
