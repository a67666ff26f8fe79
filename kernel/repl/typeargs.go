package repl

import (
	"go/ast"
	"go/types"
	"strings"
)

// Type arguments written out. yaegi v0.16.1 infers the type parameters of a generic function the
// session declared wrongly where they differ (Map([]int{1, 2, 3}, func(x int) string {…}) of
// func Map[T, U any](xs []T, f func(T) U) []U read "cannot use type func(int) string as type
// func(int) int"), and cannot infer one from a variadic argument (sum(1, 2, 3) of
// sum[T int | float64](xs ...T): "undefined type for T"); given them written out it runs such a
// call. Where go/types infers them (info.Instances) and the session can write them, they are
// written after each function's name, Map[int, string](…): in declarations (a file) before they
// run (run again after a compile error, a file's types were found broken: q1.go's methods read
// empty fields), in statements only where yaegi failed so (a compile error: nothing ran), as
// yaegi's compiler refused some calls written out that it inferred right (k++; g :=
// first[int](x) read "constant definition loop"). Not in a generic function's own body (where they may name its type parameters, and a
// recursive f[T](…) made yaegi's compiler panic): there yaegi's error stays, said with what to
// write (explain.go's sayInferred).

// typeArgInserts are the type arguments, in brackets, go/types inferred for each call of a
// generic function the session declared that the input makes outside a generic function's
// declaration, from info; write writes them.
func typeArgInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Type.TypeParams != nil {
			return false // a generic function's body
		}
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id, ok := unparen(c.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		fn, ok := info.Uses[id].(*types.Func)
		inst, inferred := info.Instances[id]
		if !ok || !inferred || fn.Pkg() == nil || fn.Pkg().Path() != "main" || inst.TypeArgs.Len() == 0 {
			return true
		}
		args := make([]string, inst.TypeArgs.Len())
		for i := range args {
			w, writable := write(inst.TypeArgs.At(i))
			if !writable || strings.Contains(w, "invalid type") { // (inferred from a name go/types does not know)
				return true
			}
			args[i] = w
		}
		if _, end, inside := in.span(id); inside {
			inserts = append(inserts, insert{end, "[" + strings.Join(args, ", ") + "]"})
		}
		return true
	})
	return inserts
}

// uninferred reports whether err is yaegi's for a call whose type parameters it inferred wrongly
// ("cannot use type func(int) string as type func(int) int") or could not ("undefined type for
// U"): a compile error, not a panic.
func uninferred(err error) bool {
	msg := msgOf(err)
	return strings.HasPrefix(msg, "cannot use type ") || uninferredParam.MatchString(msg)
}

// Type parameters named as the program's names. yaegi looks a type parameter's name up among the
// package's names: with var T = 50 in a file, func first[T any](s []T) T { return s[0] } made
// the program panic ("runtime error: invalid memory address or nil pointer dereference"), and at
// the prompt, after T := 50, a call of such a function read "undefined type for T". The session
// renames such a type parameter, where go/types knows it, __T in the function or type that
// declares it (typeParamInserts): go/types and what is said keep T.

// typeParamInserts are the texts that rename, T to __T, each type parameter the input declares
// whose name a package-level name of the program or the session has, where it is declared and
// used.
func typeParamInserts(in typed, info *types.Info, _ func(types.Type) (string, bool)) (inserts []insert) {
	clash := map[types.Object]bool{}
	var ids []*ast.Ident // (the input's: info holds the session's declarations too)
	ast.Inspect(in.root, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		ids = append(ids, id)
		if tn, ok := info.Defs[id].(*types.TypeName); ok && id.Name != "_" && tn.Pkg() != nil && tn.Pkg().Scope().Lookup(id.Name) != nil {
			if _, isParam := tn.Type().(*types.TypeParam); isParam {
				clash[tn] = true
			}
		}
		return true
	})
	for _, id := range ids {
		obj := info.Defs[id]
		if obj == nil {
			obj = info.Uses[id]
		}
		if from, _, inside := in.span(id); inside && clash[obj] {
			inserts = append(inserts, insert{from, "__"}) // (before it: a struct tag may follow it)
		}
	}
	return inserts
}
