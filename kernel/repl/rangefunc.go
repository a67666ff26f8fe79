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
// comments. Each iteration has its own variables, as in Go. A return in the body sets the
// function's results and a flag, and returns false; after the call the function returns them
// where the flag is set. The yield function's parameter types and the results' come from go/types
// (which knows slices, maps, cmp and iter by Go's declarations: gopackages.go). A body that
// defers, has a label or a goto, a return inside a range over a function in the body, and a
// range that assigns to variables declared before (for k = range seq), are left as they are:
// yaegi's error stays, said with what to write instead (rangedFuncSaid).

// rangeFuncInserts are the texts that write each range over a function in the input whose yield
// function's parameter types go/types knows, and whose body can be a function's, as a call of
// that function (rangeFuncCall).
func rangeFuncInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	labeled := map[ast.Stmt]bool{} // (a labeled range, whose label's break and continue: left as it is)
	isFuncRange := func(rs *ast.RangeStmt) bool { return yieldParams(info, rs.X) != nil }
	var visit func(n ast.Node, sig *types.Signature)
	visit = func(n ast.Node, sig *types.Signature) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch x := m.(type) {
			case *ast.FuncDecl:
				if m != n && x.Body != nil {
					s, _ := info.TypeOf(x.Name).(*types.Signature)
					visit(x.Body, s)
					return false
				}
			case *ast.FuncLit:
				if m != n {
					s, _ := info.TypeOf(x).(*types.Signature)
					visit(x.Body, s)
					return false
				}
			case *ast.LabeledStmt:
				labeled[x.Stmt] = true
			case *ast.RangeStmt:
				if x.Tok != token.ASSIGN && !labeled[x] {
					inserts = append(inserts, rangeFuncCall(in, info, write, x, sig, isFuncRange)...)
				}
			}
			return true
		})
	}
	visit(in.root, nil)
	return inserts
}

// rangeFuncCall are the texts that write rs, a range over a function in a function of signature
// sig (nil where unknown: then it returns nothing), as a call of it (none where it cannot):
//
//	for i, v := range seq { body }  →  var __retN bool; var __rN_0 R0; …; seq(func(i int, v E) bool
//	                                    { { body }; return true }); if __retN { return __rN_0, … }
//
// where a return in the body sets the results' values (a bare one, those of the results it
// names) and __retN, then returns false (the flag and the values only where the body returns); N
// is the loop's offset.
func rangeFuncCall(in typed, info *types.Info, write func(types.Type) (string, bool), rs *ast.RangeStmt, sig *types.Signature, isFuncRange func(*ast.RangeStmt) bool) []insert {
	params := yieldParams(info, rs.X)
	if params == nil {
		return nil
	}
	vars := []ast.Expr{rs.Key, rs.Value}
	if rs.Key != nil && len(params) == 0 || rs.Value != nil && len(params) < 2 {
		return nil // more variables than the function yields: go/types' error
	}
	fields := make([]string, len(params))
	for i, p := range params {
		w, writable := write(p)
		if !writable || strings.Contains(w, "invalid type") {
			return nil
		}
		name := "_"
		if id, isIdent := vars[i].(*ast.Ident); isIdent {
			name = id.Name
		}
		fields[i] = name + " " + w
	}
	branches, returns, simple := loopBranches(rs.Body, isFuncRange)
	forAt, _, inside := in.span(rs)
	x, xEnd, xInside := in.span(rs.X)
	if !simple || !inside || !xInside || strings.Contains(in.src[forAt:x], "/") || strings.TrimSpace(in.src[xEnd:in.offset(rs.Body.Lbrace)]) != "" {
		return nil
	}
	var inserts []insert
	after := ""
	if len(returns) > 0 {
		ret, ok := returnInserts(in, write, returns, sig, forAt)
		if !ok {
			return nil
		}
		inserts = append(inserts, ret.inserts...)
		after = ret.after
	}
	open, shut := "", ""
	switch rs.X.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.CallExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.FuncLit, *ast.TypeAssertExpr:
		// (called as it is: yaegi's call of a declared function in parentheses, (pairs)(…),
		// panicked "reflect: call of reflect.Value.Call on ptr Value")
	default:
		open, shut = "(", ")"
	}
	inserts = append(inserts, insert{forAt, "/*"}, insert{x, "*/" + open},
		insert{xEnd, shut + "(func(" + strings.Join(fields, ", ") + ") bool {"},
		insert{in.offset(rs.Body.Rbrace) + 1, "; return true})" + after})
	for _, b := range branches {
		at, end, _ := in.span(b)
		inserts = append(inserts, insert{at, map[token.Token]string{token.CONTINUE: "return true /*", token.BREAK: "return false /*"}[b.Tok]}, insert{end, "*/"})
	}
	return inserts
}

// returned is what returnInserts writes: the texts in and before the loop, and the statement
// after the call.
type returned struct {
	inserts []insert
	after   string
}

