package repl

import (
	"go/ast"
	"go/types"
	"strings"
)

// min and max. yaegi v0.16.1 lacks Go 1.21's builtins min, max and clear. Where go/types knows
// the type of a call of min or max with two or more arguments, the session runs it as a call of
// its own generic two-argument functions, folded from the left and given that type:
// max(a, b, c) of float64s runs as __max[float64](__max[float64](a, b), c), which is Go's
// result (a NaN argument makes it NaN) but for the sign of a zero: yaegi passes -0.0 to a
// function as 0.0 (TestKnownYaegiGaps), so min(0.0, -0.0) reads 0 where Go's is -0. A constant
// call takes the type its context gives it (var f float64 = max(3, 7): float64). Elsewhere (a
// type go/types is not told, one argument, clear) yaegi's error stays, said with what to write
// instead (diagnose.go).

// minMaxHelpers declares the functions min and max run as, in every session.
const minMaxHelpers = `type __ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}
func __min[T __ordered](a, b T) T {
	if a != a || b == b && a <= b { // a NaN a, or a not above b
		return a
	}
	return b
}
func __max[T __ordered](a, b T) T {
	if a != a || b == b && a >= b {
		return a
	}
	return b
}`

// minMaxInserts are the texts that run each call of the builtin min or max in the input with two
// or more arguments whose type go/types gives (info) and write can write, as the session's
// functions above.
func minMaxInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 || call.Ellipsis.IsValid() {
			return true
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok || id.Name != "min" && id.Name != "max" {
			return true
		}
		if _, builtin := info.Uses[id].(*types.Builtin); !builtin {
			return true // the session's own min or max
		}
		tv, ok := info.Types[call]
		if !ok || tv.Type == nil {
			return true
		}
		typ, writable := write(types.Default(tv.Type))
		from, _, inside := in.span(call)
		if !writable || !inside {
			return true
		}
		fn := "__" + id.Name + "[" + typ + "]"
		inserts = append(inserts, insert{from, strings.Repeat(fn+"(", len(call.Args)-2) + "__"}, insert{in.offset(id.End()), "[" + typ + "]"})
		for _, a := range call.Args[1 : len(call.Args)-1] {
			inserts = append(inserts, insert{in.offset(a.End()), ")"})
		}
		return true
	})
	return inserts
}
