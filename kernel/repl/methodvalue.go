package repl

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// Method values. In Go, p.Get (not called) of a method with a value receiver copies p when it is
// taken, so `get := p.Get; p.X = 100; get()` reads the old p; yaegi v0.16.1 reads p when get is
// called. Where go/types knows the method (the session's types, the packages' tables), the
// session binds the copy itself: p.Get runs as func() func() int { __recv := p; return
// __recv.Get }() (and *(pp) for a pointer pp, whose value Go copies too). A method of a pointer
// receiver binds the pointer, as yaegi does; an interface's method (also one promoted from an
// embedded interface: bound so, yaegi's compiler then panicked on a later n.Shape.Area()), and
// one whose type cannot be written with the session's imports, are left as typed.

// methodValueInserts are the texts that bind the method values of value receivers in the input
// when they are taken, from go/types' selections (info); write writes their types.
func methodValueInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	called := map[*ast.SelectorExpr]bool{}
	ast.Inspect(in.root, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := unparen(c.Fun).(*ast.SelectorExpr); ok {
				called[sel] = true
			}
		}
		return true
	})
	ast.Inspect(in.root, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || called[sel] {
			return true
		}
		sn := info.Selections[sel]
		if sn == nil || sn.Kind() != types.MethodVal || types.IsInterface(sn.Recv()) {
			return true
		}
		sig, _ := sn.Obj().Type().(*types.Signature)
		if sig == nil || sig.Recv() == nil || types.IsInterface(sig.Recv().Type()) {
			return true // (an interface's method promoted through an embedded field: embedded.go)
		}
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			return true
		}
		typ, writable := write(sn.Type())
		from, end, inside := in.span(sel)
		to := in.offset(sel.X.End())
		if !writable || !inside {
			return true
		}
		star, unstar := "", "" // a pointer: its value, which Go copies
		if _, ptr := sn.Recv().(*types.Pointer); ptr {
			star, unstar = "*(", ")"
		}
		inserts = append(inserts, insert{from, "func() " + typ + " { __recv := " + star},
			insert{to, unstar + "; return __recv"}, insert{end, " }()"})
		return true
	})
	return inserts
}

// Method expressions. yaegi v0.16.1 cannot call a method expression: `d := time.Duration.String;
// d(time.Second)` read "too many arguments in call to d", and `h := Base.Hello; h(b)` of a
// session's type panicked ("reflect: Call with too many input arguments"). Where go/types knows
// the method, the session runs T.M as the function literal that calls it, (func(__r T, __a0 P0)
// R { return __r.M(__a0) }), the expression as typed left after it in a comment.

// methodExprInserts are the texts that run each method expression in the input as a function
// literal, from go/types' selections (info); write writes the types.
func methodExprInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		sn := info.Selections[sel]
		if sn == nil || sn.Kind() != types.MethodExpr {
			return true
		}
		sig, _ := sn.Type().(*types.Signature)
		from, end, inside := in.span(sel)
		if sig == nil || sig.Params().Len() == 0 || !inside || strings.Contains(in.src[from:end], "*/") {
			return true
		}
		params, args := make([]string, sig.Params().Len()), make([]string, sig.Params().Len()-1)
		for i := range params {
			t := sig.Params().At(i).Type()
			dots := ""
			if sig.Variadic() && i == len(params)-1 {
				t, dots = t.(*types.Slice).Elem(), "..."
			}
			w, writable := write(t)
			if !writable {
				return true
			}
			name := fmt.Sprintf("__a%d", i-1)
			if i == 0 {
				name = "__r"
			} else {
				args[i-1] = name + dots
			}
			params[i] = name + " " + dots + w
		}
		results := ""
		if sig.Results().Len() > 0 {
			w, writable := write(sig.Results())
			if !writable {
				return true
			}
			results = " " + w + " { return "
		} else {
			results = " { "
		}
		call := "__r." + sel.Sel.Name + "(" + strings.Join(args, ", ") + ")"
		inserts = append(inserts, insert{from, "(func(" + strings.Join(params, ", ") + ")" + results + call + " })/*"}, insert{end, "*/"})
		return true
	})
	return inserts
}
