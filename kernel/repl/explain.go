package repl

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// yaegi's errors about a value, said as Go says them, with what the value has.
//
// For r.Experiment where r's type has no such field or method, yaegi says "undefined method:
// Experiment" (or "undefined selector: B", "undefined selector B"); Go says "r.Experiment
// undefined (type *paper.Result has no field or method Experiment)". For eqflib.NoSuch yaegi
// says `package eqflib "…/eqflib" has no symbol NoSuch` (in a declaration "undefined selector
// …/eqflib.NoSuch"), Go "undefined: eqflib.NoSuch". yaegi
// leaves a method's name out of "not enough arguments in call to " and a function's out of
// "assignment mismatch: 2 variables but  returns 1 values" (Go: "but c.Tokens returns 1 value";
// yaegi names a function, "1 values" still), says "too many arguments" without
// naming the call, and for a method value given an argument too many, "cannot convert untyped
// int to eqflib.DiTConfig" (its receiver's type). Calling a value that is no function and
// indexing past a slice's end panic in reflect's words ("reflect: call of reflect.Value.Call
// on struct Value", "reflect: slice index out of range"). The session says each as Go does and
// adds what a researcher exploring a value wants next: for a name not there, the one spelled
// alike (Go's "but does have field Name"), else the nearest ("did you mean Depth?"), else the
// type's fields and methods; for a call, the parameters it wants; for an index, the length.
//
// A value's type is read from the value, which the session evaluates again only where that
// runs nothing: a name, or fields, indexes and dereferences of one, with no name in it that the
// input declares itself (a loop's variable is not the session's variable of that name).

var (
	undefinedSelector = regexp.MustCompile(`^undefined (?:method|selector):? (\w+)$`)
	noSymbol          = regexp.MustCompile(`^package (\w+) "[^"]+" has no symbol (\w+)$`)
	pathSelector      = regexp.MustCompile(`^undefined selector:? (\w[\w.-]*/[\w./-]+)\.(\w+)$`)
	shortCall         = regexp.MustCompile(`^not enough arguments in call to (\S*)$`)
	nameless          = regexp.MustCompile(`^assignment mismatch: (\d+) variables? but (?:\S+ | ?)returns (\d+) values?$`)
	longCall          = regexp.MustCompile(`^(too many arguments|cannot convert .* to .*|cannot use .*)$`)
	nonFunction       = regexp.MustCompile(`^panic: reflect: call of reflect\.Value\.Call on \w+ Value$`)
	pastEnd           = regexp.MustCompile(`^panic: reflect: (slice|array|string) index out of range$`)
)

// explain returns err said as Go says it when it is one of the errors above (ok), at the
// position err has in src (what was typed), else at the expression it is about; a panic keeps
// its word and names the expression instead (something ran before it).
func (s *Session) explain(ctx context.Context, src string, err error) (error, bool) {
	msg := msgOf(err)
	var pkg, name, path string
	if m := noSymbol.FindStringSubmatch(msg); m != nil {
		pkg, name = m[1], m[2]
		s.mu.Lock()
		path = s.imports[pkg]
		s.mu.Unlock()
	} else if m := pathSelector.FindStringSubmatch(msg); m != nil { // the same, in a declaration
		path, name = m[1], m[2]
		s.mu.Lock()
		for n, p := range s.imports {
			if p == path {
				pkg = n
			}
		}
		s.mu.Unlock()
	}
	if pkg != "" {
		return restate(err, fmt.Sprintf("undefined: %s.%s (%s) [yaegi: %s]", pkg, name, memberHint(pkg, path, name), msg)), true
	}
	in, ok := parseTyped(src)
	if !ok {
		return err, false
	}
	for _, say := range []func(context.Context, typed, error, string) (string, ast.Node){
		s.saySelector, s.sayShortCall, s.sayLongCall, s.sayMismatch, s.sayNonFunction, s.sayPastEnd, sayErrorsAs,
		s.sayInferred,
	} {
		said, at := say(ctx, in, err, msg)
		switch {
		case said == "":
			continue
		case strings.HasPrefix(said, msg+" (") && strings.HasPrefix(msg, "panic: "): // a panic, with a hint
			return restate(err, said), true
		case strings.HasPrefix(said, msg+" ("): // yaegi's words with a hint after them
			return in.restate(err, at, said), true
		case strings.HasPrefix(said, "panic: "):
			return restate(err, said+" [yaegi: "+strings.TrimPrefix(msg, "panic: ")+"]"), true
		}
		return in.restate(err, at, said+" [yaegi: "+msg+"]"), true
	}
	return err, false
}

