package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"strings"
)

// A range over a function (Go 1.23's iterators). yaegi v0.16.1 cannot compile one (`for v :=
// range slices.Values(xs)` read "panic: nil type"); a range over a function is a call of it with
// the loop's body as its yield function, and the session writes it so:
//
//	for i, v := range seq { body }   →   seq(func(i int, v E) bool { { body }; return true })
//
// where each continue of the loop becomes return true and each break return false (a break or
// continue of a loop, switch or select inside the body is left to it), the originals left in
// comments. Each iteration has its own variables, as in Go. The yield function's parameter types
// come from go/types: the function's own, or for a call of an iterator of slices or maps (which
// go/types does not know) those of the slice or map it is given (slices.All(xs) of a []float64
// yields an int and a float64). A body that returns, defers, has a label or a goto, and a range
// that assigns to variables declared before (for k = range seq), are left as they are: yaegi's
// error stays, said with what to write instead (session.go).

// rangeFuncInserts are the texts that write each range over a function in the input whose yield
// function's parameter types go/types knows (or that of a slices or maps iterator), and whose
// body can be a function's, as a call of that function.
func rangeFuncInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	labeled := map[ast.Stmt]bool{} // (a labeled range, whose label's break and continue: left as it is)
	ast.Inspect(in.root, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			labeled[l.Stmt] = true
		}
		rs, ok := n.(*ast.RangeStmt)
		if !ok || rs.Tok == token.ASSIGN || labeled[rs] {
			return true
		}
		params := yieldParams(info, rs.X)
		if params == nil {
			return true
		}
		vars := []ast.Expr{rs.Key, rs.Value}
		if rs.Key != nil && len(params) == 0 || rs.Value != nil && len(params) < 2 {
			return true // more variables than the function yields: go/types' error
		}
		fields := make([]string, len(params))
		for i, p := range params {
			w, writable := write(p)
			if !writable || strings.Contains(w, "invalid type") {
				return true
			}
			name := "_"
			if id, isIdent := vars[i].(*ast.Ident); isIdent {
				name = id.Name
			}
			fields[i] = name + " " + w
		}
		branches, simple := loopBranches(rs.Body)
		forAt, _, inside := in.span(rs)
		x, xEnd, xInside := in.span(rs.X)
		if !simple || !inside || !xInside || strings.Contains(in.src[forAt:x], "/") || strings.TrimSpace(in.src[xEnd:in.offset(rs.Body.Lbrace)]) != "" {
			return true
		}
		open, shut := "", ""
		switch rs.X.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.FuncLit, *ast.ParenExpr, *ast.TypeAssertExpr:
			// (called as it is: yaegi's call of a declared function in parentheses, (pairs)(…),
			// panicked "reflect: call of reflect.Value.Call on ptr Value")
		default:
			open, shut = "(", ")"
		}
		inserts = append(inserts, insert{forAt, "/*"}, insert{x, "*/" + open},
			insert{xEnd, shut + "(func(" + strings.Join(fields, ", ") + ") bool {"},
			insert{in.offset(rs.Body.Rbrace) + 1, "; return true})"})
		for _, b := range branches {
			at, end, _ := in.span(b)
			inserts = append(inserts, insert{at, map[token.Token]string{token.CONTINUE: "return true /*", token.BREAK: "return false /*"}[b.Tok]}, insert{end, "*/"})
		}
		return true
	})
	return inserts
}

// yieldParams are the types of the parameters of the yield function of x, a function ranged
// over (func(yield func(K, V) bool)); nil where x is not one, or go/types does not know it.
func yieldParams(info *types.Info, x ast.Expr) []types.Type {
	if sig, ok := typeUnder(info.TypeOf(x)).(*types.Signature); ok {
		if sig.Params().Len() != 1 || sig.Results().Len() != 0 {
			return nil
		}
		yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
		if !ok || yield.Results().Len() != 1 || !types.Identical(yield.Results().At(0).Type(), types.Typ[types.Bool]) || yield.Params().Len() > 2 {
			return nil
		}
		params := []types.Type{}
		for i := range yield.Params().Len() {
			params = append(params, yield.Params().At(i).Type())
		}
		return params
	}
	// an iterator of slices or maps, which go/types does not know: from its argument
	c, ok := unparen(x).(*ast.CallExpr)
	if !ok || len(c.Args) == 0 {
		return nil
	}
	sel, ok := unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	pn, ok := info.Uses[pkg].(*types.PkgName)
	if !ok {
		return nil
	}
	switch arg := typeUnder(info.TypeOf(c.Args[0])).(type) {
	case *types.Slice:
		if pn.Imported().Path() != "slices" {
			return nil
		}
		switch sel.Sel.Name {
		case "All", "Backward":
			return []types.Type{types.Typ[types.Int], arg.Elem()}
		case "Values":
			return []types.Type{arg.Elem()}
		case "Chunk":
			return []types.Type{types.NewSlice(arg.Elem())}
		}
	case *types.Map:
		if pn.Imported().Path() != "maps" {
			return nil
		}
		switch sel.Sel.Name {
		case "All":
			return []types.Type{arg.Key(), arg.Elem()}
		case "Keys":
			return []types.Type{arg.Key()}
		case "Values":
			return []types.Type{arg.Elem()}
		}
	}
	return nil
}

