package repl

import (
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	gen "github.com/traefik/yaegi/stdlib/generic"
)

// The standard library's generic functions. yaegi v0.16.1 carries Go 1.22's slices, maps and
// cmp as source and compiles them into every interpreter, but infers no type parameter from
// another's constraint: slices.Clone(x), slices.Reverse(x), maps.Clone(m) and most of their
// kind fail on their first call with "undefined type for E" at a line of its copy, and it has no
// slices.Sort, Min, Max or BinarySearch; and it looks a type parameter's name up among the
// session's names, so after T := 50 cmp.Compare(1, 2) read "undefined type for T". The session
// compiles internal/stdgeneric's cmp.go, slices.go and maps.go (see their package comments: []E
// where Go's take S ~[]E, type parameters named E_, T_, K_, V_; tested there against Go's
// packages) into the interpreter's cmp, slices and maps after yaegi's copies, whose functions of
// the same names they replace: every function of yaegi's copies.

//go:embed internal/stdgeneric/cmp/cmp.go internal/stdgeneric/iter/iter.go internal/stdgeneric/slices/slices.go internal/stdgeneric/maps/maps.go
var stdGeneric embed.FS

// stdGenericFiles are the files compiled, in order (iter.go as a package of its own).
var stdGenericFiles = []string{"internal/stdgeneric/cmp/cmp.go", "internal/stdgeneric/iter/iter.go", "internal/stdgeneric/slices/slices.go", "internal/stdgeneric/maps/maps.go"}

//go:generate go run ./internal/stdgeneric/stubs/gen.go

// loadStdGeneric compiles the files into in, each without its import clause (yaegi's copy of the
// package imports what they use, and takes a second import of it for a redeclaration), its lines
// where they are in the file.
func loadStdGeneric(in *interp.Interpreter) error {
	for _, name := range stdGenericFiles {
		src, err := stdGeneric.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		body := int(f.Name.End()) - 1 // after the package clause (one file: offset = Pos - 1)
		if len(f.Decls) > 0 {
			body = int(f.Decls[len(f.Decls)-1].End()) - 1 // after the last import declaration
		}
		head := "package " + f.Name.Name + strings.Repeat("\n", strings.Count(string(src[:body]), "\n"))
		if _, err := in.Compile(head + string(src[body:])); err != nil {
			return fmt.Errorf("%s: %w", path.Base(name), err)
		}
	}
	return nil
}

// undefinedSourceSymbol is yaegi's error for a name a package compiled from source (slices,
// maps, cmp) does not have.
var undefinedSourceSymbol = regexp.MustCompile(`^undefined selector:? (\w+)\.(\w+)$`)

// sayStdGeneric is err said as Go says it (undefined: slices.Sortt) when it is yaegi's for a name
// the interpreter's slices, maps or cmp lacks, with the name meant or those it has.
func (s *Session) sayStdGeneric(src string, err error) (error, bool) {
	m := undefinedSourceSymbol.FindStringSubmatch(msgOf(err))
	if m == nil {
		return nil, false
	}
	s.mu.Lock()
	path := s.imports[m[1]]
	s.mu.Unlock()
	if path == "iter" {
		return restate(err, fmt.Sprintf("undefined: %s.%s (%s) [yaegi: %s]", m[1], m[2], noPull, words(err))), true
	}
	if path != "slices" && path != "maps" && path != "cmp" {
		return nil, false
	}
	names := stdGenericNames()[path]
	hint := ":doc " + path + " lists Go's; the interpreter's are " + strings.Join(slices.Sorted(slices.Values(names)), ", ")
	if near := nearest(m[2], names); near != "" {
		hint = "did you mean " + m[1] + "." + near + "?"
	}
	return restate(err, fmt.Sprintf("undefined: %s.%s (%s) [yaegi: %s]", m[1], m[2], hint, words(err))), true
}

// A slice or map of a type from a compiled package given to slices and maps. yaegi's compiler
// panicked instantiating the session's own slices and maps functions (above) with a
// slice or map whose type came from a compiled package: sc := strings.Fields("b a");
// slices.Sort(sc) read "CFG post-order panic: runtime error: invalid memory address or nil
// pointer dereference" (slices.Sort([]string{"b", "a"}) ran), as did slices.Sorted(
// slices.Values(r.Scores)) of a compiled struct's []float64 field. Converted to its own type,
// []string(sc), which shares its elements, it runs: each argument of a call of package slices or
// maps that go/types knows as a slice or map type without a name is converted so.

// stdArgInserts are the conversions of each argument of a call of package slices or maps whose
// type is a slice or map type without a name, as write writes it, and the type argument of each
// call of cmp.Or (the type of its first argument, or of the elements of the slice it spreads).
func stdArgInserts(in typed, info *types.Info, write func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		id := selectedCallee(c) // (go/types knows these packages: gopackages.go)
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
			return true
		}
		if path := fn.Pkg().Path(); path == "cmp" && fn.Name() == "Or" && len(c.Args) > 0 {
			if _, explicit := unparen(c.Fun).(*ast.IndexExpr); explicit {
				return true
			}
			// its type argument, written out: yaegi infers none from variadic arguments alone
			// (cmp.Or(0, 3) read "undefined type for T")
			t := types.Default(info.TypeOf(c.Args[0]))
			if sl, spread := t.(*types.Slice); spread && c.Ellipsis.IsValid() {
				t = sl.Elem()
			}
			if w, writable := write(t); writable && !strings.Contains(w, "invalid type") {
				if _, end, inside := in.span(id); inside {
					inserts = append(inserts, insert{end, "[" + w + "]"})
				}
			}
			return true
		} else if path != "slices" && path != "maps" {
			return true
		}
		for _, a := range c.Args {
			t := info.TypeOf(a)
			switch t.(type) {
			case *types.Slice, *types.Map:
			default:
				continue
			}
			w, writable := write(t)
			if from, end, inside := in.span(a); inside && writable && !strings.Contains(w, "invalid type") {
				inserts = append(inserts, insert{from, w + "("}, insert{end, ")"})
			}
		}
		return true
	})
	return inserts
}