// saySelector: x.Name where x's type has no field or method Name.
func (s *Session) saySelector(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	m := undefinedSelector.FindStringSubmatch(msg)
	if m == nil {
		return "", nil
	}
	sel, _ := in.find(err, func(n ast.Node) bool {
		e, is := n.(*ast.SelectorExpr)
		return is && e.Sel.Name == m[1]
	}).(*ast.SelectorExpr)
	if sel == nil {
		return "", nil
	}
	if t, ok := s.typeOf(ctx, in, sel.X, 0); ok {
		if d := s.describe(t); d.name != "" {
			return fmt.Sprintf("%s undefined (type %s has no field or method %s%s)", in.text(sel), d.name, m[1], d.hint(m[1])), sel
		}
	}
	// What go/types finds wrong with the operand itself is what Go says: zoo.Open("x").Load is
	// a call of two results in a single-value context, not a value without Load.
	if line, col := lineCol(in.src, in.offset(sel.X.Pos())); !s.dotImport {
		for _, e := range s.typeErrorsOf(in.src) {
			if e.line == line && e.col == col && !unknownName(e.msg) {
				return e.msg, sel.X
			}
		}
	}
	return fmt.Sprintf("%s undefined (no field or method %s)", in.text(sel), m[1]), sel
}

// sayShortCall: a call with too few arguments, the function named, with what it wants.
func (s *Session) sayShortCall(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	m := shortCall.FindStringSubmatch(msg)
	if m == nil {
		return "", nil
	}
	call, _ := in.find(err, func(n ast.Node) bool {
		c, is := n.(*ast.CallExpr)
		return is && (m[1] == "" || in.text(c.Fun) == m[1])
	}).(*ast.CallExpr)
	if call == nil {
		return "", nil
	}
	said := "not enough arguments in call to " + in.text(call.Fun)
	if v, ok := s.valueOf(ctx, in, call.Fun); ok && v.Kind() == reflect.Func {
		said += ": want " + params(v.Type())
	}
	return said, call
}

// sayLongCall: a call with an argument too many (the error is at that argument).
func (s *Session) sayLongCall(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	at, placed := err.(*posError)
	if !longCall.MatchString(msg) || !placed || at.line == 0 {
		return "", nil
	}
	want, _ := offsetOf(in.src, at.line, at.col)
	var call *ast.CallExpr
	ast.Inspect(in.root, func(n ast.Node) bool {
		if c, is := n.(*ast.CallExpr); is {
			for _, a := range c.Args {
				if in.offset(a.Pos()) == want {
					call = c // (the innermost: visited last)
				}
			}
		}
		return true
	})
	if call == nil {
		return "", nil
	}
	said := "too many arguments in call to " + in.text(call.Fun)
	if v, ok := s.valueOf(ctx, in, call.Fun); ok && v.Kind() == reflect.Func {
		if t := v.Type(); t.IsVariadic() || len(call.Args) <= t.NumIn() {
			return "", nil // not too many: yaegi's words stand
		}
		return fmt.Sprintf("%s: %d given, want %s", said, len(call.Args), params(v.Type())), call
	}
	if msg != "too many arguments" {
		return "", nil // a conversion error that may be one
	}
	return said, call
}

