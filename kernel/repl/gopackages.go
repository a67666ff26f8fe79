package repl

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"reflect"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/equilibriumforcing/eqf/symbols"
)

// The REPL's packages for go/types. The interpreter knows the packages it can import as symbol
// tables (a reflect.Value per exported name), not as sources, so go/types learns them from the
// same tables: each is a types.Package whose functions, variables, constants and types are
// those of the table, their types translated from reflect (tablePackages.Import). A session's
// variable of a package's type is then told as that type (tableType), and go/types checks an
// input's calls, methods and fields of packages as Go does: `var t int8 = c.Tokens() * 100`
// (an int) is refused where yaegi read 64.
//
// What reflect cannot show is left so that go/types is more lenient than Go, never stricter:
// an interface's unexported methods are left out (no type could be seen to lack them), and a
// type's unexported methods are unknown (an input cannot call them).

// tables are the symbol tables the session's interpreter uses (Reset).
var tables = []interp.Exports{stdlib.Symbols, symbols.Symbols}

// packagesMu guards the translation of the tables and every go/types check that reads it: the
// packages are built as inputs import them, and go/types reads them while it checks.
var packagesMu sync.Mutex

// tablePackages is go/types' importer of the tables, and the translation of their types.
type tablePackages struct {
	pkgs   map[string]*types.Package // import path → package (filled once imported)
	filled map[string]bool
	named  map[reflect.Type]*types.Named
}

var tablePkgs = &tablePackages{pkgs: map[string]*types.Package{}, filled: map[string]bool{}, named: map[reflect.Type]*types.Named{}}

// Import is the package at path, its members those of its symbol table; an error for a path no
// table has.
func (tp *tablePackages) Import(p string) (*types.Package, error) {
	index()
	if src, ok := stdStubs[p]; ok { // compiled from source by the interpreter: Go's declarations
		return tp.stub(p, src)
	}
	if _, ok := pkgName[p]; !ok {
		return nil, fmt.Errorf("no symbol table for %q", p)
	}
	pkg := tp.pkg(p)
	if tp.filled[p] {
		return pkg, nil
	}
	tp.filled[p] = true
	for _, tab := range tables {
		for name, v := range tab[p+"/"+pkgName[p]] {
			if strings.HasPrefix(name, "_") || !token.IsExported(name) {
				continue // yaegi's wrappers of interfaces
			}
			if obj := tp.object(pkg, name, v); obj != nil {
				pkg.Scope().Insert(obj)
			}
		}
	}
	pkg.MarkComplete()
	return pkg, nil
}

// stub is the package at path p, one of Go's that the interpreter compiles from source (cmp,
// iter, slices, maps), checked from src, its exported declarations (stdstubs_gen.go; go generate
// writes it from the toolchain's sources), once.
func (tp *tablePackages) stub(p, src string) (*types.Package, error) {
	if pkg, ok := tp.pkgs[p]; ok && tp.filled[p] {
		return pkg, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p+".go", src, 0)
	if err != nil {
		return nil, err
	}
	pkg, err := (&types.Config{Importer: tp}).Check(p, fset, []*ast.File{f}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s's declarations: %w", p, err)
	}
	tp.pkgs[p], tp.filled[p] = pkg, true
	return pkg, nil
}

// pkg is the package at path p (created empty the first time).
func (tp *tablePackages) pkg(p string) *types.Package {
	if pkg, ok := tp.pkgs[p]; ok {
		return pkg
	}
	name, ok := pkgName[p]
	if !ok {
		name = path.Base(p)
	}
	pkg := types.NewPackage(p, name)
	tp.pkgs[p] = pkg
	return pkg
}

// pkgOf is the package of a named type, nil for an unnamed one (an exported name's package
// does not matter to go/types).
func (tp *tablePackages) pkgOf(t reflect.Type) *types.Package {
	if t.PkgPath() == "" {
		return nil
	}
	return tp.pkg(t.PkgPath())
}

// object is the go/types object of a table's entry: a type ((*T)(nil)), a variable (addressable),
// a function, or a constant (untyped ones as constant.Value, typed ones as their value).
func (tp *tablePackages) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	t := v.Type()
	switch {
	case v.CanAddr():
		return types.NewVar(token.NoPos, pkg, name, tp.typeOf(t))
	case t.Kind() == reflect.Func:
		sig, _ := tp.typeOf(t).(*types.Signature)
		return types.NewFunc(token.NoPos, pkg, name, sig)
	case t.Kind() == reflect.Pointer && v.IsNil():
		typ := tp.typeOf(t.Elem())
		if n, ok := typ.(*types.Named); ok && n.Obj().Name() == name && n.Obj().Pkg() == pkg {
			return n.Obj()
		}
		return types.NewTypeName(token.NoPos, pkg, name, typ) // an alias
	}
	if c, ok := v.Interface().(constant.Value); ok {
		kind := map[constant.Kind]types.BasicKind{constant.Bool: types.UntypedBool, constant.String: types.UntypedString,
			constant.Int: types.UntypedInt, constant.Float: types.UntypedFloat, constant.Complex: types.UntypedComplex}[c.Kind()]
		if kind == 0 {
			return nil
		}
		return types.NewConst(token.NoPos, pkg, name, types.Typ[kind], c)
	}
	var c constant.Value
	switch t.Kind() {
	case reflect.Bool:
		c = constant.MakeBool(v.Bool())
	case reflect.String:
		c = constant.MakeString(v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c = constant.MakeInt64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c = constant.MakeUint64(v.Uint())
	case reflect.Float32, reflect.Float64:
		c = constant.MakeFloat64(v.Float())
	default:
		return types.NewVar(token.NoPos, pkg, name, tp.typeOf(t))
	}
	return types.NewConst(token.NoPos, pkg, name, tp.typeOf(t), c)
}

