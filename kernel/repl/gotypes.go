package repl

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// go/types beside yaegi. yaegi v0.16.1 accepts some inputs Go rejects, and converts without a
// word where Go would refuse (a := 1; var v int8 = a * 200 read -56; f := 2.5; var i int = f * 2
// read 4; const b int8 = 2 * 200 read -112; var t int8 = c.Tokens() * 100 read 64), and words
// some errors oddly or not at all. The session type-checks each input with go/types, which knows
// the session's declarations of constants, types and functions (as typed), the packages it can
// import (their symbol tables, gopackages.go) and its variables whose types it can be told (any
// but those the interpreter made: a variable of a struct type the session declared is told by
// that type's name, one that may hold a session's type reflect cannot show is not told): an
// input Go's compiler refuses and yaegi would run is refused before it runs (refusedError), and
// yaegi's errors are said in Go's words where go/types finds the same (constantError, goWords).
// A name go/types does not know makes it say nothing of what uses it, so it never refuses what
// Go would take.

// known is what go/types is told of the session: its declarations of constants, types,
// functions and methods as typed (name → declaration), its variables of a struct type it
// declared (name → type as Go writes it), its other variables whose types can be told (name →
// reflect type, tellable) and its imports (name → path).
type known struct {
	decls, vars, imports map[string]string
	values               map[string]reflect.Type
}

// known is the session's declarations, imports and the variables whose types go/types can be
// told.
func (s *Session) known() known {
	k := known{decls: s.decls, vars: map[string]string{}, values: map[string]reflect.Type{}, imports: map[string]string{}}
	s.mu.Lock()
	g, _ := globals(s.in)
	for name, p := range s.imports {
		k.imports[name] = p
	}
	s.mu.Unlock()
	for name, v := range g {
		if strings.HasPrefix(name, "__") || !v.IsValid() {
			continue
		}
		if t, ok := s.holdingSessionType(v.Type()); ok {
			k.vars[name] = t
		} else if tellable(v.Type(), map[reflect.Type]bool{}) {
			k.values[name] = v.Type()
		}
	}
	return k
}

// sessionStruct names a struct type the session declared (the interpreter makes it an unnamed
// struct type, describe's "type declared with these fields"), or a pointer to one, where its
// declaration is recorded for go/types and declares each field with the type the value's field
// has, as the session writes it (describe goes by the fields' names: struct{ X, Y string } is no
// pt of struct{ X, Y float64 }); ok is false where it cannot tell. seen holds the structs being
// checked (struct → name): a field of one of them is taken for it (a recursive type, type node
// struct{ next *node }).
func (s *Session) sessionStruct(t reflect.Type, seen map[reflect.Type]string) (string, bool) {
	st, star := t, ""
	if st.Kind() == reflect.Pointer {
		st, star = st.Elem(), "*"
	}
	if st.Kind() != reflect.Struct || st.Name() != "" {
		return "", false
	}
	if name, ok := seen[st]; ok {
		return star + name, true
	}
	d := s.describe(st)
	decl, ok := s.decls[d.name]
	if !ok || d.fields == nil {
		return "", false
	}
	declared, ok := fieldTypes(decl)
	if !ok || len(declared) != st.NumField() {
		return "", false
	}
	seen[st] = d.name
	for i, want := range declared {
		if got, err := s.typeExprSeen(st.Field(i).Type, false, seen); err != nil || got != want {
			delete(seen, st)
			return "", false
		}
	}
	return star + d.name, true
}

// holdingSessionType writes t, a type go/types cannot be told as a reflect type (tellable) that
// holds struct types the session declared ([]pt, map[string]*pt, pt), as Go writes it; ok is
// false for a tellable type, and for one it cannot write.
func (s *Session) holdingSessionType(t reflect.Type) (string, bool) {
	if tellable(t, map[reflect.Type]bool{}) {
		return "", false
	}
	w, err := s.typeExpr(t, false)
	return w, err == nil
}