// sayMismatch: an assignment of a call's results, the function named as Go names it (yaegi
// names no method).
func (s *Session) sayMismatch(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	m := nameless.FindStringSubmatch(msg)
	if m == nil {
		return "", nil
	}
	var call *ast.CallExpr
	ast.Inspect(in.root, func(n ast.Node) bool {
		var rhs []ast.Expr
		switch x := n.(type) {
		case *ast.AssignStmt:
			rhs = x.Rhs
		case *ast.ValueSpec:
			rhs = x.Values
		}
		if len(rhs) == 1 && call == nil {
			if c, is := unparen(rhs[0]).(*ast.CallExpr); is && strconv.Itoa(len(lhsOf(n))) == m[1] {
				call = c
			}
		}
		return true
	})
	if call == nil {
		return "", nil
	}
	return fmt.Sprintf("assignment mismatch: %s variable%s but %s returns %s value%s", m[1], plural(m[1]), in.text(call.Fun), m[2], plural(m[2])), call
}

// sayInferred: a call of a generic function declared in the session, without its type
// arguments, that fails to type-check: yaegi v0.16.1 infers them wrongly where they differ
// (Map([]int{1}, func(int) string {…}) reads "cannot use type func(int) string as type func(int)
// int"), and takes them when given.
//
// And one that yaegi cannot infer at all ("undefined type for T": from a variadic argument,
// sum(1, 2, 3) of sum[T int | float64](xs ...T)), where Go can. (Where go/types knows them the
// input has run again with them written out, typeargs.go: this is what is left.)
func (s *Session) sayInferred(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	uninferred := uninferredParam.MatchString(msg)
	if !strings.HasPrefix(msg, "cannot use ") && !uninferred {
		return "", nil
	}
	off := -1 // where err is, if it says (a declaration run in two steps does not)
	if at, placed := err.(*posError); placed && at.line > 0 {
		off, _ = offsetOf(in.src, at.line, at.col)
	}
	generics := maps.Clone(s.generics) // the session's, and those the input declares (a file)
	ast.Inspect(in.root, func(n ast.Node) bool {
		if fd, is := n.(*ast.FuncDecl); is {
			if names := typeParamNames(fd); names != nil {
				generics[fd.Name.Name] = names
			}
		}
		return true
	})
	var call *ast.CallExpr
	var params []string
	ast.Inspect(in.root, func(n ast.Node) bool {
		c, is := n.(*ast.CallExpr)
		if !is || off >= 0 && (off < in.offset(c.Pos()) || off >= in.offset(c.End())) || off < 0 && call != nil {
			return true
		}
		if id, isName := c.Fun.(*ast.Ident); isName && generics[id.Name] != nil {
			call, params = c, generics[id.Name] // (around err: the innermost, visited last)
		}
		return true
	})
	where := "here"
	if call == nil && uninferred { // err is in the function's body (a file): the first call of it
		param := strings.TrimPrefix(msg, "undefined type for ")
		ast.Inspect(in.root, func(n ast.Node) bool {
			if c, is := n.(*ast.CallExpr); is && call == nil {
				if id, isName := c.Fun.(*ast.Ident); isName && slices.Contains(generics[id.Name], param) {
					call, params = c, generics[id.Name]
				}
			}
			return call == nil
		})
		if call != nil {
			line, col := lineCol(in.src, in.offset(call.Pos()))
			where = fmt.Sprintf("in %s at %d:%d", in.text(call), line, col)
		}
	}
	if call == nil {
		return "", nil
	}
	name := in.text(call.Fun)
	if uninferred {
		return fmt.Sprintf("%s (yaegi v0.16.1 cannot infer %s's type parameters %s, where Go can: write them out, %s[%s](…))", msg, name, where, name, strings.Join(params, ", ")), call
	}
	return fmt.Sprintf("%s (yaegi v0.16.1 infers %s's type parameters wrongly here: write them out, %s[%s](…))", msg, name, name, strings.Join(params, ", ")), call
}

// uninferredParam is yaegi's error for a type parameter it could not infer.
var uninferredParam = regexp.MustCompile(`^undefined type for \w+$`)

// lhsOf is an assignment's or a var declaration's left side.
func lhsOf(n ast.Node) []ast.Expr {
	switch x := n.(type) {
	case *ast.AssignStmt:
		return x.Lhs
	case *ast.ValueSpec:
		out := make([]ast.Expr, len(x.Names))
		for i, id := range x.Names {
			out[i] = id
		}
		return out
	}
	return nil
}

func plural(n string) string {
	if n == "1" {
		return ""
	}
	return "s"
}

