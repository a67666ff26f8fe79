package repl

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/paper"
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
//   - figures and videos (eqf.Videos with their pixel options): written to the session folder
//     (eqf.Show), the paths printed and the first PNG drawn where the terminal can;
//   - windows: shape and statistics (inside structs too); warps by name;
//   - an experiment's *paper.Result: its table beside the paper's and notes (Markdown), saved
//     with its figures into the session folder as `eqf paper` saves it;
//   - errors as "error: …"; Stringers by String();
//   - a package's struct without exported fields by its type and methods (opaqueValue);
//   - everything else by formatValue: structs with field names (inside maps too), long slices
//     and maps cut to their first DefaultSlicePreview elements, functions by signature; cut at
//     DefaultMaxPrint bytes.
func (s *Session) Format(x any) string {
	switch v := x.(type) {
	case nil:
		return "<nil>"
	case *tensors.Tensor:
		return eqf.Describe(v)
	case *plots.Figure, eqf.Videos, plots.Video, []plots.Video:
		if f, ok := v.(*plots.Figure); ok && f == nil {
			return "<nil figure>"
		}
		paths, err := eqf.Show(v)
		if err != nil {
			return "error: " + err.Error()
		}
		return "wrote " + strings.Join(paths, ", ") + clampNote(v) + s.drawInline(paths)
	case *eqflib.Window:
		if v == nil {
			return "<nil window>"
		}
		return describeWindow(v)
	case *paper.Result:
		if v == nil {
			return "<nil result>"
		}
		return s.showResult(v)
	case error:
		return "error: " + v.Error()
	case eqflib.Warp:
		return "warp " + v.Name()
	case fmt.Stringer:
		return cut(safeString(v))
	}
	if opaque := s.opaqueValue(reflect.ValueOf(x)); opaque != "" {
		return opaque
	}
	return cut(formatValue(reflect.ValueOf(x), 0))
}

// clampedShare is the share of a video's values clamped to black or full colour above which the
// REPL says so: a model's frames shown with their data's statistics clamp a few per cent where
// they overshoot; standardised frames shown without them, a third or more.
const clampedShare = 0.05

// clampNote says, after a video is written, when many of its values showed clamped: "" for a
// figure or a video whose values map into [0, 1].
func clampNote(x any) string {
	var vs []plots.Video
	var o plots.VideoOptions
	switch v := x.(type) {
	case plots.Video:
		vs = []plots.Video{v}
	case []plots.Video:
		vs = v
	case eqf.Videos:
		vs, o = v.List, v.Options
	}
	frac, lo, hi := plots.Clamped(vs, o)
	if frac <= clampedShare {
		return ""
	}
	if o.Mean == nil && o.Std == nil {
		return fmt.Sprintf("\nnote: %.0f %% of the values lie outside [0, 1] (%.3g to %.3g) and show clamped. A model's frames are standardised "+
			"by its data's statistics: show them with those, eqf.Videos{List: …, Options: plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std}}", 100*frac, lo, hi)
	}
	return fmt.Sprintf("\nnote: %.0f %% of the values map outside [0, 1] with these Mean and Std and show clamped: "+
		"are they the statistics of the data the frames were standardised with (the model's Stats)?", 100*frac)
}

// opaqueValue is how a value of a package's struct type without exported fields prints (a
// world, a model's parts: all of it implementation state, which would print as &{}): its type
// and methods, and the :doc that describes them where the session imports its package; "" for
// any other value (and for yaegi's own wrappers, which formatValue opens).
func (s *Session) opaqueValue(v reflect.Value) string {
	t := v.Type()
	st, amp := t, ""
	if st.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		st, amp = st.Elem(), "&"
	}
	if st.Kind() != reflect.Struct || st.Name() == "" || st.PkgPath() == "" || st.NumField() == 0 ||
		strings.HasPrefix(st.PkgPath(), "github.com/traefik/yaegi/") {
		return ""
	}
	for i := range st.NumField() {
		if st.Field(i).IsExported() {
			return ""
		}
	}
	out := amp + st.String() + "{…}"
	if _, methods := members(t); len(methods) > 0 {
		out += " with methods " + list(methods)
	}
	pkg, _, _ := strings.Cut(st.String(), ".")
	s.mu.Lock()
	imported := s.imports[pkg] == st.PkgPath()
	s.mu.Unlock()
	if imported {
		out += " (:doc " + st.String() + ")"
	}
	return out
}

// showResult is r's Markdown (title, numbers beside the paper's, notes) without blank lines,
// after saving r into <session folder>/<experiment> (results.md, results.json, the figures as
// PNG and HTML), its first PNG (as results.md orders them) drawn where the terminal can.
func (s *Session) showResult(r *paper.Result) string {
	dir := filepath.Join(eqf.SessionDir(), r.Name)
	if err := r.Save(dir); err != nil {
		return "error: " + err.Error()
	}
	var pngs []string // the figures, then the PNG files, in name order, as results.md shows them
	for _, stem := range slices.Sorted(maps.Keys(r.Figures)) {
		pngs = append(pngs, filepath.Join(dir, stem+".png"))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		if strings.HasSuffix(name, ".png") {
			pngs = append(pngs, filepath.Join(dir, name))
		}
	}
	// Markdown without its heading and blank lines reads as well in a terminal.
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", r.Name)
	for line := range strings.Lines(strings.TrimPrefix(r.Markdown(), "# "+r.Name+"\n")) {
		if strings.TrimSpace(line) != "" {
			b.WriteString(line)
		}
	}
	return b.String() + "saved in " + dir + " (results.md, results.json, the figures as PNG and HTML)" + s.drawInline(pngs)
}

