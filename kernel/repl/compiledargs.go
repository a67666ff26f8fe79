package repl

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"log"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// A value of a session's type given to a compiled function. A compiled (Go) function cannot
// call an interpreted method, so yaegi v0.16.1 gives it a value of a type the session declared
// with methods in a wrapper, a struct of Go functions that call them, made for the interface the
// parameter asks for; for a parameter of type any, for the interfaces listed for that function
// (yaegi lists fmt.Stringer and fmt.Formatter for fmt's printing functions). Four gaps follow,
// each mended here:
//
//   - A call's result is passed bare, without the wrapper, where a variable or an expression in
//     parentheses is wrapped: with type M int and a method String, fmt.Println(mk()) printed 1
//     (Go: M!), fmt.Printf("%v", mkp()) of a struct {2}, fmt.Println(mkq()) of a pointer &{3},
//     and sort.Sort(mkb()) of a sort.Interface the session declared panicked ("reflect: Call
//     using []string as type sort.Interface"); the REPL prints an expression typed alone
//     through a compiled function, so mk() at the prompt printed 1 too. Where go/types knows
//     the call's type, the session puts such an argument in parentheses (compiledArgInserts).
//   - yaegi lists no interface for log.Print, log.Printf and log.Println, nor error for fmt's
//     functions: log.Println(m) printed 1, and fmt.Println(e) of a session's error type its
//     fields ({5}, Go: its Error()); fmt.Errorf("w: %w", e) wrapped nothing. The session lists
//     fmt.Formatter, error and fmt.Stringer (the order in which Go's fmt looks for them) for
//     fmt's and log's printing functions (stdlibSymbols).
//   - The verbs that do not call String format the wrapper: with type Phase int, its constants
//     and a String method, fmt.Printf("%d", Test) printed {2 5293088} (Go: 2), %#v
//     stdlib._fmt_Stringer{IValue:2, …}. An argument of a Printf-like function (a compiled
//     function whose name ends in f, taking a format string and then ...any) of such a type
//     whose underlying type is a number, a string or a bool, without a Format method, that only
//     such verbs read (%d, %f, %c, …; %#v where it has no GoString method) is given as its
//     underlying type, which they format as Go formats it: int(Test).
//   - A slice, array or map of such values is given as it is, its elements without their
//     methods: fmt.Println(ts) of a []temp printed [1 2] for [1.0°C 2.0°C], of pointers their
//     addresses. Given to fmt's and log's printing functions (or typed alone at the prompt) with
//     verbs that call String, it is given as a slice or map of fmt.Stringer or error values
//     (printedElems).
//
// The verbs a Printf-like call's arguments are read by come from its format where it is a
// constant (formatVerbs); a call's result is put in parentheses only where the verbs that read
// it call String or Error (%v, %s, %q, %x, %X, %w; not %#v). Where a format is not a constant,
// a call's result stays bare and a variable wrapped; %T of a variable reads the wrapper's type
// (stdlib._fmt_Stringer), and an argument both kinds of verbs read stays as typed
// (TestKnownYaegiGaps). A call's result given to a function the session declared as an any
// stays bare too (ifacecopy.go puts one given as an interface with methods in parentheses): in
// parentheses it made yaegi panic (func show(v any) string; s := show((mk()))), where bare it
// reads 1, a gap pinned in TestKnownYaegiGaps.

// compiledArgInserts are the texts that put in parentheses each call's result of a type the
// session declared with methods given as an interface argument of a compiled package's function,
// or typed alone at the prompt (the REPL prints it through one), and that give a Printf-like
// function's argument read only by verbs that do not call its methods as its underlying type,
// from go/types' types (info); write writes the underlying types.
func compiledArgInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	wrap := func(e ast.Expr, to types.Type) {
		if !methodful(info, e, to) {
			return
		}
		if from, end, inside := in.span(e); inside {
			inserts = append(inserts, insert{from, "("}, insert{end, ")"})
		}
	}
	// an interface value, or a slice, array or map of values, with String or Error, given to be
	// printed
	printed := func(e ast.Expr) {
		conv, ok := printedIface(info, e, write)
		if !ok {
			conv, ok = printedElems(info, e, write)
		}
		if from, end, inside := in.span(e); ok && inside {
			inserts = append(inserts, insert{from, conv + "("}, insert{end, ")"})
		}
	}
	if e := aloneExpr(in); e != nil {
		wrap(e, types.Universe.Lookup("any").Type())
		printed(e)
	}
	ast.Inspect(in.root, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || c.Ellipsis.IsValid() {
			return true
		}
		sig, compiled := compiledCallee(info, c)
		if !compiled {
			return true
		}
		verbs, printf, read := printfVerbs(info, c, sig)
		prints := printing(info, c)
		for i, arg := range c.Args {
			p := paramType(sig, i)
			if _, isParam := p.(*types.TypeParam); p == nil || isParam || !types.IsInterface(p) {
				continue
			}
			if k := i - (sig.Params().Len() - 1); printf && k >= 0 { // its place after the format
				if !read {
					continue
				}
				if !onlyMethodVerbs(verbs[k]) {
					if conv, ok := plainVerbsType(info, arg, verbs[k], write); ok {
						from, end, inside := in.span(arg)
						if inside {
							inserts = append(inserts, insert{from, conv + "("}, insert{end, ")"})
						}
					}
					continue
				}
			}
			if prints {
				printed(arg)
			}
			wrap(arg, p)
		}
		return true
	})
	return inserts
}