// sayNonFunction: a call of a value that is no function (Go does not compile it; yaegi runs
// up to it).
func (s *Session) sayNonFunction(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	if !nonFunction.MatchString(msg) {
		return "", nil
	}
	var said string
	var at ast.Node
	ast.Inspect(in.root, func(n ast.Node) bool {
		if c, is := n.(*ast.CallExpr); is && said == "" {
			if v, ok := s.valueOf(ctx, in, c.Fun); ok && v.Kind() != reflect.Func {
				said, at = fmt.Sprintf("panic: cannot call non-function %s (of type %s)", in.text(c.Fun), v.Type()), c
			}
		}
		return true
	})
	return said, at
}

// sayPastEnd: an index past a slice's, array's or string's end, with the index and the length
// as Go's runtime gives them.
func (s *Session) sayPastEnd(ctx context.Context, in typed, err error, msg string) (string, ast.Node) {
	if !pastEnd.MatchString(msg) {
		return "", nil
	}
	var said string
	var at ast.Node
	ast.Inspect(in.root, func(n ast.Node) bool {
		ix, is := n.(*ast.IndexExpr)
		if !is || said != "" {
			return true
		}
		x, ok1 := s.valueOf(ctx, in, ix.X)
		i, ok2 := s.valueOf(ctx, in, ix.Index)
		if !ok1 || !ok2 || !i.CanInt() {
			return true
		}
		switch x.Kind() {
		case reflect.Slice, reflect.Array, reflect.String:
			if k := i.Int(); k < 0 || k >= int64(x.Len()) {
				said, at = fmt.Sprintf("panic: runtime error: index out of range [%d] with length %d, in %s", k, x.Len(), in.text(ix)), ix
			}
		}
		return true
	})
	return said, at
}

// sayErrorsAs: errors.As with a target of a type the session declared, whose Error method the
// interpreter holds itself, so errors' reflection finds none ("errors: *target must be interface
// or implement error", or where the error itself is of that type "reflect: Call using struct {
// Xline int } as type error"); errors.Is does not find such an error in a chain either,
// errors.Unwrap of one fmt.Errorf wrapped returns nil, and a type assertion of an error to such a
// type fails or panics (TestKnownYaegiGaps). Sentinel errors of errors.New work.
func sayErrorsAs(_ context.Context, in typed, _ error, msg string) (string, ast.Node) {
	if msg != "panic: errors: *target must be interface or implement error" && !sessionErrorCall.MatchString(msg) {
		return "", nil
	}
	var at ast.Node
	ast.Inspect(in.root, func(n ast.Node) bool {
		if c, is := n.(*ast.CallExpr); is && at == nil {
			at = c // the first call: errors.As in what was typed, the file's main in a file
		}
		return at == nil
	})
	if at == nil {
		return "", nil
	}
	return msg + " (yaegi v0.16.1 does not see error types declared in this session: errors.As, errors.Is and type assertions to them fail; use sentinel errors, var ErrX = errors.New(…), with errors.Is, or read err.Error())", at
}

// sessionErrorCall is reflect's panic where a value of a struct type the session declared was
// passed to a package as an error (errors.As(err, &p) of an err holding one).
var sessionErrorCall = regexp.MustCompile(`^panic: reflect: Call using \*?struct \{.*\} as type error$`)

// restate is a new message for err at err's position, or at n's where err has none (its
// source was the session's: a declaration run in two steps).
func (in typed) restate(err error, n ast.Node, msg string) error {
	pe := restate(err, msg).(*posError)
	if pe.line == 0 {
		pe.line, pe.col = lineCol(in.src, in.offset(n.Pos()))
	}
	return pe
}

// typed is an input parsed: its source, and its syntax tree with positions in a file that
// starts with prefix.
type typed struct {
	src, prefix string
	fset        *token.FileSet
	root        ast.Node
}

func parseTyped(src string) (typed, bool) {
	fset, root, prefix, ok := parseInput(src)
	return typed{src, prefix, fset, root}, ok
}

// offset is pos's byte offset in the input.
func (in typed) offset(pos token.Pos) int { return in.fset.Position(pos).Offset - len(in.prefix) }

