package repl

import (
	"go/ast"
	"go/types"
)

// Deferred calls' arguments. Go evaluates the arguments of a deferred call at the defer
// statement; yaegi v0.16.1 keeps a reference to where each value is held and reads it when the
// call runs: `i := 1; defer fmt.Println(i); i = 2` printed 2 (Go: 1), `for j := 0; j < 3; j++ {
// defer show(j) }` showed 3 3 3 (Go: 2 1 0; with j+0, 2 2 2, a temporary the loop writes again),
// `defer fmt.Println(x[0]); x[0] = 5` printed 5, and a function literal's arguments, `defer
// func(a int) {…}(j)`, were read late alike. A composite literal is made anew each time it is
// evaluated, so where go/types knows an argument's type the session passes it as the element of
// one, []T{arg}[0], which holds the value the statement had. Constants are left as typed, and so
// are the variables a deferred function literal captures (a closure reads its variables when it
// runs in Go too; one deferred in a loop reads the last iteration's in yaegi) and the receiver of
// a deferred method call: yaegi evaluates the whole function value when the call runs, so
// `defer a.report()` of a value receiver then a.n = 2 reports 2 (Go: the n of a at the defer
// statement), whatever the receiver is written as (both pinned in TestKnownYaegiGaps). An
// argument ifacecopy.go converts to an interface is held by that conversion (in a composite
// literal of its own type, []Num{v}[0], given to a parameter of type Node, it made yaegi
// panic: "reflect.Set: value of type interp.valueInterface is not assignable to type float64").

// deferInserts are the texts that hold each argument of each deferred call in the input as it
// is at the defer statement, from go/types' types (info); write writes them. The texts that open
// ([]T{) go before, and those that close (}[0]) after, what other rewrites put at the same place,
// which they enclose.
func deferInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (opens, closes []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		d, ok := n.(*ast.DeferStmt)
		if !ok {
			return true
		}
		sig, _ := info.TypeOf(d.Call.Fun).(*types.Signature)
		_, compiled := compiledCallee(info, d.Call)
		for i, arg := range d.Call.Args {
			tv, known := info.Types[arg]
			if !known || tv.Value != nil || tv.IsNil() || !tv.IsValue() || tv.Type == nil {
				continue
			}
			if sig != nil && !compiled && copied(info, arg, paramType(sig, i)) {
				continue // converted in a function literal, which holds it (ifacecopy.go)
			}
			if b, basic := tv.Type.(*types.Basic); basic && (b.Info()&types.IsUntyped != 0 || b.Kind() == types.Invalid) {
				continue
			}
			w, writable := write(tv.Type)
			if from, end, inside := in.span(arg); writable && inside {
				opens, closes = append(opens, insert{from, "[]" + w + "{"}), append(closes, insert{end, "}[0]"})
			}
		}
		return true
	})
	return opens, closes
}