// returnInserts are the texts that make each return in a range over a function's body (its
// statements returns; the loop at offset at, in a function of signature sig) set the function's
// results and a flag and return false, declared before the loop, and the statement after the
// call that returns them; ok is false where sig is unknown, a result's type cannot be written, or
// a return holds a comment.
func returnInserts(in typed, write func(types.Type) (string, bool), returns []*ast.ReturnStmt, sig *types.Signature, at int) (r returned, ok bool) {
	if sig == nil {
		return r, false
	}
	flag := fmt.Sprintf("__ret%d", at)
	results := sig.Results()
	decl := "var " + flag + " bool; "
	temps := make([]string, results.Len()) // what a return sets (the results' values, computed as they are in Go before any is set)
	named := make([]string, 0, results.Len())
	for i := range results.Len() {
		w, writable := write(results.At(i).Type())
		if !writable || strings.Contains(w, "invalid type") {
			return r, false
		}
		temps[i] = fmt.Sprintf("__r%d_%d", at, i)
		decl += "var " + temps[i] + " " + w + "; "
		if n := results.At(i).Name(); n != "" && n != "_" {
			named = append(named, n)
		}
	}
	r.inserts = append(r.inserts, insert{at, decl})
	r.after = "; if " + flag + " { return " + strings.Join(temps, ", ") + " }"
	for _, ret := range returns {
		from, end, inside := in.span(ret)
		if !inside || strings.Contains(in.src[from:end], "/") {
			return r, false
		}
		kw := from + len("return")
		switch {
		case len(ret.Results) == 0 && (len(temps) == 0 || len(named) == len(temps)): // (no results, or named ones: their values)
			set := ""
			for i, n := range named {
				set += temps[i] + " = " + n + "; "
			}
			r.inserts = append(r.inserts, insert{from, flag + " = true; " + set + "return false /*"}, insert{kw, "*/"})
		case len(ret.Results) == 1 && len(temps) > 1: // return f(), of several results
			r.inserts = append(r.inserts, insert{from, flag + " = true; " + strings.Join(temps, ", ") + " = /*"}, insert{kw, "*/"}, insert{end, "; return false"})
		case len(ret.Results) == len(temps) && len(temps) > 0:
			r.inserts = append(r.inserts, insert{from, flag + " = true; /*"}, insert{kw, "*/"})
			for i, e := range ret.Results { // one assignment each (yaegi's of several values lost some)
				ef, ee, _ := in.span(e)
				if i > 0 {
					r.inserts = append(r.inserts, insert{ef, "*/ "})
				}
				r.inserts = append(r.inserts, insert{ef, temps[i] + " = "})
				if i < len(ret.Results)-1 {
					r.inserts = append(r.inserts, insert{ee, "; /*"})
				}
			}
			r.inserts = append(r.inserts, insert{end, "; return false"})
		default:
			return r, false
		}
	}
	return r, true
}

// yieldParams are the types of the parameters of the yield function of x, a function ranged
// over (func(yield func(K, V) bool)); nil where x is not one, or go/types does not know it.
func yieldParams(info *types.Info, x ast.Expr) []types.Type {
	t := info.TypeOf(x)
	if t == nil {
		return nil
	}
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
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

// loopBranches are the break and continue statements in body, a range loop's, that are the
// loop's (not those of a loop, switch or select inside it, nor in a function literal), and its
// return statements; simple is false where body has what a function's body cannot stand for: a
// defer, a label or a goto (or a break or continue naming a label), or a return inside a range
// over a function in it (isFuncRange), which is written as a call too.
func loopBranches(body *ast.BlockStmt, isFuncRange func(*ast.RangeStmt) bool) (branches []*ast.BranchStmt, returns []*ast.ReturnStmt, simple bool) {
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
			case *ast.ReturnStmt:
				returns = append(returns, x)
			case *ast.DeferStmt, *ast.LabeledStmt:
				simple = false
			case *ast.BranchStmt:
				switch {
				case x.Label != nil || x.Tok == token.GOTO:
					simple = false
				case x.Tok == token.CONTINUE && !inLoop, x.Tok == token.BREAK && !inBreakable:
					branches = append(branches, x)
				}
			case *ast.RangeStmt:
				if isFuncRange(x) {
					inner := len(returns)
					visit(x, true, true)
					if len(returns) > inner {
						simple = false
					}
					return false
				}
				visit(x, true, true)
				return false
			case *ast.ForStmt:
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
	return branches, returns, simple
}

// rangedFunc is Go's words for a range over a function the session took for one over an
// integer (__ints(f)), with the function and its type; rangedFuncYaegi yaegi's, where go/types
// did not know the function (an iterator of slices or maps), with its type.
var (
	rangedFunc      = regexp.MustCompile(`^cannot convert (.+?) \(value of (?:type (func\(.*?\))|func type (.+?))\) to type int`)
	rangedFuncYaegi = regexp.MustCompile(`^cannot convert expression of type (func\(.*\)) to type int`)
)

// rangedFuncSaid is err, the error of a range over a function the session could not write as a
// call (in the input as typed), said anew: as Go says it where the loop declares more variables
// than the function yields (at the first too many), else why it does not run and what to write
// instead; ok is false for another error.
func rangedFuncSaid(in typed, err error) (said error, ok bool) {
	var x, typ string
	if m := rangedFunc.FindStringSubmatch(msgOf(err)); m != nil {
		x, typ = m[1], m[2]+m[3]
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
	if rs != nil { // (as typed: the session may have converted what it is given)
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
		"(Go 1.23's iterators), and the session runs one as a call of it only where the loop's body has no defer, label or "+
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
	switch g := e.(type) { // iter.Seq[V], iter.Seq2[K, V]
	case *ast.IndexExpr, *ast.IndexListExpr:
		switch t := exprString(g); {
		case strings.HasPrefix(t, "iter.Seq2["):
			return 2, true
		case strings.HasPrefix(t, "iter.Seq["):
			return 1, true
		}
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