// span is where n is in what was typed, [from, end); ok is false for a node outside it (in the
// head the session put before it).
func (in typed) span(n ast.Node) (from, end int, ok bool) {
	from, end = in.offset(n.Pos()), in.offset(n.End())
	return from, end, from >= 0 && end <= len(in.src)
}

// text is n as typed.
func (in typed) text(n ast.Node) string { return in.src[in.offset(n.Pos()):in.offset(n.End())] }

// find is the node match holds for that starts at err's position, else the first it holds
// for; nil where there is none.
func (in typed) find(err error, match func(ast.Node) bool) ast.Node {
	want := -1
	if at, ok := err.(*posError); ok && at.line > 0 {
		want, _ = offsetOf(in.src, at.line, at.col)
	}
	var first, there ast.Node
	ast.Inspect(in.root, func(n ast.Node) bool {
		if n != nil && match(n) {
			if first == nil {
				first = n
			}
			if there == nil && in.offset(n.Pos()) == want {
				there = n
			}
		}
		return true
	})
	if there != nil {
		return there
	}
	return first
}

// valueOf evaluates e where that runs nothing (see above): its value, the value held where
// its type is an interface.
func (s *Session) valueOf(ctx context.Context, in typed, e ast.Expr) (reflect.Value, bool) {
	if !inert(e) {
		return reflect.Value{}, false
	}
	_, declared := identifiers(in.src)
	own := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(x.X, func(m ast.Node) bool { // (x.Sel names a field, not a variable)
				id, is := m.(*ast.Ident)
				own = own || is && declared[id.Name]
				return true
			})
			return false
		case *ast.Ident:
			own = own || declared[x.Name]
		}
		return true
	})
	if own {
		return reflect.Value{}, false // a name the input declares: its own, not the session's
	}
	v, err := s.eval(ctx, in.text(e))
	if err != nil || !v.IsValid() {
		return reflect.Value{}, false
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	return v, true
}

// typeOf is e's type where e is made of names, fields, dereferences, indexes and slices (none
// evaluated but inert ones, see above) and its names are the session's or variables of the
// input's range loops, whose types come from their range expression's type, so that
// `for _, n := range r.Numbers[1:] { _ = n.Mean }` names n's type without running anything.
func (s *Session) typeOf(ctx context.Context, in typed, e ast.Expr, depth int) (reflect.Type, bool) {
	if depth > 16 {
		return nil, false
	}
	if v, ok := s.valueOf(ctx, in, e); ok {
		return v.Type(), true
	}
	var t reflect.Type
	switch x := e.(type) {
	case *ast.ParenExpr:
		return s.typeOf(ctx, in, x.X, depth+1)
	case *ast.Ident:
		loop, key := in.rangeOf(x)
		if loop == nil {
			return nil, false
		}
		if c, is := loop.X.(*ast.CallExpr); is && key && isIdent(c.Fun, "__ints") {
			return reflect.TypeFor[int](), true // a range over an integer, rewritten (source.go)
		}
		if t, ok := s.typeOf(ctx, in, loop.X, depth+1); ok {
			return rangeElem(t, key)
		}
	case *ast.SelectorExpr:
		if t, _ = s.typeOf(ctx, in, x.X, depth+1); t == nil {
			return nil, false
		}
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			for _, name := range []string{x.Sel.Name, "X" + x.Sel.Name} { // (a session type's field n is Xn)
				if f, ok := t.FieldByName(name); ok {
					return f.Type, true
				}
			}
		}
	case *ast.StarExpr:
		if t, _ = s.typeOf(ctx, in, x.X, depth+1); t != nil && t.Kind() == reflect.Pointer {
			return t.Elem(), true
		}
	case *ast.IndexExpr: // (the index is not evaluated: the type needs only x.X's)
		if t, _ = s.typeOf(ctx, in, x.X, depth+1); t != nil && t.Kind() != reflect.String {
			return rangeElem(t, false)
		}
	case *ast.SliceExpr:
		if t, _ = s.typeOf(ctx, in, x.X, depth+1); t == nil {
			return nil, false
		}
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Array:
			return reflect.SliceOf(t.Elem()), true
		case reflect.Slice, reflect.String:
			return t, true
		}
	}
	return nil, false
}

