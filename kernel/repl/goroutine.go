package repl

import "go/ast"

// Goroutines. A panic in a goroutine ends a Go program, and in yaegi v0.16.1 the process the
// interpreter runs in: after `go func() { panic("boom") }()` the session was gone, with every
// variable in it. The session puts a deferred recover at the start of the body of each function
// literal a go statement calls (go func() {…}(), the usual form), which reports the panic on the
// session's standard error ("panic in a goroutine: boom (recovered; the session goes on)") and
// ends that goroutine only. A go statement that calls a named function or a method is left as
// written (wrapping it would evaluate its arguments in the goroutine, not at the statement).

// goroutineInserts are the deferred recovers put at the start of the body of each function
// literal a go statement of the input calls.
func goroutineInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		g, isGo := n.(*ast.GoStmt)
		if !isGo {
			return true
		}
		if lit, isLit := g.Call.Fun.(*ast.FuncLit); isLit {
			inserts = append(inserts, insert{in.offset(lit.Body.Lbrace) + 1,
				" defer func() { if r := recover(); r != nil { __show.GoPanic(r) } }();"})
		}
		return true
	})
	return inserts
}
