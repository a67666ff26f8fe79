package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
)

// yaegi v0.16.1 cannot compile some top-level short variable declarations whose right side
// indexes a map (or reads a field of such an element):
//
//	c := eqflib.DiTPresets["tiny"]       → "constant definition loop"
//	d, ok := eqflib.DiTPresets["tiny"]   → panic "nil type"
//	p := eqflib.DiTPresets["tiny"].Depth → panic (nil pointer) in its compiler
//	s := Map[int, string](xs, f)         → "not a generic type" (a session's generic function
//	                                        given its type arguments)
//	it := slices.Values(xs)              → panic "interface conversion: reflect.Type is nil" (a
//	                                        generic function's result of a function type)
//
// while `var c eqflib.DiTConfig; c = …` works. When a declaration fails to compile with one of
// these, the session evaluates the right side once, reads the values' types, declares the
// names with those types, and assigns: what the line means in Go, in two steps yaegi accepts.

// yaegiDefineBug reports whether err is one of the compile failures above.
func yaegiDefineBug(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "constant definition loop") || strings.Contains(m, "nil type") || strings.Contains(m, "nil reflect type") ||
		strings.Contains(m, "invalid memory address or nil pointer dereference") ||
		strings.Contains(m, "not a generic type") || strings.Contains(m, "reflect.Type is nil")
}

// parseDefine parses src as one short variable declaration `a, b := x, y` with identifiers on
// the left.
func parseDefine(src string) (*ast.AssignStmt, bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+src+"\n}", 0)
	if err != nil {
		return nil, false
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) != 1 {
		return nil, false
	}
	as, ok := body[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil, false
	}
	for _, l := range as.Lhs {
		if _, ok := l.(*ast.Ident); !ok {
			return nil, false
		}
	}
	return as, true
}

// evalDefine runs the declaration as/src in two steps (see above).
func (s *Session) evalDefine(ctx context.Context, as *ast.AssignStmt) error {
	names := make([]string, len(as.Lhs))
	for i, l := range as.Lhs {
		names[i] = l.(*ast.Ident).Name
	}
	rhs := make([]string, len(as.Rhs))
	for i, r := range as.Rhs {
		rhs[i] = exprString(r)
	}
	commaOK := len(names) == 2 && len(rhs) == 1 && isCommaOK(as.Rhs[0])
	if ta, ok := unparen(as.Rhs[0]).(*ast.TypeAssertExpr); commaOK && ok {
		// v, ok := x.(T): T is written in the line; nothing to evaluate first (and x.(T) alone
		// would panic when x holds another type).
		return s.evalStmts(ctx, declareCommaOK(names, exprString(ta.Type), rhs[0]))
	}
	// The values, evaluated once into __last (for comma-ok forms only the first value's type is
	// read from them: an index or a type assertion has no effect to repeat).
	if _, err := s.eval(ctx, "__last = __vals("+strings.Join(rhs, ", ")+")"); err != nil {
		return err
	}
	v, err := s.eval(ctx, "__last")
	if err != nil {
		return err
	}
	vals, _ := v.Interface().([]any)
	var stmts []string
	if commaOK {
		if len(vals) != 1 {
			return fmt.Errorf("%s: want one value, got %d", rhs[0], len(vals))
		}
		t, err := s.typeExpr(reflect.TypeOf(vals[0]), false)
		if err != nil {
			return declareFirst(names[0], names[0]+", "+names[1]+" = "+rhs[0], err)
		}
		stmts = declareCommaOK(names, t, rhs[0])
	} else {
		if len(vals) != len(names) {
			return fmt.Errorf("assignment mismatch: %d variables but %d values", len(names), len(vals))
		}
		for i, name := range names {
			if name == "_" {
				continue
			}
			t, err := s.typeExpr(reflect.TypeOf(vals[i]), i == len(names)-1 && len(names) > 1)
			if written, ok := literalType(as, i); err != nil && ok {
				// the value's type is written in the line: a literal of a generic type the
				// session declared (b := Box[int]{3}), which the interpreter holds as a struct of
				// its own (struct { Xv int })
				t, err = written, nil
			}
			if err != nil {
				return declareFirst(name, strings.Join(names, ", ")+" = "+strings.Join(rhs, ", "), err)
			}
			stmts = append(stmts, fmt.Sprintf("var %s %s", name, t))
			if t == "any" || t == "error" {
				stmts = append(stmts, fmt.Sprintf("if __last[%d] != nil { %s = __last[%d].(%s) }", i, name, i, t))
			} else {
				stmts = append(stmts, fmt.Sprintf("%s = __last[%d].(%s)", name, i, t))
			}
		}
	}
	return s.evalStmts(ctx, stmts)
}

// literalType is the type written in the i-th value of as where it is a composite literal of
// an explicit type, T{…} or &T{…} (its pointer type); ok is false for anything else.
func literalType(as *ast.AssignStmt, i int) (string, bool) {
	if len(as.Rhs) != len(as.Lhs) {
		return "", false
	}
	e, star := unparen(as.Rhs[i]), ""
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e, star = unparen(u.X), "*"
	}
	lit, ok := e.(*ast.CompositeLit)
	if !ok || lit.Type == nil {
		return "", false
	}
	return star + exprString(lit.Type), true
}