// fieldTypes are the types of the fields of the struct type decl declares, one per field as
// written (x, y float64: two); ok is false for anything else, and for an embedded field.
func fieldTypes(decl string) (types []string, ok bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+decl, 0)
	if err != nil || len(f.Decls) != 1 {
		return nil, false
	}
	gd, isGen := f.Decls[0].(*ast.GenDecl)
	if !isGen || len(gd.Specs) != 1 {
		return nil, false
	}
	ts, isType := gd.Specs[0].(*ast.TypeSpec)
	if !isType {
		return nil, false
	}
	st, isStruct := ts.Type.(*ast.StructType)
	if !isStruct {
		return nil, false
	}
	for _, fl := range st.Fields.List {
		if len(fl.Names) == 0 {
			return nil, false
		}
		for range fl.Names {
			types = append(types, exprString(fl.Type))
		}
	}
	return types, true
}

// noteDecls records src's top-level declarations of constants, types, functions and methods,
// each as typed (a function's signature), under the names it declares (a method as
// Type.Method), and of variables declared with a type (var m Model: the interpreter's globals
// give the others' types, but not an interface type the session declared), and forgets every
// recorded declaration a name of which src declares again at its top level (top; with it a
// constant group, whose iota reads its place in the group).
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
			if d.Tok == token.IMPORT {
				continue
			}
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						switch {
						case n.Name == "_":
						case d.Tok == token.CONST:
							s.decls[n.Name] = text(d)
						case sp.Type != nil: // a variable by its declared type, which its value may not show
							s.decls[n.Name] = "var " + n.Name + " " + text(sp.Type)
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

// refusedError is Go's error for an input Go's compiler refuses and yaegi runs: it runs it
// without a word, or until it panics in its own words (refused, the patterns). go/types checks src
// before it runs, so nothing of a refused input runs.
func (s *Session) refusedError(src string) (error, bool) {
	errs := s.typeErrorsOf(src)
	for _, e := range errs {
		if unknownName(e.msg) {
			// go/types does not know all src uses (a name yaegi may know, cmp.Ordered of
			// a package compiled from source): what it says of the rest may follow from that
			// (func f[T cmp.Ordered](…) map[T]int: "invalid map key type T")
			return nil, false
		}
	}
	for _, e := range errs {
		if refused(e.msg) {
			return &e.posError, true
		}
	}
	return nil, false
}

// refused reports whether msg, an error go/types finds, is one of those yaegi v0.16.1 runs.
func refused(msg string) bool {
	for _, p := range refusedErrors {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return strings.HasPrefix(msg, "cannot use ") && strings.Contains(msg, " value in ")
}

// refusedErrors are the words of Go's errors yaegi runs, with what it did instead.
var refusedErrors = []string{
	// a value Go refuses to give the type it is given, converted without a word: const b int8 =
	// 2 * 200 read -112, var n uint8 = 255 + 1 read 0, var i int = f * 2 read 4 for f = 2.5 (and,
	// with "cannot use … value in", var w float32 = a + 1); const c = x + 1 read 0 for x = 3
	"overflows", "truncated", " is not constant",
	// x := f() of a function of two results held the first
	"assignment mismatch",
	// p := &m["a"] pointed at a copy (*p = 5 left m["a"] as it was); m["a"].X = 7 ("cannot assign
	// to struct field") and pt{}.Inc() of a pointer method ("cannot call pointer method") changed
	// copies; s[0] = 'x' of a string panicked ("reflect.Value.Set using unaddressable value"), and
	// x := 3; x() ran what came before it, then panicked ("reflect: call of reflect.Value.Call on
	// int Value")
	"cannot take address of", "cannot assign to ", "cannot call ",
	// func h() int { } returned 0
	"missing return",
	// switch 1 { case 1: …; case 1: … } ran the first; a fallthrough in the last case and a break
	// outside a loop did nothing; switch x { case "a": } of an int x compared nothing
	"duplicate case", "cannot fallthrough", "not in for, switch, or select", "cannot convert ",
	// panics in yaegi's words: []int{1, 2}[5] ("reflect: slice index out of range"), for i :=
	// range 3.5 ("nil type"), map[[]int]int{} ("reflect.MapOf: invalid key type"), data.Clip() (a
	// conversion without its argument: "CFG post-order panic: runtime error: index out of range")
	"out of bounds", "cannot range over ", "invalid map key type", " in conversion to ",
}

// goWords is err, a compile error of yaegi's, in Go's words where go/types finds an error at
// the same position (yaegi: `cannot use "a" (type stringT) as type intT in return argument`;
// Go: `cannot use "a" (untyped string constant) as int value in return statement`), with
// yaegi's after it; where yaegi's compiler itself panicked (`if 1 {}`: "CFG post-order panic:
// reflect: call of reflect.Value.Bool on int64 Value") or says nothing of what is wrong (`a, b
// := f`: "unsupported assign expression"), go/types' first error wherever it is.
// An error about a name go/types is not told of is left to yaegi.
func (s *Session) goWords(src string, err error) (error, bool) {
	at, ok := err.(*posError)
	crash := ok && (strings.HasPrefix(at.msg, "panic: CFG post-order panic: reflect") || // the interpreter's own
		at.msg == "unsupported assign expression") // yaegi's words for a, b := f (no call)
	if !ok || at.line == 0 || at.file != "" || strings.HasPrefix(at.msg, "panic: ") && !crash || s.dotImport {
		return nil, false
	}
	for i, e := range s.typeErrorsOf(src) {
		if crash && i > 0 || !crash && (e.line != at.line || e.col != at.col) {
			continue
		}
		said, member := s.undefinedMember(e.msg)
		if e.msg == at.msg || unknownName(e.msg) && !member || strings.Contains(e.msg, "not used") || strings.Contains(e.msg, "(type struct{") {
			return nil, false
		}
		pe := e.posError
		pe.msg = cmp.Or(said, pe.msg) + " [yaegi: " + words(err) + "]"
		pe.err = err
		return &pe, true
	}
	return nil, false
}

// undefinedMemberError matches Go's error for a package's name that is not there.
var undefinedMemberError = regexp.MustCompile(`^undefined: (\w+)\.(\w+)$`)

// undefinedMember is msg, Go's "undefined: pkg.Name", with the name meant, when pkg is a package
// the session imports from a symbol table: the table lists every name of the package, so the
// name is not there (slices, maps and cmp, whose functions the interpreter compiles from source,
// have empty tables and are not among them). ok is false for anything else.
func (s *Session) undefinedMember(msg string) (said string, ok bool) {
	m := undefinedMemberError.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	s.mu.Lock()
	path := s.imports[m[1]]
	s.mu.Unlock()
	index()
	if len(pkgNames[path]) == 0 {
		return "", false
	}
	return msg + " (" + memberHint(m[1], path, m[2]) + ")", true
}

// memberHint is what follows "undefined: pkg.name" for a package the session imports from path:
// the name meant, else where its names are listed.
func memberHint(pkg, path, name string) string {
	index()
	if near := nearest(name, pkgNames[path]); near != "" {
		return "did you mean " + pkg + "." + near + "?"
	}
	return ":doc " + pkg + " lists its names"
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

// checkedInput is typeCheck of the input being evaluated: its errors, kept for its diagnosis,
// the rewrites go/types' types give and the type arguments it infers (typeCheck).
type checkedInput struct {
	src                string
	errs               []typeError
	rewrites, typeArgs []insert
	vars               map[string]string // the variables statements define at top level → their types as written
}

// typeErrorsOf is typeErrors of src told what the session knows, computed once for the input
// being evaluated (evalInput forgets it): the check before it runs and the wording of yaegi's
// error after it share it.
func (s *Session) typeErrorsOf(src string) []typeError { return s.check(src).errs }

// check is typeCheck of src told what the session knows, computed once for the input being
// evaluated.
func (s *Session) check(src string) *checkedInput {
	if c := s.checked; c == nil || c.src != src {
		errs, rewrites, typeArgs, vars := typeCheck(src, s.known())
		s.checked = &checkedInput{src, errs, rewrites, typeArgs, vars}
	}
	return s.checked
}

// typeErrors is typeCheck's errors.
func typeErrors(src string, k known) []typeError {
	errs, _, _, _ := typeCheck(src, k)
	return errs
}

// typeCheck type-checks src as typed (declarations, else statements) with go/types, told of the
// session what k holds (a declaration or variable src declares again left out) and of the
// packages it imports (gopackages.go), and returns its errors in src in the order of their
// positions, soft ones (unused variables and imports) left out, and the rewrites its types give:
// method values bound when taken and method expressions (methodvalue.go), methods of embedded
// interfaces (embedded.go), min and max (minmax.go), assignments to interfaces and of nil
// (assign.go), deferred calls' arguments (defer.go), values of the session's types given to
// compiled functions (compiledargs.go) and to interfaces (ifacecopy.go), ranges over an int
// (source.go), calls of functions with named results assigned alone (namedresults.go),
// arguments of slices, maps and cmp.Or (stdgeneric.go), ranges over a function (rangefunc.go),
// type parameters named as package-level names (typeargs.go) and values a select sends
// (selectsend.go); the type arguments of calls of its generic functions, for where yaegi fails
// to infer them (typeargs.go); and the types of the variables statements define at top level
// (topVars).
func typeCheck(src string, k known) (errs []typeError, rewrites, typeArgs []insert, vars map[string]string) {
	defer func() {
		if recover() != nil { // a type go/types cannot take: nothing is said, nothing refused
			errs, rewrites, typeArgs, vars = nil, nil, nil, nil
		}
	}()
	_, _, prefix, ok := parseInput(src)
	if !ok {
		return nil, nil, nil, nil
	}
	_, declared := identifiers(src)
	// The session's imports on the package clause's line (so that lines stay src's), less those
	// src imports itself (declarations keep theirs; statements' are blanked, so they join them)
	// and names src declares.
	index()
	imports := map[string]string{}
	for name, p := range k.imports {
		imports[name] = p
	}
	own := map[string]string{}
	if specs, _, ok := splitImports(src); ok {
		for _, sp := range specs {
			if name := cmp.Or(sp.name, pkgName[sp.path]); name != "" && name != "_" && name != "." {
				own[name] = sp.path
			}
		}
	}
	for name, p := range own {
		if prefix == "package main\n" {
			delete(imports, name)
		} else {
			imports[name] = p
		}
	}
	for name := range declared {
		delete(imports, name)
	}
	for name := range k.values { // a variable hides an import of its name
		delete(imports, name)
	}
	for name := range k.vars {
		delete(imports, name)
	}
	for name := range k.decls {
		delete(imports, name)
	}
	fset, f, prefix, ok := parseInputUnder(src, importHead(imports))
	if !ok {
		return nil, nil, nil, nil
	}
	files := []*ast.File{f}
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
	sessionImports := map[string]string{} // the session's declarations see its imports but those they hide
	for name, p := range k.imports {
		if _, isDecl := k.decls[name]; !isDecl && k.vars[name] == "" {
			sessionImports[name] = p
		}
	}
	const session = "session.go"
	var sf *ast.File
	if len(decls) > 0 {
		var err error
		if sf, err = parser.ParseFile(fset, session, importHead(sessionImports)+strings.Join(decls, "\n"), 0); err == nil {
			files = append(files, sf)
		}
	}

	packagesMu.Lock()
	defer packagesMu.Unlock()
	pkg := types.NewPackage("main", "main")
	ambiguous := sessionUnderlyings(fset, sf)
	for name, rt := range k.values {
		if _, isDecl := k.decls[name]; declared[name] || isDecl {
			continue
		}
		if t := tablePkgs.typeOf(rt); !mentions(t, ambiguous) {
			pkg.Scope().Insert(types.NewVar(token.NoPos, pkg, name, t))
		}
	}
	conf := types.Config{Importer: tablePkgs, Error: func(e error) {
		te, is := e.(types.Error)
		// (a soft error is one Go reports and the check goes on after: an unused name, or a
		// name declared again, which the session takes; a range over what cannot be ranged
		// over is soft too, and Go refuses it)
		if !is || te.Soft && !strings.HasPrefix(te.Msg, "cannot range over ") || te.Fset.Position(te.Pos).Filename == session {
			return
		}
		t := typeError{posError{msg: te.Msg}, !strings.HasSuffix(prefix, "func _() {\n")}
		off := fset.Position(te.Pos).Offset - len(prefix)
		if off < 0 || off > len(src) { // in the imports the session put before src
			return
		}
		t.line, t.col = lineCol(src, off)
		errs = append(errs, t)
	}}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Instances: map[*ast.Ident]types.Instance{}, Defs: map[*ast.Ident]types.Object{}}
	_ = types.NewChecker(&conf, fset, pkg, info).Files(files) // errors go to conf.Error
	// the names src can write: the session's imports and its own
	visible := maps.Clone(imports)
	maps.Copy(visible, own)
	in, write := typed{src, prefix, fset, f}, typeWriter(visible)
	opens, closes := deferInserts(in, info, write)
	rewrites = opens
	for _, r := range []func(typed, *types.Info, func(types.Type) (string, bool)) []insert{
		methodValueInserts, methodExprInserts, embeddedInterfaceInserts, minMaxInserts, interfaceAssignInserts, compiledArgInserts, interfaceCopyInserts, intRangeInserts, namedResultCallInserts, stdArgInserts, rangeFuncInserts, typeParamInserts,
	} {
		rewrites = append(rewrites, r(in, info, write)...)
	}
	rewrites = append(rewrites, closes...)
	typeArgs = typeArgInserts(in, info, write)
	rewrites = append(rewrites, selectSendInserts(in, info, append(slices.Clone(rewrites), typeArgs...))...)
	if len(errs) == 0 {
		vars = topVars(in, info, write)
	}
	// in the order of their positions, as Go's compiler lists them
	sort.SliceStable(errs, func(i, j int) bool {
		return errs[i].line < errs[j].line || errs[i].line == errs[j].line && errs[i].col < errs[j].col
	})
	return errs, rewrites, typeArgs, vars
}

// topVars are the variables the statements in (typed at the prompt) define at their top level,
// which become the session's, with their types as write writes them: a variable of a type the
// session declared reflect cannot show (c := Celsius(3) is a float64 to it; ts := []temp{1, 2}
// a []float64) is then known to go/types by the type Go gives it, and its static type stays
// (var e error = f() is an error, whatever f returns). One of a type declared in the statements
// themselves, or one that cannot be written, is left out.
func topVars(in typed, info *types.Info, write func(types.Type) (string, bool)) map[string]string {
	vars := map[string]string{}
	for _, id := range topIdents(typedStmts(in)) {
		v, isVar := info.Defs[id].(*types.Var)
		if !isVar || id.Name == "_" || !packageLevel(v.Type(), 0) {
			continue
		}
		if w, ok := write(v.Type()); ok && !strings.Contains(w, "invalid type") {
			vars[id.Name] = w
		}
	}
	return vars
}

// packageLevel reports whether every named type t is made of is declared at a package's level
// (not in a function, or in the statements typed), and t is no untyped constant's type.
func packageLevel(t types.Type, depth int) bool {
	if depth > 8 {
		return false
	}
	switch t := t.(type) {
	case *types.Basic:
		return t.Info()&types.IsUntyped == 0
	case *types.Named:
		o := t.Obj()
		if o.Pkg() != nil && o.Parent() != o.Pkg().Scope() {
			return false
		}
		for i := range t.TypeArgs().Len() {
			if !packageLevel(t.TypeArgs().At(i), depth+1) {
				return false
			}
		}
		return true
	case *types.Pointer:
		return packageLevel(t.Elem(), depth+1)
	case *types.Slice:
		return packageLevel(t.Elem(), depth+1)
	case *types.Array:
		return packageLevel(t.Elem(), depth+1)
	case *types.Map:
		return packageLevel(t.Key(), depth+1) && packageLevel(t.Elem(), depth+1)
	case *types.Chan:
		return packageLevel(t.Elem(), depth+1)
	case *types.Struct:
		for f := range t.Fields() {
			if !packageLevel(f.Type(), depth+1) {
				return false
			}
		}
		return true
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tup.Variables() {
				if !packageLevel(v.Type(), depth+1) {
					return false
				}
			}
		}
		return true
	case *types.Interface:
		return true
	case *types.Alias:
		return packageLevel(types.Unalias(t), depth+1)
	}
	return false
}

// typeWriter writes a go/types type as the session writes it: its packages by the names the
// session imports them as (imports: name → path), the session's own types by their names; ok is
// false for a type of a package the session has not imported.
func typeWriter(imports map[string]string) func(types.Type) (string, bool) {
	names := map[string]string{} // path → the session's name for it
	for name, p := range imports {
		names[p] = name
	}
	return func(t types.Type) (string, bool) {
		ok := true
		w := types.TypeString(t, func(p *types.Package) string {
			if p.Path() == "main" {
				return ""
			}
			name, found := names[p.Path()]
			ok = ok && found
			return name
		})
		return w, ok
	}
}

// importHead is a package clause with imports (name → path) on its one line.
func importHead(imports map[string]string) string {
	names := make([]string, 0, len(imports))
	for name := range imports {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("package main")
	for _, name := range names {
		fmt.Fprintf(&b, "; import %s %q", name, imports[name])
	}
	b.WriteString("\n")
	return b.String()
}

// sessionUnderlyings are the types the interpreter gives values of the session's named types
// (type Celsius float64: a value of it is a float64 to reflect, []float64 for type Temps
// []Celsius): a variable whose type holds one may be of a session type reflect cannot show, so
// it is not told (var d Celsius = c would be refused as a float64's). sf is the session's
// declarations, checked alone.
func sessionUnderlyings(fset *token.FileSet, sf *ast.File) []types.Type {
	if sf == nil || !slices.ContainsFunc(sf.Decls, func(d ast.Decl) bool {
		g, ok := d.(*ast.GenDecl)
		return ok && g.Tok == token.TYPE
	}) {
		return nil // no session type: nothing to check
	}
	pre := types.NewPackage("main", "main")
	conf := types.Config{Importer: tablePkgs, Error: func(error) {}}
	_ = types.NewChecker(&conf, fset, pre, nil).Files([]*ast.File{sf})
	var out []types.Type
	for _, name := range pre.Scope().Names() {
		if tn, ok := pre.Scope().Lookup(name).(*types.TypeName); ok {
			out = append(out, erase(tn.Type(), 0))
		}
	}
	return out
}

// erase is t with the session's named types replaced by their structure, as the interpreter
// holds them.
func erase(t types.Type, depth int) types.Type {
	if depth > 8 {
		return t
	}
	switch t := t.(type) {
	case *types.Named:
		if p := t.Obj().Pkg(); p != nil && p.Path() == "main" {
			return erase(t.Underlying(), depth+1)
		}
	case *types.Slice:
		return types.NewSlice(erase(t.Elem(), depth+1))
	case *types.Array:
		return types.NewArray(erase(t.Elem(), depth+1), t.Len())
	case *types.Pointer:
		return types.NewPointer(erase(t.Elem(), depth+1))
	case *types.Map:
		return types.NewMap(erase(t.Key(), depth+1), erase(t.Elem(), depth+1))
	case *types.Chan:
		return types.NewChan(t.Dir(), erase(t.Elem(), depth+1))
	}
	return t
}

// mentions reports whether t, or a part of it outside a package's named type, is identical to
// one of ts.
func mentions(t types.Type, ts []types.Type) bool {
	for _, u := range ts {
		if types.Identical(t, u) {
			return true
		}
	}
	switch t := t.(type) {
	case *types.Slice:
		return mentions(t.Elem(), ts)
	case *types.Array:
		return mentions(t.Elem(), ts)
	case *types.Pointer:
		return mentions(t.Elem(), ts)
	case *types.Map:
		return mentions(t.Key(), ts) || mentions(t.Elem(), ts)
	case *types.Chan:
		return mentions(t.Elem(), ts)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := 0; i < tup.Len(); i++ {
				if mentions(tup.At(i).Type(), ts) {
					return true
				}
			}
		}
	}
	return false
}
