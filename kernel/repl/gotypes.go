package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// go/types beside yaegi. yaegi v0.16.1 accepts some inputs Go rejects, and converts without a
// word where Go would refuse (a := 1; var v int8 = a * 200 read -56; f := 2.5; var i int = f * 2
// read 4; const b int8 = 2 * 200 read -112), and words some errors oddly or not at all. The
// session type-checks each input with go/types, which knows the session's declarations of
// constants, types and functions (as typed) and its variables whose types can be written
// without a package (int, []float64, map[string]int, any, error, …, a struct type it declared, a
// package's struct type as a struct of its exported fields): an input whose value Go would
// refuse to convert is refused before it runs (silentError), and yaegi's errors are said in Go's
// words where go/types finds the same (constantError, goWords). A name go/types does not know (a
// package's, a value's method) makes it say nothing of what uses it, so it never refuses what Go
// would take.

// known is what go/types is told of the session: its declarations of constants, types,
// functions and methods as typed (name → declaration) and its variables' types as Go writes them
// (name → type).
type known struct{ decls, vars map[string]string }

// known is the session's declarations and the variables whose types go/types can be told.
func (s *Session) known() known {
	k := known{decls: s.decls, vars: map[string]string{}}
	s.mu.Lock()
	g, _ := globals(s.in)
	s.mu.Unlock()
	for name, v := range g {
		if strings.HasPrefix(name, "__") || !v.IsValid() {
			continue
		}
		if t, ok := goType(v.Type()); ok {
			k.vars[name] = t
		} else if t, ok := s.sessionTypeOf(v.Type()); ok {
			k.vars[name] = t
		}
	}
	return k
}

// sessionTypeOf names the type of a variable of a struct type the session declared (the
// interpreter makes it an unnamed struct type, describe's "type declared with these fields"),
// or a pointer to one, where its declaration is recorded for go/types.
func (s *Session) sessionTypeOf(t reflect.Type) (string, bool) {
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() != reflect.Struct || st.Name() != "" {
		return "", false
	}
	d := s.describe(t)
	if _, ok := s.decls[strings.TrimPrefix(d.name, "*")]; !ok || d.fields == nil {
		return "", false
	}
	return d.name, true
}

// goType is t as Go writes it where that needs no package: predeclared types, any, error, and
// slices, arrays, maps, pointers and functions of them; a package's struct type is written as a
// struct of the exported fields that can be written so (paper.Number as struct{ Name string;
// Ours float64; … }), so go/types knows the types of its fields, though not its methods nor
// its name (what needs them it does not know, and says nothing of).
func goType(t reflect.Type) (string, bool) { return writeType(t, map[reflect.Type]bool{}) }

func writeType(t reflect.Type, seen map[reflect.Type]bool) (string, bool) {
	if seen[t] { // a type that holds itself cannot be written out
		return "", false
	}
	seen[t] = true
	defer delete(seen, t)
	elem := func(prefix string, e reflect.Type) (string, bool) {
		if w, ok := writeType(e, seen); ok && t.Name() == "" {
			return prefix + w, true
		}
		return "", false
	}
	switch t.Kind() {
	case reflect.Slice:
		return elem("[]", t.Elem())
	case reflect.Array:
		return elem(fmt.Sprintf("[%d]", t.Len()), t.Elem())
	case reflect.Pointer:
		return elem("*", t.Elem())
	case reflect.Map:
		k, ok := writeType(t.Key(), seen)
		if !ok {
			return "", false
		}
		return elem("map["+k+"]", t.Elem())
	case reflect.Func:
		if t.Name() != "" {
			return "", false
		}
		var in, out []string
		for i := 0; i < t.NumIn(); i++ {
			p := t.In(i)
			prefix := ""
			if t.IsVariadic() && i == t.NumIn()-1 {
				p, prefix = p.Elem(), "..."
			}
			w, ok := writeType(p, seen)
			if !ok {
				return "", false
			}
			in = append(in, prefix+w)
		}
		for i := 0; i < t.NumOut(); i++ {
			w, ok := writeType(t.Out(i), seen)
			if !ok {
				return "", false
			}
			out = append(out, w)
		}
		return "func(" + strings.Join(in, ", ") + ") (" + strings.Join(out, ", ") + ")", true
	case reflect.Interface:
		switch {
		case t == reflect.TypeFor[error]():
			return "error", true
		case t.Name() == "" && t.NumMethod() == 0:
			return "any", true
		}
		return "", false
	case reflect.Struct:
		if t.Name() == "" || t.PkgPath() == "" { // the interpreter's own (sessionTypeOf), or unnamed
			return "", false
		}
		var fields []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			if w, ok := writeType(f.Type, seen); ok {
				fields = append(fields, f.Name+" "+w)
			}
		}
		return "struct{ " + strings.Join(fields, "; ") + " }", true
	case reflect.Chan, reflect.UnsafePointer, reflect.Invalid:
		return "", false
	default: // a basic kind: predeclared if it has a name and no package
		if t.Name() == "" || t.PkgPath() != "" {
			return "", false
		}
		return t.String(), true
	}
}