// ownStdGeneric are the exported functions of the files above (package → names).
var ownStdGeneric = sync.OnceValue(func() map[string][]string {
	return funcsOf(stdGenericFiles, func(name string) string { src, _ := stdGeneric.ReadFile(name); return string(src) })
})

// stdGenericNames are the exported functions of the interpreter's slices, maps and cmp (package
// → names): yaegi's copies' and the files above (the interpreter's Symbols cannot list generic
// functions).
var stdGenericNames = sync.OnceValue(func() map[string][]string {
	names := funcsOf(gen.Sources[:], func(src string) string { return src })
	for pkg, fs := range ownStdGeneric() {
		for _, f := range fs {
			if !slices.Contains(names[pkg], f) {
				names[pkg] = append(names[pkg], f)
			}
		}
	}
	return names
})

// funcsOf are the exported functions of the Go files read(item) gives, by package name.
func funcsOf(items []string, read func(string) string) map[string][]string {
	names := map[string][]string{}
	for _, it := range items {
		pkg, fs := exportedFuncs(read(it))
		names[pkg] = append(names[pkg], fs...)
	}
	return names
}

// exportedFuncs are the package name of src, a Go file, and its exported functions.
func exportedFuncs(src string) (pkg string, names []string) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return "", nil
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
			names = append(names, fd.Name.Name)
		}
	}
	return f.Name.Name, names
}

// noPull says what the interpreter's iter lacks, and what to write instead.
const noPull = "the interpreter's iter has Seq and Seq2, not Pull and Pull2, which need Go's coroutines: range over the sequence, or collect it, slices.Collect(seq)"

// iterators are the session's iterator functions (those of the files above whose signature has a
// yield function: they return an iterator or take one), as "path.name".
var iterators = sync.OnceValue(func() map[string]bool {
	its := map[string]bool{}
	for _, name := range stdGenericFiles {
		src, _ := stdGeneric.ReadFile(name)
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.IsExported() && strings.Contains(types.ExprString(fd.Type), "yield func(") {
				its[f.Name.Name+"."+fd.Name.Name] = true
			}
		}
	}
	return its
})

// stdGenericDoc is what :doc adds to Go's doc of slices.NAME, maps.NAME, cmp.NAME or iter.NAME
// (path, name): that its function is the session's own, or that the session has none (iter.Pull;
// nothing for another name).
func stdGenericDoc(path, name string) string {
	if path == "iter" && (name == "Pull" || name == "Pull2") {
		return "\nIn this session: none: " + noPull + ".\n"
	}
	if slices.Contains(ownStdGeneric()[path], name) {
		doc := fmt.Sprintf("\nIn this session: the session's own %s.%s; yaegi's copy lacks it or cannot call it.", path, name)
		if kind, ok := map[string]string{"slices": "[]E where Go's takes S ~[]E", "maps": "map[K]V where Go's takes M ~map[K]V"}[path]; ok {
			doc = fmt.Sprintf("\nIn this session: the session's own %s.%s, taking %s (a result has that type, not the argument's named type); yaegi's copy lacks it or cannot call it.", path, name, kind)
		}
		if iterators()[path+"."+name] {
			doc += " An iterator here is a function of a yield function (func(yield func(E) bool): iter.Seq's underlying type); a range over one runs where its body has no defer, label or goto."
		}
		return doc + "\n"
	}
	return ""
}

// cmp.Ordered as a constraint. yaegi's copy of cmp.Ordered takes no untyped constant: with
// func less[T cmp.Ordered](a, b T) bool, less(2.5, 1) read "untyped float does not implement
// cmp.Ordered" (less(1, 2) and less("a", "b") ran). The session writes such a constraint
// interface{ comparable; cmp.Ordered }, the same type set, with which yaegi infers T as Go does
// (compiling a comparable cmp.Ordered into the interpreter's cmp instead made cmp.Compare(2.5,
// 1) fail alike).

// orderedInserts are the texts that write each cmp.Ordered constraint of a type parameter in the
// input as interface{ comparable; cmp.Ordered }.
func orderedInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		var params *ast.FieldList
		switch x := n.(type) {
		case *ast.FuncType:
			params = x.TypeParams
		case *ast.TypeSpec:
			params = x.TypeParams
		}
		if params == nil {
			return true
		}
		for _, p := range params.List {
			if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Ordered" {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "cmp" {
					inserts = append(inserts, insert{in.offset(sel.Pos()), "interface{ comparable; "}, insert{in.offset(sel.End()), " }"})
				}
			}
		}
		return true
	})
	return inserts
}
