package repl

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/symbols/eqf"
	"github.com/gomlx/gomlx/core/tensors"
)

// DefaultMaxPrint is the longest value the REPL prints before cutting it (in bytes).
const DefaultMaxPrint = 2000

// DefaultSlicePreview is how many elements of a long slice are printed.
const DefaultSlicePreview = 10

// Format is how the REPL prints a value:
//   - tensors: dtype, shape, the first values and their statistics (eqf.Describe);
//   - figures and videos: written to the session folder (eqf.Show), the paths printed;
//   - windows: shape and statistics; warps by name;
//   - long slices: the first DefaultSlicePreview elements and the length;
//   - errors as "error: …"; Stringers by String(); everything else with %v, cut at
//     DefaultMaxPrint bytes.
func (s *Session) Format(x any) string {
	switch v := x.(type) {
	case nil:
		return "<nil>"
	case *tensors.Tensor:
		return eqf.Describe(v)
	case *plots.Figure, plots.Video, []plots.Video:
		if f, ok := v.(*plots.Figure); ok && f == nil {
			return "<nil figure>"
		}
		paths, err := eqf.Show(v)
		if err != nil {
			return "error: " + err.Error()
		}
		return "wrote " + strings.Join(paths, ", ")
	case *eqflib.Window:
		if v == nil {
			return "<nil window>"
		}
		return describeWindow(v)
	case error:
		return "error: " + v.Error()
	case eqflib.Warp:
		return "warp " + v.Name()
	case fmt.Stringer:
		return cut(safeString(v))
	}
	rv := reflect.ValueOf(x)
	if (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Len() > DefaultSlicePreview {
		var b strings.Builder
		b.WriteString("[")
		for i := 0; i < DefaultSlicePreview; i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%v", rv.Index(i).Interface())
		}
		fmt.Fprintf(&b, " …] (len %d)", rv.Len())
		return cut(b.String())
	}
	return cut(fmt.Sprintf("%v", x))
}

func safeString(v fmt.Stringer) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("%#v", v)
		}
	}()
	return v.String()
}

func cut(s string) string {
	if len(s) <= DefaultMaxPrint {
		return s
	}
	return s[:DefaultMaxPrint] + fmt.Sprintf(" … (%d bytes)", len(s))
}

func describeWindow(w *eqflib.Window) string {
	n := len(w.Data)
	if n == 0 {
		return fmt.Sprintf("Window%v (empty)", w.Shape)
	}
	mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
	for _, v := range w.Data {
		mean += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	mean /= float64(n)
	ss := 0.0
	for _, v := range w.Data {
		ss += (v - mean) * (v - mean)
	}
	return fmt.Sprintf("Window[B T C H W]=%v  mean %.4g std %.4g min %.4g max %.4g", w.Shape, mean, math.Sqrt(ss/float64(n)), lo, hi)
}