// rangeOf is the range loop of the input that declares id (where id is in its body), the
// innermost where loops nest, and whether id is its key (else its value).
func (in typed) rangeOf(id *ast.Ident) (loop *ast.RangeStmt, key bool) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		r, is := n.(*ast.RangeStmt)
		if !is || r.Tok != token.DEFINE || id.Pos() < r.Body.Pos() || id.Pos() >= r.Body.End() {
			return true
		}
		for i, v := range []ast.Expr{r.Key, r.Value} {
			if v, is := v.(*ast.Ident); is && v.Name == id.Name {
				loop, key = r, i == 0
			}
		}
		return true
	})
	return loop, key
}

// rangeElem is the type of a range loop's key (key) or value over a value of type t, as Go's
// spec gives it; false where it is an interface (the type a value holds is not known) or t
// cannot be ranged over.
func rangeElem(t reflect.Type, key bool) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Array {
		t = t.Elem()
	}
	var e reflect.Type
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		e = t.Elem()
		if key {
			e = reflect.TypeFor[int]()
		}
	case reflect.Map:
		e = t.Elem()
		if key {
			e = t.Key()
		}
	case reflect.String:
		e = reflect.TypeFor[rune]()
		if key {
			e = reflect.TypeFor[int]()
		}
	case reflect.Chan:
		e = t.Elem()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e = t
	default:
		return nil, false
	}
	return e, e.Kind() != reflect.Interface
}

// inert reports whether evaluating e runs nothing: a literal, a name, fields and dereferences
// of one, indexes by a literal or a name.
func inert(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		return inert(x.X)
	case *ast.StarExpr:
		return inert(x.X)
	case *ast.ParenExpr:
		return inert(x.X)
	case *ast.IndexExpr:
		switch x.Index.(type) {
		case *ast.BasicLit, *ast.Ident:
			return inert(x.X)
		}
	}
	return false
}

// typeInfo is a type as Go names it, what it has, and the :doc argument that describes it ("" if
// none).
type typeInfo struct {
	name, doc       string
	fields, methods []string
}

// describe is t as Go names it: a compiled type's name, fields and methods; for the unnamed
// struct type the interpreter made of a type declared in the session, that type's name, fields
// and methods as its source has them (the type declared with these fields; where two are, the
// struct type itself, without a list).
func (s *Session) describe(t reflect.Type) typeInfo {
	st, star := t, ""
	if st.Kind() == reflect.Pointer {
		st, star = st.Elem(), "*"
	}
	if st.Kind() == reflect.Struct && st.Name() == "" && st.PkgPath() == "" {
		var fields []string
		for i := 0; i < st.NumField(); i++ {
			fields = append(fields, unexported(st.Field(i).Name))
		}
		var found typeInfo
		for name, d := range s.types {
			if slices.Equal(d.fields, fields) {
				if found.name != "" {
					return typeInfo{name: t.String()} // two alike: which is unknown
				}
				found = typeInfo{name: star + name, fields: d.fields, methods: d.methods}
			}
		}
		if found.name != "" {
			return found
		}
	}
	d := typeInfo{name: t.String()}
	d.fields, d.methods = members(t)
	if pkg, _, ok := strings.Cut(st.String(), "."); ok && st.Name() != "" {
		s.mu.Lock()
		_, imported := s.imports[pkg]
		s.mu.Unlock()
		if imported {
			d.doc = st.String()
		}
	}
	return d
}

// unexported is a field's name as declared: the interpreter exports a field it makes by putting
// "X" before its name (a field n reads Xn).
func unexported(name string) string {
	if len(name) > 1 && name[0] == 'X' && unicode.IsLower(rune(name[1])) {
		return name[1:]
	}
	return name
}

// sessionType is a struct type declared in the session: its fields and methods as declared.
type sessionType struct{ fields, methods []string }