// typeOf is reflect's type t for go/types: a named type as the one types.Named of its package
// (with its methods), the rest built of their parts.
func (tp *tablePackages) typeOf(t reflect.Type) types.Type {
	if t.Name() != "" {
		if t.PkgPath() == "" { // predeclared
			if t == reflect.TypeFor[error]() {
				return types.Universe.Lookup("error").Type()
			}
			if b := types.Universe.Lookup(t.Name()); b != nil {
				return b.Type()
			}
		}
		if t.Kind() == reflect.UnsafePointer {
			return types.Typ[types.UnsafePointer]
		}
		return tp.namedOf(t)
	}
	if t.Kind() == reflect.Interface && t.NumMethod() == 0 {
		return types.Universe.Lookup("any").Type()
	}
	return tp.underlying(t)
}

// namedOf is the types.Named of a named reflect type, its underlying type and methods filled.
func (tp *tablePackages) namedOf(t reflect.Type) *types.Named {
	if n, ok := tp.named[t]; ok {
		return n
	}
	pkg := tp.pkg(t.PkgPath())
	n := types.NewNamed(types.NewTypeName(token.NoPos, pkg, t.Name(), nil), nil, nil)
	tp.named[t] = n
	n.SetUnderlying(tp.underlying(t))
	if t.Kind() == reflect.Interface {
		return n
	}
	methods := func(rt reflect.Type, recv types.Type, have map[string]bool) {
		for i := 0; i < rt.NumMethod(); i++ {
			m := rt.Method(i)
			if have[m.Name] {
				continue
			}
			have[m.Name] = true
			sig := tp.signature(m.Type, 1, types.NewVar(token.NoPos, pkg, "", recv))
			n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
		}
	}
	have := map[string]bool{}
	methods(t, n, have)
	methods(reflect.PointerTo(t), types.NewPointer(n), have)
	return n
}

// underlying is t's structure for go/types, as if t had no name.
func (tp *tablePackages) underlying(t reflect.Type) types.Type {
	switch t.Kind() {
	case reflect.Slice:
		return types.NewSlice(tp.typeOf(t.Elem()))
	case reflect.Array:
		return types.NewArray(tp.typeOf(t.Elem()), int64(t.Len()))
	case reflect.Pointer:
		return types.NewPointer(tp.typeOf(t.Elem()))
	case reflect.Map:
		return types.NewMap(tp.typeOf(t.Key()), tp.typeOf(t.Elem()))
	case reflect.Chan:
		dir := map[reflect.ChanDir]types.ChanDir{reflect.BothDir: types.SendRecv, reflect.SendDir: types.SendOnly, reflect.RecvDir: types.RecvOnly}[t.ChanDir()]
		return types.NewChan(dir, tp.typeOf(t.Elem()))
	case reflect.Func:
		return tp.signature(t, 0, nil)
	case reflect.Interface:
		var ms []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			if m := t.Method(i); m.IsExported() { // an unexported one left out: more lenient, never stricter
				ms = append(ms, types.NewFunc(token.NoPos, tp.pkgOf(t), m.Name, tp.signature(m.Type, 0, nil)))
			}
		}
		return types.NewInterfaceType(ms, nil).Complete()
	case reflect.Struct:
		var fields []*types.Var
		var tags []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			p := tp.pkgOf(t)
			if f.PkgPath != "" { // unexported: its package tells it from another's of the same name
				p = tp.pkg(f.PkgPath)
			}
			fields = append(fields, types.NewField(token.NoPos, p, f.Name, tp.typeOf(f.Type), f.Anonymous))
			tags = append(tags, string(f.Tag))
		}
		return types.NewStruct(fields, tags)
	case reflect.UnsafePointer:
		return types.Typ[types.UnsafePointer]
	}
	return types.Typ[basicKinds[t.Kind()]]
}

var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
}

// signature is the func type t for go/types, its first skip parameters left out (a method's
// receiver, which reflect lists first).
func (tp *tablePackages) signature(t reflect.Type, skip int, recv *types.Var) *types.Signature {
	var in, out []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		in = append(in, types.NewParam(token.NoPos, nil, "", tp.typeOf(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		out = append(out, types.NewParam(token.NoPos, nil, "", tp.typeOf(t.Out(i))))
	}
	return types.NewSignatureType(recv, nil, nil, types.NewTuple(in...), types.NewTuple(out...), t.IsVariadic())
}

// tellable reports whether a session variable of type t can be told to go/types as tableType(t):
// a type the interpreter made (a struct or interface the session declared, which it holds as
// an unnamed type, or one of its own package's) cannot, nor anything built of one; a package's
// named type can, whatever it holds.
func tellable(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true
	}
	seen[t] = true
	if t.Name() != "" {
		return !strings.HasPrefix(t.PkgPath(), "github.com/traefik/yaegi")
	}
	switch t.Kind() {
	case reflect.Struct:
		return false
	case reflect.Interface:
		return t.NumMethod() == 0
	case reflect.Slice, reflect.Array, reflect.Pointer, reflect.Chan:
		return tellable(t.Elem(), seen)
	case reflect.Map:
		return tellable(t.Key(), seen) && tellable(t.Elem(), seen)
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			if !tellable(t.In(i), seen) {
				return false
			}
		}
		for i := 0; i < t.NumOut(); i++ {
			if !tellable(t.Out(i), seen) {
				return false
			}
		}
	}
	return true
}
