package repl

import "go/ast"

// Composite literals among several values. yaegi v0.16.1 zeroes the other variables of an
// assignment of several values one of which is a composite literal: after
// `x, xs := 2.5, []int{4, 9}` x read 0 (in a function too, and for =, var and struct, map and
// array literals), while `x, xs := 2.5, ([]int{4, 9})` is right. The session puts such a literal
// in parentheses.

// compositeInserts are the parentheses around each composite literal that is one of several
// values of an assignment or a var declaration in the input.
func compositeInserts(in typed) (inserts []insert) {
	wrap := func(values []ast.Expr) {
		if len(values) < 2 {
			return
		}
		for _, v := range values {
			if lit, isLit := v.(*ast.CompositeLit); isLit {
				inserts = append(inserts, insert{in.offset(lit.Pos()), "("}, insert{in.offset(lit.End()), ")"})
			}
		}
	}
	ast.Inspect(in.root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			wrap(x.Rhs)
		case *ast.ValueSpec:
			wrap(x.Values)
		}
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