// drawInline is the first PNG of paths drawn in the terminal after a newline, where the
// terminal can (Options.InlineImages), else "".
func (s *Session) drawInline(paths []string) string {
	if s.inline == "" {
		return ""
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".png") {
			if b, err := os.ReadFile(p); err == nil {
				return "\n" + strings.TrimSuffix(inlineImage(s.inline, b), "\n")
			}
		}
	}
	return ""
}

// formatValue prints v as a researcher reads it: structs with their field names ({Depth:2 …}),
// nested; pointers to structs as &{…}; slices, arrays and maps longer than DefaultSlicePreview
// cut to their first elements and length (maps in fmt's key order, their values formatted as
// these); functions by signature; a Stringer inside by its String(); unexported fields left out.
func formatValue(v reflect.Value, depth int) string {
	if !v.IsValid() {
		return "<nil>"
	}
	if inner, ok := yaegiInterface(v); ok {
		return formatValue(inner, depth)
	}
	if depth > 0 && v.CanInterface() {
		switch x := v.Interface().(type) {
		case *eqflib.Window: // a rollout's frames inside a result: their shape and statistics
			if x != nil {
				return describeWindow(x)
			}
		case error:
			return x.Error()
		case fmt.Stringer:
			if v.Kind() != reflect.Pointer || !v.IsNil() {
				return safeString(x)
			}
		}
	}
	if depth > 6 {
		return "…"
	}
	switch v.Kind() {
	case reflect.Func:
		if v.IsNil() {
			return "<nil " + v.Type().String() + ">"
		}
		return v.Type().String()
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{")
		t := v.Type()
		first := true
		interpreted := t.Name() == "" // a struct the session declared (or an unnamed one)
		for i := range v.NumField() {
			if !t.Field(i).IsExported() {
				continue // implementation state, not what the value means
			}
			if !first {
				b.WriteString(" ")
			}
			first = false
			name := t.Field(i).Name
			if interpreted {
				name = unexported(name) // (the interpreter's Xtags is the session's tags)
			}
			b.WriteString(name + ":")
			b.WriteString(formatValue(v.Field(i), depth+1))
		}
		b.WriteString("}")
		return b.String()
	case reflect.Pointer:
		if v.IsNil() {
			return "<nil>"
		}
		if v.Elem().Kind() == reflect.Struct {
			return "&" + formatValue(v.Elem(), depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return "<nil>"
		}
		return formatValue(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "[]"
		}
		n := v.Len()
		show := min(n, DefaultSlicePreview)
		parts := make([]string, show)
		for i := range show {
			parts[i] = formatValue(v.Index(i), depth+1)
		}
		if n > show {
			return "[" + strings.Join(parts, " ") + fmt.Sprintf(" …] (len %d)", n)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Map:
		if v.IsNil() {
			return "map[]"
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
		show := min(len(keys), DefaultSlicePreview)
		parts := make([]string, show)
		for i, k := range keys[:show] {
			parts[i] = formatValue(k, depth+1) + ":" + formatValue(v.MapIndex(k), depth+1)
		}
		if len(keys) > show {
			return "map[" + strings.Join(parts, " ") + fmt.Sprintf(" …] (len %d)", len(keys))
		}
		return "map[" + strings.Join(parts, " ") + "]"
	}
	if v.CanInterface() {
		return fmt.Sprintf("%v", v.Interface())
	}
	return fmt.Sprintf("%v", v)
}

// keyLess orders map keys as fmt prints them: numbers by value, strings and booleans in their
// order (false first), anything else by its printed form.
func keyLess(a, b reflect.Value) bool {
	if a.Kind() == b.Kind() {
		switch a.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return a.Int() < b.Int()
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return a.Uint() < b.Uint()
		case reflect.Float32, reflect.Float64:
			return a.Float() < b.Float()
		case reflect.String:
			return a.String() < b.String()
		case reflect.Bool:
			return !a.Bool() && b.Bool()
		}
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

// yaegiInterface returns the value inside yaegi's interface wrapper: interpreted code holding a
// value of a session type with methods in an interface (var b any = o) hands Go an
// interp.valueInterface, whose fields are unexported ({node *node; value reflect.Value}), so it
// printed {}. The value inside prints with its fields; its methods stay with the interpreter.
// A yaegi whose wrapper is laid out otherwise gives ok = false (TestCorpus then fails).
func yaegiInterface(v reflect.Value) (inner reflect.Value, ok bool) {
	t := v.Type()
	if v.Kind() != reflect.Struct || t.PkgPath() != "github.com/traefik/yaegi/interp" || t.Name() != "valueInterface" {
		return v, false
	}
	f, found := t.FieldByName("value")
	if !found || f.Type != reflect.TypeFor[reflect.Value]() {
		return v, false
	}
	addressable := reflect.New(t).Elem()
	addressable.Set(v)
	inner = *(*reflect.Value)(unsafe.Pointer(addressable.FieldByIndex(f.Index).UnsafeAddr()))
	return inner, inner.IsValid()
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
