package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// Named results. Go starts a function's named results at their zero values on every call;
// yaegi v0.16.1 starts them at whatever the place the call's result goes to held before: the
// callee's result is the caller's slot (a temporary of the call, reused each time the call runs,
// or the variable x of x = f()). A function that accumulates into its named results read the
// previous call's values: func inc(n int) (k int) { k += n; return } gave 1 2 3 for inc(1)
// called three times in a loop (Go 1 1 1), and x := inc(1); x = inc(1) made x 2; notebook 01's
// v-loss summed into a named result came out 1.98 under eqf run where Go gives 0.80 (the sum of
// two calls'); an error result tested before it was set read the last call's, and a result
// named _ returned by a bare return the last call's value. The session sets each named result
// to its zero value where the function's body starts (namedResultInserts). For x = f() the
// result is x itself while f runs, so a function that reads x (a global, or a variable its
// closure captured) read its own result's value there: g = peek() of func peek() (k int) { k =
// 7; fmt.Println(g); return } printed 7 (Go: g's value before, 1), and would read zero once the
// results start at zero; such a call, where f's results are named, is put in parentheses, which
// yaegi gives a slot of its own (namedResultCallInserts).

// namedResultInserts are the texts that set each named result of a function or function literal
// the input declares to its zero value where its body starts, on the same line as its brace. A
// result named _ is named __eqfI_J_ (its field I, its name J there) to be set.
func namedResultInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		var ft *ast.FuncType
		var body *ast.BlockStmt
		switch f := n.(type) {
		case *ast.FuncDecl:
			ft, body = f.Type, f.Body
		case *ast.FuncLit:
			ft, body = f.Type, f.Body
		default:
			return true
		}
		if body == nil || ft.Results == nil {
			return true
		}
		var zero strings.Builder
		for i, r := range ft.Results.List {
			for j, name := range r.Names {
				set := name.Name
				if set == "_" { // named so that it can be set: _ becomes __eqfI_J_ (its place)
					at, _, inside := in.span(name)
					if !inside {
						return true
					}
					blank := "__eqf" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
					inserts, set = append(inserts, insert{at, blank}), blank+"_"
				}
				// (ExprString writes the type on one line, so no line moves)
				zero.WriteString(set + " = *new(" + types.ExprString(r.Type) + "); ")
			}
		}
		if at, _, inside := in.span(body); inside && zero.Len() > 0 {
			inserts = append(inserts, insert{at + 1, " " + zero.String()})
		}
		return true
	})
	return inserts
}

// namedResultCallInserts are the parentheses that put each call of a function with named
// results assigned alone with = (x = f()) in a slot of its own. yaegi gives the call x's slot
// only where x is not an interface, so those stay as they are.
func namedResultCallInserts(in typed, info *types.Info, _ func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return true
		}
		call, isCall := as.Rhs[0].(*ast.CallExpr)
		if !isCall || callResult(info, call) == nil {
			return true
		}
		if dest := info.TypeOf(as.Lhs[0]); dest == nil || types.IsInterface(dest) { // (_ = f() has none)
			return true
		}
		sig, isSig := info.TypeOf(call.Fun).Underlying().(*types.Signature)
		if !isSig || sig.Results().Len() != 1 || sig.Results().At(0).Name() == "" {
			return true
		}
		if from, end, inside := in.span(call); inside {
			inserts = append(inserts, insert{from, "("}, insert{end, ")"})
		}
		return true
	})
	return inserts
}