// noteTypes records the struct types and the methods src declares at top level.
func (s *Session) noteTypes(src string) {
	_, f, prefix, ok := parseInput(src)
	if !ok || prefix != "package main\n" { // statements: nothing declared at top level
		return
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				ts, isType := sp.(*ast.TypeSpec)
				if !isType {
					continue
				}
				st, isStruct := ts.Type.(*ast.StructType)
				if !isStruct {
					delete(s.types, ts.Name.Name)
					continue
				}
				t := &sessionType{}
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						t.fields = append(t.fields, n.Name)
					}
					if len(fl.Names) == 0 { // embedded: named by its type
						t.fields = append(t.fields, embeddedName(fl.Type))
					}
				}
				s.types[ts.Name.Name] = t
			}
		case *ast.FuncDecl:
			if names := typeParamNames(d); names != nil {
				s.generics[d.Name.Name] = names
				continue
			}
			delete(s.generics, d.Name.Name)
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			recv := d.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && s.types[id.Name] != nil {
				t := s.types[id.Name]
				if !slices.Contains(t.methods, d.Name.Name) {
					t.methods = append(t.methods, d.Name.Name)
					sort.Strings(t.methods)
				}
			}
		}
	}
}

// embeddedName is the field name of an embedded type: T, *T, pkg.T.
func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// hint is what d has instead of name: ", but does have field Name" (Go's words, for a name
// spelled alike but for case), "; did you mean Depth?" (the nearest name), else its fields and
// methods and where to read about them.
func (d typeInfo) hint(name string) string {
	fields, methods := d.fields, d.methods
	all := append(append([]string(nil), fields...), methods...)
	for _, f := range fields {
		if strings.EqualFold(f, name) {
			return ", but does have field " + f
		}
	}
	for _, m := range methods {
		if strings.EqualFold(m, name) {
			return ", but does have method " + m
		}
	}
	if near := nearest(name, all); near != "" {
		return "; did you mean " + near + "?"
	}
	if len(all) == 0 {
		return ""
	}
	hint := "; it has"
	if len(fields) > 0 {
		hint += " fields " + list(fields)
	}
	if len(methods) > 0 {
		if len(fields) > 0 {
			hint += " and"
		}
		hint += " methods " + list(methods)
	}
	if d.doc != "" {
		hint += " (:doc " + d.doc + ")"
	}
	return hint
}

// members lists t's exported fields (promoted ones too) in order and its methods, those of a
// pointer to it too, sorted.
func members(t reflect.Type) (fields, methods []string) {
	st := t
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if st.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(st) {
			if f.IsExported() && !(f.Anonymous && len(f.Index) == 1 && f.Type.Kind() != reflect.Struct && f.Type.Kind() != reflect.Pointer) {
				fields = append(fields, f.Name)
			}
		}
	}
	mt := t
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		mt = reflect.PointerTo(t)
	}
	for i := 0; i < mt.NumMethod(); i++ {
		methods = append(methods, mt.Method(i).Name)
	}
	sort.Strings(methods)
	return fields, methods
}

// list joins names with commas, the first 12 and "…" after them.
func list(names []string) string {
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

// nearest is the name in names at the least edit distance from name, where that distance is at
// most 2 and at most half name's length; "" where none is.
func nearest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD && 2*d <= len(name) {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// params is a function type's parameters as Go writes them: (float64, ...int).
func params(t reflect.Type) string {
	var ps []string
	for i := 0; i < t.NumIn(); i++ {
		if t.IsVariadic() && i == t.NumIn()-1 {
			ps = append(ps, "..."+t.In(i).Elem().String())
		} else {
			ps = append(ps, t.In(i).String())
		}
	}
	return "(" + strings.Join(ps, ", ") + ")"
}

// isIdent reports whether e is the name name.
func isIdent(e ast.Expr, name string) bool {
	id, is := e.(*ast.Ident)
	return is && id.Name == name
}

// typeParamNames are the type parameters of fd, a generic function (not a method); nil for any
// other function.
func typeParamNames(fd *ast.FuncDecl) []string {
	if fd.Recv != nil || fd.Type.TypeParams == nil {
		return nil
	}
	var names []string
	for _, f := range fd.Type.TypeParams.List {
		for _, id := range f.Names {
			names = append(names, id.Name)
		}
	}
	return names
}