// noteDecls records src's top-level declarations of constants, types, functions and methods,
// each as typed (a function's signature), under the names it declares (a method as Type.Method), and forgets every
// recorded declaration a name of which src declares again at its top level (top; with it a
// constant group, whose iota reads its place in the group). Variables are not recorded: the
// interpreter's globals give their types.
func (s *Session) noteDecls(src string, top map[string]bool) {
	for name := range top {
		if g, ok := s.decls[name]; ok {
			for n, h := range s.decls {
				if h == g || strings.HasPrefix(n, name+".") { // a type's methods go with it
					delete(s.decls, n)
				}
			}
		}
	}
	fset, f, prefix, ok := parseInput(src)
	if !ok || prefix != "package main\n" { // statements: nothing declared at top level
		return
	}
	text := func(n ast.Node) string {
		return src[fset.Position(n.Pos()).Offset-len(prefix) : fset.Position(n.End()).Offset-len(prefix)]
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok != token.CONST && d.Tok != token.TYPE {
				continue
			}
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.Name != "_" {
							s.decls[n.Name] = text(d)
						}
					}
				case *ast.TypeSpec:
					s.decls[sp.Name.Name] = text(d)
				}
			}
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				name = embeddedName(d.Recv.List[0].Type) + "." + name // (*T) and T alike: T
			}
			// its signature: go/types needs no body (it checked this one when it was typed)
			s.decls[name] = src[fset.Position(d.Pos()).Offset-len(prefix) : fset.Position(d.Type.End()).Offset-len(prefix)]
		}
	}
}

// constantError is Go's error for a constant declaration yaegi rejects as a "constant definition
// loop" that is none (const k = 1 + "a"; const b int8 = 300): go/types checks src, declarations
// that need nothing of the session's but its constants, and says what is wrong where Go says
// it. ok is false for anything else, or where src reads a name go/types does not know.
func (s *Session) constantError(src string, err error) (error, bool) {
	if !strings.HasSuffix(err.Error(), "constant definition loop") {
		return nil, false
	}
	errs := s.typeErrorsOf(src)
	if len(errs) == 0 || !errs[0].declarations || unknownName(errs[0].msg) {
		return nil, false
	}
	pe := errs[0].posError
	pe.msg += " [yaegi: " + words(err) + "]"
	pe.err = err
	return &pe, true
}

// silentError is Go's error for an input whose value Go would refuse to give the type it is
// given and yaegi converts without a word: a constant that overflows it (const b int8 = 2 * 200
// read -112; var n uint8 = 255 + 1 read 0), or a value of another type (var i int = f * 2 read
// 4 for f = 2.5; var w float32 = a + 1). go/types checks src before it runs.
func (s *Session) silentError(src string) (error, bool) {
	for _, e := range s.typeErrorsOf(src) {
		if strings.Contains(e.msg, "overflows") || strings.Contains(e.msg, "truncated") ||
			strings.HasPrefix(e.msg, "cannot use ") && strings.Contains(e.msg, " value in ") {
			return &e.posError, true
		}
	}
	return nil, false
}