// onlyMethodVerbs reports whether the verbs that read an argument (formatVerbs) all call its
// String or Error method (%v, %s, %q, %x, %X, %w): none where none reads it (%!(EXTRA …), by
// %v).
func onlyMethodVerbs(verbs []rune) bool {
	return !slices.ContainsFunc(verbs, func(v rune) bool { return !strings.ContainsRune("vsqxXw", v) })
}

// printing reports whether c calls one of fmt's or log's functions that print their arguments
// (printers).
func printing(info *types.Info, c *ast.CallExpr) bool {
	sel, ok := unparen(c.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	_, found := printers[fn.Pkg().Path()+"."+fn.Name()]
	return found
}

// printers are fmt's and log's functions that print their arguments, by package and name.
var printers = map[string]any{
	"fmt.Append": fmt.Append, "fmt.Appendf": fmt.Appendf, "fmt.Appendln": fmt.Appendln, "fmt.Errorf": fmt.Errorf,
	"fmt.Fprint": fmt.Fprint, "fmt.Fprintf": fmt.Fprintf, "fmt.Fprintln": fmt.Fprintln, "fmt.Print": fmt.Print,
	"fmt.Printf": fmt.Printf, "fmt.Println": fmt.Println, "fmt.Sprint": fmt.Sprint, "fmt.Sprintf": fmt.Sprintf,
	"fmt.Sprintln": fmt.Sprintln, "log.Fatal": log.Fatal, "log.Fatalf": log.Fatalf, "log.Fatalln": log.Fatalln,
	"log.Panic": log.Panic, "log.Panicf": log.Panicf, "log.Panicln": log.Panicln, "log.Print": log.Print,
	"log.Printf": log.Printf, "log.Println": log.Println,
}

// printedElems is the function literal that gives e, a slice, array or map (not a type with
// methods of its own) of a type the session declared, or pointers to one, with String or Error,
// as a slice or map of error or fmt.Stringer values, each a copy (ifacecopy.go), which fmt
// prints by their methods as it prints e's in Go: yaegi gave fmt the elements without their
// methods, and []Run{…} printed their fields. ok is false for any other e, and where a type
// cannot be written (fmt.Stringer where the session has not imported fmt).
func printedElems(info *types.Info, e ast.Expr, write func(types.Type) (string, bool)) (conv string, ok bool) {
	t := info.TypeOf(e)
	if t == nil {
		return "", false
	}
	if fmtMethods(t) {
		return "", false // (printed by its own method)
	}
	var elem, key types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		elem, key = u.Elem(), u.Key()
	default:
		return "", false
	}
	if !sessionMethods(elem) {
		return "", false
	}
	iface, ok := printedAs(elem, write)
	if !ok {
		return "", false
	}
	ws, okS := write(t)
	we, okE := write(elem)
	if !okS || !okE {
		return "", false
	}
	copyOf := copyFunc(we, iface, types.IsInterface(elem))
	if key == nil {
		return "func(__s " + ws + ") []" + iface + " { __o := make([]" + iface + ", len(__s)); for __i := range __s { __o[__i] = " +
			copyOf + "(__s[__i]) }; return __o }", true
	}
	wk, okK := write(key)
	if !okK {
		return "", false
	}
	return "func(__s " + ws + ") map[" + wk + "]" + iface + " { __o := make(map[" + wk + "]" + iface + ", len(__s)); for __k, __e := range __s { __o[__k] = " +
		copyOf + "(__e) }; return __o }", true
}

