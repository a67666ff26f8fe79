package repl

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Interface values that copy what they hold. In Go, a value converted to an interface is a copy:
// var s fmt.Stringer = a; a = P{5} leaves s as it was. yaegi v0.16.1's interface value of a
// type the session declared with methods reads the place it was made from when its methods are
// called, so it follows later writes there: s.String() read P{5}'s, and values collected in a
// loop into a slice or map of an interface type all read the last one (ms = append(ms,
// newMLP(w)) of two widths made two of the second, mlp16 mlp16 for Go's mlp8 mlp16; out[i] =
// ps[i], m[k] = p, var t I = x, ch <- l, []Model{l}, box{l} and keep(l) of a range variable
// l: the same), for an interface the session declared and for a package's (fmt.Stringer)
// alike, from an index, a call, a range variable or a composite literal. Converted inside a
// function literal of its own, func(__v T) I { return __v }(x), the value is a copy, as in Go:
// where go/types knows both types, the session converts so each value of such a type given to
// a variable, element, field, channel or parameter of a function the session declared (append
// too) of an interface type with methods. (A function's result is made in a frame of its own:
// return l was right and stays as typed.)
//
// Left as typed: a conversion to any (interface{}), where the literal's result lost the
// methods (fmt.Sprint of it read {0}: TestKnownYaegiGaps pins what any gets wrong), arguments
// of compiled functions (compiledargs.go: those are given a copy when called), and the values
// of an assignment of several values to interfaces (assign.go runs it as a function literal's
// results already).

// interfaceCopyInserts are the texts that convert each value of a type the session declared
// with methods that the input gives to an interface type with methods inside a function literal
// of its own, from go/types' types (info); write writes the types.
func interfaceCopyInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	// convert converts x to an interface type to; one given to a function the session declared
	// (arg) in parentheses, as is a call's result given to one as an interface with methods: a
	// call's result so given made yaegi's type switches on it panic (kind(mk()) of func mk()
	// Node: "invalid memory address or nil pointer dereference"); in parentheses it was right.
	// (Not one given as an any: show((two())) of show(v any) panicked, at the prompt and as
	// fmt.Println's argument, where show(two()) printed it without String.)
	convert := func(x ast.Expr, to types.Type, arg bool) {
		from, end, inside := in.span(x)
		if !inside || !methodsInterface(to) {
			return
		}
		open, close := "", ""
		if arg {
			open, close = "(", ")"
		}
		switch {
		case copied(info, x, to):
			t, okT := write(info.TypeOf(x))
			i, okI := write(to)
			if okT && okI {
				inserts = append(inserts, insert{from, open + copyFunc(t, i, false) + "("}, insert{end, ")" + close})
			}
		case arg && callResult(info, x) != nil:
			inserts = append(inserts, insert{from, open}, insert{end, close})
		}
	}
	ast.Inspect(in.root, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.ASSIGN && len(x.Lhs) == 1 && len(x.Rhs) == 1 {
				convert(x.Rhs[0], info.TypeOf(x.Lhs[0]), false)
			}
		case *ast.ValueSpec:
			if x.Type != nil && len(x.Values) == len(x.Names) {
				for _, v := range x.Values {
					convert(v, info.TypeOf(x.Type), false)
				}
			}
		case *ast.SendStmt:
			if ch, ok := under(info.TypeOf(x.Chan)).(*types.Chan); ok {
				convert(x.Value, ch.Elem(), false)
			}
		case *ast.CompositeLit:
			compositeElems(info, x, func(e ast.Expr, t types.Type) { convert(e, t, false) })
		case *ast.CallExpr:
			if tv, ok := info.Types[x.Fun]; !ok || tv.IsType() {
				return true
			}
			if _, compiled := compiledCallee(info, x); compiled {
				return true
			}
			sig, ok := info.TypeOf(x.Fun).(*types.Signature)
			if !ok {
				return true
			}
			id, _ := unparen(x.Fun).(*ast.Ident)
			_, builtin := info.Uses[id].(*types.Builtin) // append: no function of the session's
			for i, arg := range x.Args {
				if x.Ellipsis.IsValid() && sig.Variadic() && i >= sig.Params().Len()-1 {
					break // a slice given as the variadic parameter: no conversion
				}
				convert(arg, paramType(sig, i), !builtin)
			}
		}
		return true
	})
	return inserts
}

// copied reports whether x, given to a place of type to, is converted there in a function
// literal of its own: a value of a type the session declared with methods given to an interface
// type with methods.
func copied(info *types.Info, x ast.Expr, to types.Type) bool {
	if !methodsInterface(to) {
		return false
	}
	tv, ok := info.Types[x]
	return ok && tv.Type != nil && !tv.IsType() && !types.IsInterface(tv.Type) && sessionMethods(tv.Type)
}

// methodsInterface reports whether t is an interface type with methods (not a type parameter).
func methodsInterface(t types.Type) bool {
	_, isParam := t.(*types.TypeParam)
	return t != nil && !isParam && types.IsInterface(t) && !isAny(t)
}

// callResult is the type of e where it is a call (not a conversion) of one result; nil for
// another e (f(g()) of a g of two results gives g() no parentheses).
func callResult(info *types.Info, e ast.Expr) types.Type {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return nil
	}
	if f, ok := info.Types[c.Fun]; !ok || f.IsType() {
		return nil
	}
	t := info.TypeOf(c)
	if _, several := t.(*types.Tuple); several {
		return nil
	}
	return t
}

// sessionMethods reports whether t is a type the session declared, or a pointer to one, with
// methods (its method set not empty).
func sessionMethods(t types.Type) bool {
	named := t
	if p, ok := t.(*types.Pointer); ok {
		named = p.Elem()
	}
	n, ok := named.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "main" {
		return false
	}
	return types.NewMethodSet(t).Len() > 0
}

// under is t's underlying type; nil for nil.
func under(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}

// compositeElems calls convert with each element of the composite literal lit and the type its
// place has: a slice's or array's element, a map's key and value, a struct's field.
func compositeElems(info *types.Info, lit *ast.CompositeLit, convert func(ast.Expr, types.Type)) {
	t := under(info.TypeOf(lit))
	if p, ok := t.(*types.Pointer); ok { // (&T{…} elided in a literal of pointers)
		t = under(p.Elem())
	}
	for i, e := range lit.Elts {
		kv, keyed := e.(*ast.KeyValueExpr)
		switch t := t.(type) {
		case *types.Slice:
			convert(valueOf(e), t.Elem())
		case *types.Array:
			convert(valueOf(e), t.Elem())
		case *types.Map:
			if keyed {
				convert(kv.Key, t.Key())
				convert(kv.Value, t.Elem())
			}
		case *types.Struct:
			if !keyed {
				if i < t.NumFields() {
					convert(e, t.Field(i).Type())
				}
				continue
			}
			if id, ok := kv.Key.(*ast.Ident); ok {
				for f := range t.Fields() {
					if f.Name() == id.Name {
						convert(kv.Value, f.Type())
					}
				}
			}
		}
	}
}

// valueOf is an element's value: e, or its value where it is keyed (an array's index).
func valueOf(e ast.Expr) ast.Expr {
	if kv, ok := e.(*ast.KeyValueExpr); ok {
		return kv.Value
	}
	return e
}