// goWords is err, a compile error of yaegi's, in Go's words where go/types finds an error at
// the same position (yaegi: `cannot use "a" (type stringT) as type intT in return argument`;
// Go: `cannot use "a" (untyped string constant) as int value in return statement`), with
// yaegi's after it; where yaegi's compiler itself panicked (`if 1 {}`: "CFG post-order panic:
// reflect: call of reflect.Value.Bool on int64 Value"), go/types' first error wherever it is.
// An error about a name go/types is not told of is left to yaegi.
func (s *Session) goWords(src string, err error) (error, bool) {
	at, ok := err.(*posError)
	crash := ok && strings.HasPrefix(at.msg, "panic: CFG post-order panic: reflect") // the interpreter's own
	if !ok || at.line == 0 || at.file != "" || strings.HasPrefix(at.msg, "panic: ") && !crash || s.dotImport {
		return nil, false
	}
	for i, e := range s.typeErrorsOf(src) {
		if crash && i > 0 || !crash && (e.line != at.line || e.col != at.col) {
			continue
		}
		if e.msg == at.msg || unknownName(e.msg) || strings.Contains(e.msg, "not used") || strings.Contains(e.msg, "(type struct{") {
			return nil, false
		}
		pe := e.posError
		pe.msg += " [yaegi: " + words(err) + "]"
		pe.err = err
		return &pe, true
	}
	return nil, false
}

// unknownName reports whether a go/types error is about a name it does not know: the session's
// (other than its constants) or an import's.
func unknownName(msg string) bool {
	return strings.HasPrefix(msg, "undefined:") || strings.Contains(msg, "could not import")
}

// typeError is an error go/types finds in an input, at its position there; declarations is
// whether the input is declarations (else statements).
type typeError struct {
	posError
	declarations bool
}

// checkedInput is typeErrors of the input being evaluated, kept for its diagnosis.
type checkedInput struct {
	src  string
	errs []typeError
}

// typeErrorsOf is typeErrors of src told what the session knows, computed once for the input
// being evaluated (evalInput forgets it): the check before it runs and the wording of yaegi's
// error after it share it.
func (s *Session) typeErrorsOf(src string) []typeError {
	if c := s.checked; c != nil && c.src == src {
		return c.errs
	}
	s.checked = &checkedInput{src, typeErrors(src, s.known())}
	return s.checked.errs
}

// typeErrors type-checks src as typed (declarations, else statements) with go/types, told of the
// session what k holds (a declaration or variable src declares again left out), and returns
// its errors in src in the order of their positions, soft ones (unused variables and imports)
// left out.
func typeErrors(src string, k known) []typeError {
	fset, f, prefix, ok := parseInput(src)
	if !ok {
		return nil
	}
	files := []*ast.File{f}
	_, declared := identifiers(src)
	again := map[string]bool{} // a declaration src declares a name of again is left out whole
	for name, g := range k.decls {
		again[g] = again[g] || declared[name] || declared[strings.SplitN(name, ".", 2)[0]]
	}
	var decls []string
	for _, g := range k.decls {
		if !again[g] && !slices.Contains(decls, g) {
			decls = append(decls, g)
		}
	}
	for name, t := range k.vars {
		if _, isDecl := k.decls[name]; !declared[name] && !isDecl {
			decls = append(decls, "var "+name+" "+t)
		}
	}
	sort.Strings(decls)
	const session = "session.go"
	if len(decls) > 0 {
		if sf, err := parser.ParseFile(fset, session, "package main\n"+strings.Join(decls, "\n"), 0); err == nil {
			files = append(files, sf)
		}
	}
	var errs []typeError
	conf := types.Config{Error: func(e error) {
		te, is := e.(types.Error)
		if !is || te.Soft || te.Fset.Position(te.Pos).Filename == session {
			return
		}
		t := typeError{posError{msg: te.Msg}, prefix == "package main\n"}
		if off := fset.Position(te.Pos).Offset - len(prefix); off >= 0 && off <= len(src) {
			t.line, t.col = lineCol(src, off)
		}
		errs = append(errs, t)
	}}
	conf.Check("main", fset, files, nil) // errors go to conf.Error
	// in the order of their positions, as Go's compiler lists them
	sort.SliceStable(errs, func(i, j int) bool {
		return errs[i].line < errs[j].line || errs[i].line == errs[j].line && errs[i].col < errs[j].col
	})
	return errs
}