// declareCommaOK writes `v, ok := rhs` as declarations of v (type t) and ok, then the assignment.
func declareCommaOK(names []string, t, rhs string) []string {
	var stmts []string
	if names[0] != "_" {
		stmts = append(stmts, fmt.Sprintf("var %s %s", names[0], t))
	}
	if names[1] != "_" {
		stmts = append(stmts, fmt.Sprintf("var %s bool", names[1]))
	}
	return append(stmts, fmt.Sprintf("%s, %s = %s", names[0], names[1], rhs))
}

// evalStmts evaluates statements one by one (yaegi reads a source that starts with var as
// declarations only).
func (s *Session) evalStmts(ctx context.Context, stmts []string) error {
	for _, st := range stmts {
		if _, err := s.eval(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// needsTwoSteps reports whether a top-level declaration is of the kind yaegi fails to compile:
// a comma-ok form, or a right side that indexes something. A failed compile leaves the name
// half-declared (a later `var` of it reports a "definition loop"), so these never try the
// one-step form.
func needsTwoSteps(as *ast.AssignStmt) bool {
	if len(as.Lhs) == 2 && len(as.Rhs) == 1 && isCommaOK(as.Rhs[0]) {
		return true
	}
	found := false
	for _, r := range as.Rhs {
		ast.Inspect(r, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit:
				return false // an index inside a closure's body is not evaluated here
			case *ast.IndexExpr:
				found = true
			}
			return !found
		})
	}
	return found
}

// declareFirst is the error for a declaration whose type the session cannot write (a type the
// session itself declared: yaegi gives it no name the session can read back), with the
// two-line form that works.
func declareFirst(name, assign string, err error) error {
	return fmt.Errorf("%w: yaegi cannot declare %s from this line; declare it first, then assign: var %s T; %s", err, name, name, assign)
}

// isCommaOK reports whether e yields a second boolean in `v, ok := e` and can be evaluated
// twice (a map index, a type assertion; a channel receive cannot, and is left to yaegi).
func isCommaOK(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IndexExpr, *ast.TypeAssertExpr:
		return true
	case *ast.ParenExpr:
		return isCommaOK(x.X)
	}
	return false
}

// typeExpr writes t as Go source the session resolves: named types through the session's
// imports, a struct type the session declared by its name (sessionStruct). A nil interface
// value has no type: it is declared `any`, or `error` when it is the last of several results
// (the usual nil error).
func (s *Session) typeExpr(t reflect.Type, lastOfMany bool) (string, error) {
	return s.typeExprSeen(t, lastOfMany, map[reflect.Type]string{})
}

// typeExprSeen is typeExpr, the session's struct types being checked in seen (sessionStruct).
func (s *Session) typeExprSeen(t reflect.Type, lastOfMany bool, seen map[reflect.Type]string) (string, error) {
	if t == nil {
		if lastOfMany {
			return "error", nil
		}
		return "any", nil
	}
	s.mu.Lock()
	byPath := map[string]string{}
	for name, p := range s.imports {
		if name != "" {
			byPath[p] = name
		}
	}
	s.mu.Unlock()
	var write func(t reflect.Type) (string, error)
	write = func(t reflect.Type) (string, error) {
		if t.Name() != "" {
			if t.PkgPath() == "" {
				return t.Name(), nil // predeclared
			}
			if name, ok := byPath[t.PkgPath()]; ok {
				return name + "." + t.Name(), nil
			}
			return "", fmt.Errorf("the type %s: its package %q is not imported in this session", t, t.PkgPath())
		}
		switch t.Kind() {
		case reflect.Pointer:
			e, err := write(t.Elem())
			return "*" + e, err
		case reflect.Slice:
			e, err := write(t.Elem())
			return "[]" + e, err
		case reflect.Array:
			e, err := write(t.Elem())
			return fmt.Sprintf("[%d]%s", t.Len(), e), err
		case reflect.Map:
			k, err := write(t.Key())
			if err != nil {
				return "", err
			}
			e, err := write(t.Elem())
			return "map[" + k + "]" + e, err
		case reflect.Interface:
			if t.NumMethod() == 0 {
				return "any", nil
			}
		case reflect.Struct:
			if name, ok := s.sessionStruct(t, seen); ok {
				return name, nil
			}
		case reflect.Func:
			var in, out []string
			for i := range t.NumIn() {
				p, err := write(t.In(i))
				if err != nil {
					return "", err
				}
				if t.IsVariadic() && i == t.NumIn()-1 {
					p = "..." + strings.TrimPrefix(p, "[]")
				}
				in = append(in, p)
			}
			for i := range t.NumOut() {
				p, err := write(t.Out(i))
				if err != nil {
					return "", err
				}
				out = append(out, p)
			}
			r := "func(" + strings.Join(in, ", ") + ")"
			switch len(out) {
			case 0:
			case 1:
				r += " " + out[0]
			default:
				r += " (" + strings.Join(out, ", ") + ")"
			}
			return r, nil
		}
		return "", fmt.Errorf("the type %s cannot be written in this session", t)
	}
	return write(t)
}