// printedAs is the interface a value of t, a type the session declared (an interface among
// them), is given to fmt as to be printed by its method, written by write: error where it has an
// Error method, else fmt.Stringer where it has String, as the session names fmt (an interface
// the session declared would hold yaegi's own values); ok is false for another t, and where fmt
// is not imported.
func printedAs(t types.Type, write func(types.Type) (string, bool)) (string, bool) {
	ms := types.NewMethodSet(t)
	switch {
	case ms.Lookup(nil, "Error") != nil:
		return "error", true
	case ms.Lookup(nil, "String") == nil:
		return "", false
	}
	pkg, err := tablePkgs.Import("fmt")
	if err != nil {
		return "", false
	}
	return write(pkg.Scope().Lookup("Stringer").Type())
}

// printedIface is the function literal that gives e, of an interface type the session declared
// with an Error or String method, to fmt as an error or a fmt.Stringer: yaegi gave fmt the value
// an interface of the session's holds without its methods (var m Metric = acc{5, 8};
// fmt.Println(m) printed {5 8} for acc=0.62), where converted to fmt.Stringer it is printed by
// them (in a function literal of its own: fmt.Stringer(m) of a variable typed at the prompt read
// <nil>). ok is false for another e (an interface without String is given as it is: pinned in
// TestKnownYaegiGaps).
func printedIface(info *types.Info, e ast.Expr, write func(types.Type) (string, bool)) (conv string, ok bool) {
	t := info.TypeOf(e)
	if t == nil || !types.IsInterface(t) || !sessionMethods(t) {
		return "", false
	}
	iface, ok := printedAs(t, write)
	w, okT := write(t)
	if !ok || !okT {
		return "", false
	}
	return "(" + copyFunc(w, iface, true) + ")", true
}

// copyFunc is the function literal that converts a value of type (written) t to the interface
// iface, one of its own (ifacecopy.go); where t is an interface (nilable), its nil stays nil (a
// nil Shape given to fmt as a fmt.Stringer holding it panicked, where Go prints <nil>).
func copyFunc(t, iface string, nilable bool) string {
	if nilable {
		return "func(__v " + t + ") " + iface + " { if __v == nil { return nil }; return __v }"
	}
	return "func(__v " + t + ") " + iface + " { return __v }"
}

// methodful reports whether e is a call's result (callResult) of a type the session declared,
// or a pointer to one, with methods that matter given to a parameter of type to: for an
// interface with methods, any; for any (interface{}), those fmt calls (fmtMethods). (yaegi lists
// json.Marshaler for json.Marshal, but a value wrapped for it made json.Marshal panic, a
// variable too, where a call's result was marshalled without its MarshalJSON: such a call stays
// bare.)
func methodful(info *types.Info, e ast.Expr, to types.Type) bool {
	t := callResult(info, e)
	if t == nil || types.IsInterface(t) || !sessionMethods(t) {
		return false
	}
	return !isAny(to) || fmtMethods(t)
}

// fmtMethods reports whether t has a method fmt calls to print it: String, Error or Format.
func fmtMethods(t types.Type) bool {
	ms := types.NewMethodSet(t)
	return ms.Lookup(nil, "String") != nil || ms.Lookup(nil, "Error") != nil || ms.Lookup(nil, "Format") != nil
}

// plainVerbsType is the underlying type, as written, that arg is given as where only verbs
// that do not call its methods read it (verbs): a number, a string or a bool, of a type the
// session declared with methods, none of them Format (nor GoString, where %#v reads it); ok is
// false for any other argument, and for one %T or a width or precision ('*') reads.
func plainVerbsType(info *types.Info, arg ast.Expr, verbs []rune, write func(types.Type) (string, bool)) (conv string, ok bool) {
	if len(verbs) == 0 || slices.ContainsFunc(verbs, func(v rune) bool { return strings.ContainsRune("vsqxXwT*", v) }) {
		return "", false
	}
	n, ok := info.TypeOf(arg).(*types.Named)
	if !ok || !sessionMethods(n) {
		return "", false
	}
	b, ok := n.Underlying().(*types.Basic)
	ms := types.NewMethodSet(n)
	if !ok || b.Info()&(types.IsNumeric|types.IsString|types.IsBoolean) == 0 ||
		ms.Lookup(nil, "Format") != nil || slices.Contains(verbs, '#') && ms.Lookup(nil, "GoString") != nil {
		return "", false
	}
	return write(b)
}

