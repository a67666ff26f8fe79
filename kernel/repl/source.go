package repl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// incomplete reports whether src needs more lines: an open bracket, an unterminated raw string
// or block comment, or a trailing operator or comma that continues onto the next line.
func incomplete(src string) bool {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	open := false
	s.Init(file, []byte(src), func(_ token.Position, msg string) {
		if strings.Contains(msg, "not terminated") {
			open = true
		}
	}, scanner.ScanComments)
	depth := 0
	last := token.ILLEGAL
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.COMMENT:
			continue
		case token.SEMICOLON:
			if lit == "\n" { // automatic semicolon: the line ended a statement
				continue
			}
		}
		last = tok
	}
	if open || depth > 0 {
		return true
	}
	switch last {
	case token.COMMA, token.PERIOD, token.ADD, token.SUB, token.MUL, token.QUO, token.REM,
		token.AND, token.OR, token.XOR, token.SHL, token.SHR, token.AND_NOT, token.LAND, token.LOR,
		token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.ASSIGN, token.DEFINE,
		token.ARROW, token.COLON:
		return true
	}
	return false
}

// importSpec is one import: the name it binds and its path.
type importSpec struct{ name, path string }

// splitImports takes the import declarations at the start of src apart from the rest. ok is
// false when src does not start with "import".
func splitImports(src string) (specs []importSpec, rest string, ok bool) {
	if !strings.Contains(src, "import") {
		return nil, src, false
	}
	fset := token.NewFileSet()
	f, perr := parser.ParseFile(fset, "", "package main\n"+src, parser.ImportsOnly)
	if perr != nil || len(f.Imports) == 0 {
		return nil, src, false // let the interpreter report it
	}
	end := 0
	for _, d := range f.Decls {
		gd, isGen := d.(*ast.GenDecl)
		if !isGen || gd.Tok != token.IMPORT {
			break
		}
		end = fset.Position(gd.End()).Offset - len("package main\n")
	}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		name := ""
		if is.Name != nil {
			name = is.Name.Name
		}
		specs = append(specs, importSpec{name, p})
	}
	return specs, src[end:], true
}

// fileToScript turns a Go file (package clause, imports, declarations, func main) into REPL
// input: the package clause goes, and main is renamed mainName so that loading a file runs its
// main once (yaegi would run a func main again on every later evaluation). It returns the
// source unchanged when it has no package clause (a script of REPL lines) and hasMain = false.
func fileToScript(src, mainName string) (script string, hasMain bool, err error) {
	fset := token.NewFileSet()
	f, perr := parser.ParseFile(fset, "", src, parser.ParseComments)
	if perr != nil {
		if strings.HasPrefix(strings.TrimSpace(stripComments(src)), "package ") {
			return "", false, perr
		}
		return src, false, nil
	}
	if f.Name.Name != "main" {
		return "", false, fmt.Errorf("package %s: a script must be package main (or have no package clause)", f.Name.Name)
	}
	b := []byte(src)
	// Rename main first (it lies after the package clause, so offsets before it stay valid).
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
			off := fset.Position(fd.Name.Pos()).Offset
			b = append(b[:off:off], append([]byte(mainName), b[off+len("main"):]...)...)
			hasMain = true
		}
	}
	// Blank the package clause, keeping line numbers.
	start, end := fset.Position(f.Package).Offset, fset.Position(f.Name.End()).Offset
	for i := start; i < end; i++ {
		b[i] = ' '
	}
	return string(b), hasMain, nil
}

func stripComments(src string) string {
	var out strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		out.WriteString(line + "\n")
	}
	return out.String()
}

// isExpr reports whether src is a single expression (its value is printed).
func isExpr(src string) (ast.Expr, bool) {
	e, err := parser.ParseExpr(src)
	return e, err == nil
}

// isExprList reports whether src is two or more expressions separated by commas (`n, err`,
// `len(xs), xs[0]`), which the prompt prints side by side as it prints a call's results (Go has
// no such statement: yaegi said "expected 1 expression"). It returns them as one call.
func isExprList(src string) (ast.Expr, bool) {
	e, err := parser.ParseExpr("__show.Vals(" + strings.TrimRight(blankComments(src), " \t\r\n") + ")")
	call, ok := e.(*ast.CallExpr)
	if err != nil || !ok || len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return nil, false
	}
	return call, true
}

// exprString prints e on one line without comments, ready to wrap in a call.
func exprString(e ast.Expr) string {
	var b bytes.Buffer
	if err := format.Node(&b, token.NewFileSet(), e); err != nil {
		return types.ExprString(e)
	}
	return b.String()
}

// isCompound reports whether src starts with a statement that yaegi evaluates badly at top
// level (a `v, err :=` inside a top-level for loop reads "undefined: v"); such input runs
// inside func() { … }().
func isCompound(src string) bool {
	t := strings.TrimSpace(src)
	for _, kw := range []string{"for ", "for{", "if ", "switch ", "switch{", "select ", "select{", "{"} {
		if strings.HasPrefix(t, kw) {
			return true
		}
	}
	return t == "for" || t == "select"
}

// quietCall reports whether e calls a function whose results nobody wants printed (fmt.Print…).
func quietCall(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "fmt" && (strings.HasPrefix(sel.Sel.Name, "Print") || strings.HasPrefix(sel.Sel.Name, "Fprint"))
}

// parseInput parses src as typed: as declarations (a file without its package clause), else as
// statements (inside a function; imports before them are read as blanks). An offset in fset
// less len(prefix) is one in src.
func parseInput(src string) (fset *token.FileSet, f *ast.File, prefix string, ok bool) {
	return parseInputUnder(src, "package main\n")
}

