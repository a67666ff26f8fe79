package repl

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// The values a select sends. yaegi v0.16.1 evaluates a send case's value wrongly in a loop:
// for k := 0; k < 2; k++ { select { case out <- result{k + 10, 3}: } } sent {0 3} twice (Go:
// {10 3} {11 3}), [2]int{k, k + 50} sent [0 0] and [1 0], and a worker pool ranging over its
// jobs (case out <- result{j.id, j.x * j.x}) sent zeros; a variable sent is right, as is a
// value computed before the select. Go evaluates a select's channels and values once, in source
// order, when it enters the select, so the session computes each value that is not a variable
// or a constant there, before the select: { __sel7_0 := result{k + 10, 3}; select { case out <-
// __sel7_0 /*result{k + 10, 3}*/: } }, with each channel that is not a variable or a field of
// one (ctx.Done()), in their order. Not where another rewrite puts text in what is moved (it is
// moved whole).

// selectSendInserts are the texts that compute before each select in the input the values its
// send cases send, and the channels it uses that are not variables, as variables, from go/types' types (info); others are the inserts the other
// rewrites make, whose places a moved value must not hold.
func selectSendInserts(in typed, info *types.Info, others []insert) (inserts []insert) {
	labeled := map[*ast.SelectStmt]*ast.LabeledStmt{}
	ast.Inspect(in.root, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			if sel, ok := l.Stmt.(*ast.SelectStmt); ok {
				labeled[sel] = l
			}
		}
		return true
	})
	ast.Inspect(in.root, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectStmt)
		if !ok {
			return true
		}
		var values []ast.Expr // the channels and values computed before the select, in source order
		sends := false
		for _, st := range sel.Body.List {
			cc, ok := st.(*ast.CommClause)
			if !ok || cc.Comm == nil {
				continue
			}
			var ch, value ast.Expr
			switch c := cc.Comm.(type) {
			case *ast.SendStmt:
				ch = c.Chan
				if moved(info, c.Value) {
					value, sends = c.Value, true
				}
			case *ast.ExprStmt: // <-ch
				ch = receivedFrom(c.X)
			case *ast.AssignStmt: // v := <-ch, v, ok = <-ch
				if len(c.Rhs) == 1 {
					ch = receivedFrom(c.Rhs[0])
				}
			}
			if ch == nil {
				return true
			}
			if !plainOperand(ch) {
				values = append(values, ch)
			}
			if value != nil { // (after its channel)
				values = append(values, value)
			}
		}
		if !sends {
			return true
		}
		start := sel.Pos()
		if l := labeled[sel]; l != nil {
			start = l.Pos() // (the label stays on the select)
		}
		from, end, inside := in.span(sel)
		at := in.offset(start)
		if !inside {
			return true
		}
		var head strings.Builder
		head.WriteString("{ ")
		var moves []insert
		for i, v := range values {
			vFrom, vEnd, _ := in.span(v)
			text := in.src[vFrom:vEnd]
			if strings.Contains(text, "*/") || slices.ContainsFunc(others, func(o insert) bool { return o.at >= vFrom && o.at <= vEnd }) {
				return true
			}
			name := fmt.Sprintf("__sel%d_%d", from, i)
			fmt.Fprintf(&head, "%s := %s; ", name, text)
			moves = append(moves, insert{vFrom, name + " /*"}, insert{vEnd, "*/"})
		}
		inserts = append(inserts, insert{at, head.String()})
		inserts = append(inserts, moves...)
		inserts = append(inserts, insert{end, " }"})
		return true
	})
	return inserts
}

// moved reports whether a sent value is computed before its select: one that is not a variable,
// a constant or nil.
func moved(info *types.Info, v ast.Expr) bool {
	if _, isName := unparen(v).(*ast.Ident); isName {
		return false
	}
	tv, ok := info.Types[v]
	return ok && tv.Value == nil && !tv.IsNil() && tv.Type != nil
}

// receivedFrom is the channel a receive expression (<-ch) reads; nil for another expression.
func receivedFrom(e ast.Expr) ast.Expr {
	if u, ok := unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// plainOperand reports whether e is a variable or a field of one (x, x.f, x.f.g), which reading
// has no effect.
func plainOperand(e ast.Expr) bool {
	switch e := unparen(e).(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		return plainOperand(e.X)
	}
	return false
}
