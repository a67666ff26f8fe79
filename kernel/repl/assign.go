package repl

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Composite literals and calls among several values. yaegi v0.16.1 zeroes the other variables
// of an assignment of several values one of which is a composite literal: after
// `x, xs := 2.5, []int{4, 9}` x read 0 (in a function too, and for =, var and struct, map and
// array literals), while `x, xs := 2.5, ([]int{4, 9})` is right. In an assignment with = (not
// := or var), a call among the values does the same or leaves the others as they were: after
// `i, b = 5, p.Norm()` i kept its value, `x, err = 2.5, errors.New("w")` left x 0, `xs[0], xs[1]
// = xs[1], math.Sqrt(xs[0])` made [1 1] of [1 2] (Go: [2 1]), and `x, v = 2, f()` of an
// interface result panicked ("reflect.Set: value of type interface {} is not assignable to type
// interp.valueInterface"); a call in parentheses is right. The session puts such a literal or
// call in parentheses.

// compositeInserts are the parentheses around each composite literal that is one of several
// values of an assignment or a var declaration in the input, and around each call that is one
// of several values of an assignment with =.
func compositeInserts(in typed) (inserts []insert) {
	wrap := func(values []ast.Expr, calls bool) {
		if len(values) < 2 {
			return
		}
		for _, v := range values {
			switch v.(type) {
			case *ast.CompositeLit:
			case *ast.CallExpr:
				if !calls {
					continue
				}
			default:
				continue
			}
			inserts = append(inserts, insert{in.offset(v.Pos()), "("}, insert{in.offset(v.End()), ")"})
		}
	}
	ast.Inspect(in.root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			wrap(x.Rhs, x.Tok == token.ASSIGN)
		case *ast.ValueSpec:
			wrap(x.Values, false)
		}
		return true
	})
	return inserts
}

// Interfaces and nil among several values. In an assignment with = of several values, yaegi
// v0.16.1 panics where one of the variables is of an interface type and its value is not a
// constant (`a, b = 3, m["k"]` of a map[string]any, `a, b = 2, f()` of a function returning any:
// "reflect.Set: value of type interface {} is not assignable to type interp.valueInterface"),
// and where a value is nil (`r, err = -1.5, nil`, `p, n = nil, 0`: "reflect: New(nil)"). The
// values returned by a function literal of the variables' types are right (`a, b = func() (int,
// any) { return 3, m["k"] }()`, which evaluates the values before it assigns any, as Go does):
// where go/types knows every variable's type, the session runs such an assignment so.

// interfaceAssignInserts are the texts that run each such assignment in the input as the
// results of a function literal, from go/types' types (info); write writes them.
func interfaceAssignInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		results, needed := make([]string, len(as.Lhs)), false
		for i, lhs := range as.Lhs {
			t := info.TypeOf(lhs)
			if id, blank := lhs.(*ast.Ident); blank && id.Name == "_" {
				t = types.Default(info.TypeOf(as.Rhs[i]))
			}
			if t == nil || t == types.Typ[types.Invalid] {
				return true
			}
			w, writable := write(t)
			if !writable {
				return true
			}
			results[i] = w
			id, isIdent := unparen(as.Rhs[i]).(*ast.Ident)
			needed = needed || types.IsInterface(t) && info.Types[as.Rhs[i]].Value == nil || isIdent && id.Name == "nil" && info.Types[as.Rhs[i]].IsNil()
		}
		from, end := in.offset(as.TokPos)+len("="), in.offset(as.Rhs[len(as.Rhs)-1].End())
		if !needed || from < 0 || end > len(in.src) {
			return true
		}
		inserts = append(inserts, insert{from, " func() (" + strings.Join(results, ", ") + ") { return "}, insert{end, " }()"})
		return true
	})
	return inserts
}

// Generic calls in var declarations. yaegi v0.16.1 gives a variable declared at top level with
// a type and a call of a generic function of constant arguments its zero value (var f float64
// = first([]float64{5}) read 0; var g float64 = max(3, 7), once the session runs max, too), and
// panics on one without a type (var z = first(xs): "nil reflect type"). The session runs such a
// declaration as the lines that declare the same (varAsAssignments: var f float64, then f = …;
// z := …), which yaegi gets right.

// callsGeneric reports whether a value the input declares calls what may be a generic function:
// one of generics (the session's), min or max, an explicit instantiation (f[T](…)), or a
// function of slices, maps or cmp.
func callsGeneric(in typed, generics map[string][]string) (found bool) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		vs, isSpec := n.(*ast.ValueSpec)
		if !isSpec {
			return !found
		}
		for _, v := range vs.Values {
			ast.Inspect(v, func(m ast.Node) bool {
				c, isCall := m.(*ast.CallExpr)
				if !isCall {
					return !found
				}
				switch fn := c.Fun.(type) {
				case *ast.Ident:
					found = found || generics[fn.Name] != nil || fn.Name == "min" || fn.Name == "max"
				case *ast.IndexExpr, *ast.IndexListExpr:
					found = true
				case *ast.SelectorExpr:
					if pkg, ok := fn.X.(*ast.Ident); ok && (pkg.Name == "slices" || pkg.Name == "maps" || pkg.Name == "cmp") {
						found = true
					}
				}
				return !found
			})
		}
		return !found
	})
	return found
}