// parseInputUnder is parseInput with head (a package clause and imports, ending in a newline)
// in place of "package main\n".
func parseInputUnder(src, head string) (fset *token.FileSet, f *ast.File, prefix string, ok bool) {
	fset = token.NewFileSet()
	prefix = head
	if f, err := parser.ParseFile(fset, "", prefix+src, 0); err == nil {
		return fset, f, prefix, true
	}
	prefix = head + "func _() {\n"
	if _, rest, ok := splitImports(src); ok { // statements after imports: the imports blanked
		src = blank(src[:len(src)-len(rest)]) + rest
	}
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", 0)
	return fset, f, prefix, err == nil
}

// rangeIntInserts are the texts that rewrite each range over what may be an integer (for i :=
// range n, Go 1.22), which yaegi v0.16.1 cannot compile ("nil type"), as a range over
// __ints(int(n)), n empty structs (i is then an int, whatever n's integer type); none when src
// has no such range. A composite or string literal, a slice expression or a function literal is
// never an integer and stays. The caller runs the rewritten source only after the original
// failed to compile, so where nothing ranges over an integer nothing is rewritten.
func rangeIntInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		r, isRange := n.(*ast.RangeStmt)
		if !isRange {
			return true
		}
		switch x := r.X.(type) {
		case *ast.CompositeLit, *ast.SliceExpr, *ast.FuncLit:
			return true
		case *ast.BasicLit:
			if x.Kind != token.INT {
				return true
			}
		}
		inserts = append(inserts, rangeOverInts(in, r.X)...)
		return true
	})
	return inserts
}

// rangeOverInts are the texts that make a range over x one over __ints(int(x)).
func rangeOverInts(in typed, x ast.Expr) []insert {
	from, end, inside := in.span(x)
	if !inside {
		return nil
	}
	return []insert{{from, "__ints(int("}, {end, "))"}}
}

// intRangeInserts are rangeIntInserts where go/types knows the range is over an integer of
// type int (or an untyped constant: for i := range 3), put in before the input runs. Where the
// input is declarations (a file), a second run after the compile error found the file's types
// broken (a method appending to a field panicked "reflect: slice index out of range"); where
// go/types does not know the range's type, or it is another integer type, whose key Go types so,
// the rewrite still waits for the error.
func intRangeInserts(in typed, info *types.Info, _ func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		r, isRange := n.(*ast.RangeStmt)
		if !isRange {
			return true
		}
		b, ok := under(info.TypeOf(r.X)).(*types.Basic)
		if !ok || b.Kind() != types.Int && b.Kind() != types.UntypedInt {
			return true
		}
		inserts = append(inserts, rangeOverInts(in, r.X)...)
		return true
	})
	return inserts
}

// withInserts is src with the inserts put in (sorted by offset, in place).
func withInserts(src string, inserts []insert) string {
	sort.SliceStable(inserts, func(i, j int) bool { return inserts[i].at < inserts[j].at })
	for i := len(inserts) - 1; i >= 0; i-- {
		in := inserts[i]
		src = src[:in.at] + in.text + src[in.at:]
	}
	return src
}

// insert is a text the session put in what was typed, at its byte offset there.
type insert struct {
	at   int
	text string
}

// varAsAssignments rewrites a top-level var declaration with values (var m = n; var k T = n),
// which yaegi v0.16.1 cannot compile when a value reads one of the session's variables
// ("variable definition loop"), as the lines that declare the same: m := n for a spec without
// a type, var k T then k = n for one with. ok is false for anything else.
func varAsAssignments(src string) (lines []string, ok bool) {
	fset := token.NewFileSet()
	const prefix = "package main\n"
	f, err := parser.ParseFile(fset, "", prefix+src, 0)
	if err != nil || len(f.Decls) != 1 {
		return nil, false
	}
	gd, isGen := f.Decls[0].(*ast.GenDecl)
	if !isGen || gd.Tok != token.VAR {
		return nil, false
	}
	text := func(n ast.Node) string {
		return src[fset.Position(n.Pos()).Offset-len(prefix) : fset.Position(n.End()).Offset-len(prefix)]
	}
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			return nil, false
		}
		names := make([]string, len(vs.Names))
		for i, n := range vs.Names {
			names[i] = n.Name
		}
		values := make([]string, len(vs.Values))
		for i, v := range vs.Values {
			values[i] = text(v)
		}
		lhs, rhs := strings.Join(names, ", "), strings.Join(values, ", ")
		if vs.Type == nil {
			lines = append(lines, lhs+" := "+rhs)
		} else {
			lines = append(lines, "var "+lhs+" "+text(vs.Type), lhs+" = "+rhs)
		}
	}
	return lines, true
}

// statementsOf splits src, two or more statements, into its statements (each as typed, the
// comments between them dropped; an expression statement in braces, so that the session runs it
// as the line would, without printing its value); ok is false for anything else, and for
// statements that jump (a label, goto, break, continue, fallthrough), which need each other.
func statementsOf(src string) (stmts []string, ok bool) {
	const prefix = "package p\nfunc _() {\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", 0)
	if err != nil {
		return nil, false
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) < 2 {
		return nil, false
	}
	for _, st := range body {
		switch st.(type) {
		case *ast.LabeledStmt, *ast.BranchStmt:
			return nil, false
		}
		from, to := fset.Position(st.Pos()).Offset-len(prefix), fset.Position(st.End()).Offset-len(prefix)
		if from < 0 || to > len(src) {
			return nil, false
		}
		if _, isExpr := st.(*ast.ExprStmt); isExpr {
			stmts = append(stmts, "{ "+src[from:to]+" }")
		} else {
			stmts = append(stmts, src[from:to])
		}
	}
	return stmts, true
}