// compiledCallee is the signature of the function c calls where it is a compiled package's
// function or method (not one the session declared, nor a function value held in a variable).
func compiledCallee(info *types.Info, c *ast.CallExpr) (*types.Signature, bool) {
	id := selectedCallee(c)
	if id == nil {
		return nil, false
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() == "main" {
		return nil, false
	}
	sig, ok := info.Types[c.Fun].Type.(*types.Signature) // (instantiated where generic)
	return sig, ok
}

// selectedCallee is the name c calls by a selector: F of pkg.F(…) or pkg.F[T](…), M of x.M(…);
// nil for another call.
func selectedCallee(c *ast.CallExpr) *ast.Ident {
	switch f := unparen(c.Fun).(type) {
	case *ast.SelectorExpr:
		return f.Sel
	case *ast.IndexExpr: // pkg.F[T](…)
		if sel, ok := f.X.(*ast.SelectorExpr); ok {
			return sel.Sel
		}
	}
	return nil
}

// isAny reports whether t is an interface without methods (any).
func isAny(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.Empty()
}

// paramType is the type of sig's parameter that takes the i-th argument (a variadic one's
// element); nil past the last.
func paramType(sig *types.Signature, i int) types.Type {
	n := sig.Params().Len()
	switch {
	case sig.Variadic() && i >= n-1:
		if s, ok := sig.Params().At(n - 1).Type().(*types.Slice); ok {
			return s.Elem()
		}
		return nil
	case i < n:
		return sig.Params().At(i).Type()
	}
	return nil
}

// aloneExpr is the expression typed alone at the prompt (the REPL prints its value), else nil.
func aloneExpr(in typed) ast.Expr {
	stmts := typedStmts(in)
	if _, ok := isExpr(in.src); !ok || len(stmts) != 1 {
		return nil
	}
	if st, ok := stmts[0].(*ast.ExprStmt); ok {
		return st.X
	}
	return nil
}

// printfVerbs are the verbs of c's format that read each argument after it (formatVerbs), where
// c calls a Printf-like function (printf: a name ending in f, its parameters ending in a string
// and ...any); read is false where the format is not a constant or cannot be read.
func printfVerbs(info *types.Info, c *ast.CallExpr, sig *types.Signature) (verbs map[int][]rune, printf, read bool) {
	n := sig.Params().Len()
	sel, isSel := unparen(c.Fun).(*ast.SelectorExpr)
	if !isSel || !strings.HasSuffix(sel.Sel.Name, "f") || !sig.Variadic() || n < 2 || len(c.Args) < n-1 {
		return nil, false, false
	}
	if b, ok := sig.Params().At(n - 2).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.String {
		return nil, false, false
	}
	if s, ok := sig.Params().At(n - 1).Type().(*types.Slice); !ok || !isAny(s.Elem()) {
		return nil, false, false
	}
	tv := info.Types[c.Args[n-2]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil, true, false
	}
	verbs, read = formatVerbs(constant.StringVal(tv.Value))
	return verbs, true, read
}

// formatVerbs are the verbs of fmt's format string that read each argument (its index → verbs;
// '*' for a width or precision, '#' for %#v), numbered ones (%[2]v) among them; ok is false for
// a number fmt would not read.
func formatVerbs(format string) (verbs map[int][]rune, ok bool) {
	verbs = map[int][]rune{}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		sharp := false
	spec:
		for i++; i < len(format); i++ {
			switch ch := format[i]; {
			case ch == '#':
				sharp = true
			case strings.IndexByte("+- 0.", ch) >= 0 || '0' <= ch && ch <= '9':
			case ch == '[':
				end := strings.IndexByte(format[i:], ']')
				n, err := strconv.Atoi(format[i+1 : i+max(end, 1)])
				if end < 0 || err != nil || n < 1 {
					return nil, false
				}
				arg, i = n-1, i+end
			case ch == '*':
				verbs[arg] = append(verbs[arg], '*')
				arg++
			case ch == '%': // %% reads none
				break spec
			default:
				r := rune(ch)
				if r == 'v' && sharp {
					r = '#'
				}
				verbs[arg] = append(verbs[arg], r)
				arg++
				break spec
			}
		}
	}
	return verbs, true
}

// stdlibSymbols are yaegi's standard library symbols, with the interfaces a value of a session's
// type is wrapped for where it is given to fmt's and log's printing functions' parameters of
// type any (yaegi's MapTypes) that Go's fmt calls: Format, else Error, else String. (They go in
// with the symbols: yaegi copies them to its own fmt.Println, log.Println and others, which
// write to the session's output, when it loads fmt.)
func stdlibSymbols() interp.Exports {
	ifaces := []reflect.Type{reflect.TypeFor[fmt.Formatter](), reflect.TypeFor[error](), reflect.TypeFor[fmt.Stringer]()}
	m := maps.Clone(stdlib.MapTypes)
	for _, f := range printers {
		m[reflect.ValueOf(f)] = ifaces
	}
	syms := maps.Clone(stdlib.Symbols)
	syms["."] = map[string]reflect.Value{"MapTypes": reflect.ValueOf(m)}
	return syms
}
