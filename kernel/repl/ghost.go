package repl

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// Ghosts. yaegi v0.16.1 declares an input's names before it runs the input, and keeps them when
// the input fails: after `var y int8 = "s"` (a compile error) y reads 0, and after `w := g()`
// where g panics, or a loop interrupted with Ctrl-C, w reads its zero value; after
// `func f() int { return "a" }`, calling f panics with an index out of range. In Go none of them
// would exist. The session records such a name (one the failed input declared at its top level,
// no input had declared at its top level, and that holds its zero value), and refuses an input
// that reads it before it runs, saying whose declaration failed; declaring the name again,
// without an error, lays the ghost.

// noteFailed records the names src declares at its top level, which no input had, as ghosts of
// err.
func (s *Session) noteFailed(src string, err error) {
	said := "interrupted"
	if !errors.Is(err, ErrInterrupted) {
		said, _, _ = strings.Cut(err.Error(), "\n")
		if i := strings.LastIndex(said, " [yaegi: "); i > 0 && strings.HasSuffix(said, "]") {
			said = said[:i] // Go's words are enough here
		}
	}
	s.mu.Lock()
	g, _ := globals(s.in)
	s.mu.Unlock()
	for _, name := range topLevelNames(src) {
		if v, ok := g[name]; ok && v.IsValid() && !v.IsZero() {
			continue // assigned before the input failed (a statement that ran): it exists
		}
		if !s.top[name] {
			s.ghosts[name] = said
		}
	}
}

// ghostUse is the error of an input that reads a ghost (a name it uses that nothing in it
// declares in scope: one go/parser leaves unresolved): "undefined" as Go would say it, with the
// failed declaration's error, at the first use; nil if none.
func (s *Session) ghostUse(src string) error {
	if len(s.ghosts) == 0 {
		return nil
	}
	fset, f, prefix, ok := parseInput(src)
	if !ok {
		return nil
	}
	var names []string
	first := len(src)
	for _, id := range f.Unresolved {
		if _, ghost := s.ghosts[id.Name]; ghost {
			if !slices.Contains(names, id.Name) {
				names = append(names, id.Name)
			}
			first = min(first, fset.Position(id.Pos()).Offset-len(prefix))
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	why := fmt.Sprintf("its declaration failed: %s", s.ghosts[names[0]])
	if len(names) > 1 {
		why = fmt.Sprintf("their declarations failed; %s's: %s", names[0], s.ghosts[names[0]])
	}
	pe := &posError{msg: fmt.Sprintf("undefined: %s (%s)", strings.Join(names, ", "), why)}
	if first >= 0 && first <= len(src) {
		pe.line, pe.col = lineCol(src, first)
	}
	return pe
}

// topLevelNames are the names src declares at its top level: the variables, constants, types
// and functions of declarations, or the variables and constants of statements (not those of
// a block or function inside them).
func topLevelNames(src string) []string {
	in, ok := parseTyped(src)
	if !ok {
		return nil
	}
	var names []string
	if f, isFile := in.root.(*ast.File); isFile && in.prefix == "package main\n" { // declarations
		names = declNames(f)
	}
	for _, id := range topIdents(typedStmts(in)) {
		names = append(names, id.Name)
	}
	return slices.DeleteFunc(names, func(n string) bool { return n == "_" })
}

// typedStmts are the statements typed (parsed in the function the session wraps them in);
// none where the input is declarations.
func typedStmts(in typed) []ast.Stmt {
	f, ok := in.root.(*ast.File)
	if !ok || !strings.HasSuffix(in.prefix, "func _() {\n") || len(f.Decls) == 0 {
		return nil
	}
	if fd, ok := f.Decls[len(f.Decls)-1].(*ast.FuncDecl); ok && fd.Body != nil {
		return fd.Body.List
	}
	return nil
}

// declNames are the names f's declarations declare at its top level (a method declares none).
func declNames(f *ast.File) (names []string) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, id := range specIdents(d) {
				names = append(names, id.Name)
			}
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		}
	}
	return names
}

// topIdents are the names statements define at their top level (with :=, and in var, const and
// type declarations; not in a block or function inside them).
func topIdents(stmts []ast.Stmt) (ids []*ast.Ident) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					if id, is := l.(*ast.Ident); is {
						ids = append(ids, id)
					}
				}
			}
		case *ast.DeclStmt:
			if g, is := st.Decl.(*ast.GenDecl); is {
				ids = append(ids, specIdents(g)...)
			}
		}
	}
	return ids
}

// specIdents are the names g's specs declare (none for imports).
func specIdents(g *ast.GenDecl) (ids []*ast.Ident) {
	for _, sp := range g.Specs {
		switch sp := sp.(type) {
		case *ast.ValueSpec:
			ids = append(ids, sp.Names...)
		case *ast.TypeSpec:
			ids = append(ids, sp.Name)
		}
	}
	return ids
}
