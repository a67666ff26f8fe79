package repl

import (
	"go/ast"
	"go/token"
	"strings"
)

// Loop variables. Since Go 1.22 each iteration of a for loop has its own variables (a range
// loop's, and those a three-clause loop's init declares), so a function literal or a pointer
// made in the body keeps that iteration's value. yaegi v0.16.1 has Go 1.21's loops: one variable
// for all iterations, so after
//
//	for i := 0; i < 3; i++ { fs = append(fs, func() int { return i }) }
//
// fs[0]() read 3 where Go gives 0, and `for _, v := range xs { ps = append(ps, &v) }` made three
// pointers to the last element. The session declares such a variable again at the start of the
// body (i := i), which is Go 1.22's loop where the body does not change the variable: always in
// a range loop (its variables are set from the range at each iteration), and in a three-clause
// loop whose body neither assigns nor increments it (the post statement would not see a change
// made to the copy). A three-clause loop whose body changes its variable and captures it is run
// as yaegi runs it; in one whose body changes it through a pointer it took, the change stays in
// the iteration's copy, where Go 1.22 carries it into the next iteration. A function literal
// deferred in a loop reads the last iteration's variables whatever the session does: yaegi
// defers it so, even for a variable the body declares (TestKnownYaegiGaps).

// loopVarInserts are the declarations (i := i) put at the start of each loop body of the input
// that captures its loop's variables, one per variable captured: read in a function literal, its
// address taken, or a method of it called by go or defer; nothing for a variable the body
// declares again at its top level, or, in a three-clause loop, one it assigns.
func loopVarInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		var vars []ast.Expr
		var body *ast.BlockStmt
		threeClause := false
		switch l := n.(type) {
		case *ast.RangeStmt:
			if l.Tok != token.DEFINE {
				return true
			}
			vars, body = []ast.Expr{l.Key, l.Value}, l.Body
		case *ast.ForStmt:
			as, isAssign := l.Init.(*ast.AssignStmt)
			if !isAssign || as.Tok != token.DEFINE {
				return true
			}
			vars, body, threeClause = as.Lhs, l.Body, true
		default:
			return true
		}
		var names []string
		for _, v := range vars {
			id, isIdent := v.(*ast.Ident)
			if !isIdent || id.Name == "_" || !captured(body, id.Name) || redeclared(body, id.Name) || threeClause && assigned(body, id.Name) {
				continue
			}
			names = append(names, id.Name)
		}
		if len(names) > 0 {
			list := strings.Join(names, ", ")
			inserts = append(inserts, insert{in.offset(body.Lbrace) + 1, " " + list + " := " + list + ";"})
		}
		return true
	})
	return inserts
}

// rootName is the variable an expression is part of (v in v.X, v[0], (v)), or "".
func rootName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		default:
			return ""
		}
	}
}

// captured reports whether body may keep name beyond the iteration: a function literal reads it,
// its address is taken, or go or defer calls a method of it (which may take its address).
func captured(body *ast.BlockStmt, name string) (found bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			ast.Inspect(x.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && id.Name == name {
					found = true
				}
				return !found
			})
		case *ast.UnaryExpr:
			found = found || x.Op == token.AND && rootName(x.X) == name
		case *ast.GoStmt:
			if sel, ok := x.Call.Fun.(*ast.SelectorExpr); ok && rootName(sel.X) == name {
				found = true
			}
		case *ast.DeferStmt:
			if sel, ok := x.Call.Fun.(*ast.SelectorExpr); ok && rootName(sel.X) == name {
				found = true
			}
		}
		return !found
	})
	return found
}

// assigned reports whether body (function literals in it too) assigns name or increments it.
func assigned(body *ast.BlockStmt, name string) (found bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					found = found || rootName(l) == name
				}
			}
		case *ast.IncDecStmt:
			found = found || rootName(x.X) == name
		}
		return !found
	})
	return found
}

// redeclared reports whether body declares name at its top level (v := v * 2, var v T): a second
// declaration there of the copy the session puts in would not compile.
func redeclared(body *ast.BlockStmt, name string) bool {
	for _, st := range body.List {
		switch x := st.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == name {
						return true
					}
				}
			}
		case *ast.DeclStmt:
			if gd, ok := x.Decl.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if vs, ok := sp.(*ast.ValueSpec); ok {
						for _, id := range vs.Names {
							if id.Name == name {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}