// typeUnder is t's underlying type; nil for nil.
func typeUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// loopBranches are the break and continue statements in body, a range loop's, that are the
// loop's (not those of a loop, switch or select inside it, nor in a function literal); simple
// is false where body has what a function's body cannot stand for: a return, a defer, a label
// or a goto (or a break or continue naming a label).
func loopBranches(body *ast.BlockStmt) (branches []*ast.BranchStmt, simple bool) {
	simple = true
	var visit func(n ast.Node, inLoop, inBreakable bool)
	visit = func(n ast.Node, inLoop, inBreakable bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if m == n {
				return true
			}
			switch x := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ReturnStmt, *ast.DeferStmt, *ast.LabeledStmt:
				simple = false
			case *ast.BranchStmt:
				switch {
				case x.Label != nil || x.Tok == token.GOTO:
					simple = false
				case x.Tok == token.CONTINUE && !inLoop, x.Tok == token.BREAK && !inBreakable:
					branches = append(branches, x)
				}
			case *ast.ForStmt, *ast.RangeStmt:
				visit(x, true, true)
				return false
			case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				visit(x, inLoop, true)
				return false
			}
			return true
		})
	}
	visit(body, false, false)
	return branches, simple
}

// rangedFunc is Go's words for a range over a function the session took for one over an
// integer (__ints(f)), with the function and its type; rangedFuncYaegi yaegi's, where go/types
// did not know the function (an iterator of slices or maps), with its type.
var (
	rangedFunc      = regexp.MustCompile(`^cannot convert (.+?) \(value of type (func\(.*\))\) to type int`)
	rangedFuncYaegi = regexp.MustCompile(`^cannot convert expression of type (func\(.*\)) to type int`)
)

// rangedFuncSaid is err, the error of a range over a function the session could not write as a
// call (in the input as typed), said anew: as Go says it where the loop declares more variables
// than the function yields (at the first too many), else why it does not run and what to write
// instead; ok is false for another error.
func rangedFuncSaid(in typed, err error) (said error, ok bool) {
	var x, typ string
	if m := rangedFunc.FindStringSubmatch(msgOf(err)); m != nil {
		x, typ = m[1], m[2]
	} else if m := rangedFuncYaegi.FindStringSubmatch(msgOf(err)); m != nil {
		typ = m[1]
	} else {
		return nil, false
	}
	var rs *ast.RangeStmt // the loop: the one whose function is at err's position, else the first
	if r, found := in.find(err, func(n ast.Node) bool { _, is := n.(*ast.RangeStmt); return is }).(*ast.RangeStmt); found {
		rs = r
		ast.Inspect(in.root, func(n ast.Node) bool {
			if r, is := n.(*ast.RangeStmt); is {
				if at, ok := err.(*posError); ok && at.line > 0 {
					if off, ok := offsetOf(in.src, at.line, at.col); ok && off == in.offset(r.X.Pos()) {
						rs = r
					}
				}
			}
			return true
		})
	}
	if rs != nil && x == "" {
		x = in.text(rs.X)
	}
	if rs != nil {
		vars := []ast.Expr{}
		for _, v := range []ast.Expr{rs.Key, rs.Value} {
			if v != nil {
				vars = append(vars, v)
			}
		}
		if yields, known := yieldCount(typ); known && len(vars) > yields {
			permits := map[int]string{0: "permits no iteration variables", 1: "permits only one iteration variable"}[yields]
			pe := restate(err, fmt.Sprintf("range over %s (value of type %s) %s", x, typ, permits)).(*posError)
			pe.line, pe.col = lineCol(in.src, in.offset(vars[yields].Pos()))
			return pe, true
		}
	}
	return restate(err, fmt.Sprintf("cannot range over %s (value of type %s): yaegi v0.16.1, the interpreter, cannot range over a function "+
		"(Go 1.23's iterators), and the session runs one as a call of it only where the loop's body has no return, defer, label or "+
		"goto and it knows what the function yields: call it with the loop's body as its yield function, which returns true to go "+
		"on (f(func(v T) bool { …; return true })), or collect its values (slices.Collect, slices.Sorted)", x, typ)), true
}

// yieldCount is the number of values a function of type typ (written as Go writes it) yields to
// its yield function; known is false where typ is not one that is ranged over.
func yieldCount(typ string) (n int, known bool) {
	e, err := parser.ParseExpr(typ)
	if err != nil {
		return 0, false
	}
	f, ok := e.(*ast.FuncType)
	if !ok || f.Params == nil || len(f.Params.List) != 1 {
		return 0, false
	}
	yield, ok := f.Params.List[0].Type.(*ast.FuncType)
	if !ok {
		return 0, false
	}
	return yield.Params.NumFields(), true
}
