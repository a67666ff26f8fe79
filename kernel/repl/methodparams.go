package repl

import "go/ast"

// Unnamed parameters of methods. yaegi v0.16.1 panics calling a method with a named receiver
// whose parameters are unnamed, where a parameter's type is not the result's: func (s S) C(int)
// float64 { return s.v } read "reflect.Set: value of type int is not assignable to type float64"
// (func (n Num) Eval(map[string]float64) float64, an interface's method that ignores its
// argument, too). Named _ it runs; the session names them so.

// unnamedParamInserts are the texts that name _ each unnamed parameter of a method the input
// declares with a named receiver.
func unnamedParamInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || len(fd.Recv.List[0].Names) == 0 || fd.Type.Params == nil {
			return true
		}
		for _, p := range fd.Type.Params.List {
			if len(p.Names) == 0 {
				if at, _, inside := in.span(p.Type); inside {
					inserts = append(inserts, insert{at, "_ "})
				}
			}
		}
		return true
	})
	return inserts
}
