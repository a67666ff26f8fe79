package repl

import (
	"go/ast"
	"go/types"
	"strings"
)

// Methods promoted from an embedded interface. With type Named struct{ Shape; Name string } of
// an interface Shape, Go's n.Area() calls n.Shape's Area; yaegi v0.16.1 panics ("invalid interface
// value {{0x…} r}") where n.Shape.Area() is right. Where go/types' selection goes through an
// embedded field of an interface type, the session writes the path out: n.Area runs as
// n.Shape.Area (a promotion through embedded structs, which yaegi gets right, is left as typed).

// embeddedInterfaceInserts are the embedded fields' names put in each selector of the input
// whose method is promoted from an embedded interface, from go/types' selections (info).
func embeddedInterfaceInserts(in typed, info *types.Info, _ func(types.Type) (string, bool)) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		sn := info.Selections[sel]
		if sn == nil || sn.Kind() != types.MethodVal || len(sn.Index()) < 2 {
			return true
		}
		var path []string
		throughInterface := false
		t := sn.Recv()
		for _, i := range sn.Index()[:len(sn.Index())-1] {
			if p, isPtr := t.Underlying().(*types.Pointer); isPtr {
				t = p.Elem()
			}
			st, isStruct := t.Underlying().(*types.Struct)
			if !isStruct || i >= st.NumFields() {
				return true
			}
			f := st.Field(i)
			path = append(path, f.Name())
			throughInterface = throughInterface || types.IsInterface(f.Type())
			t = f.Type()
		}
		if at := in.offset(sel.X.End()); throughInterface && at >= 0 && at <= len(in.src) {
			inserts = append(inserts, insert{at, "." + strings.Join(path, ".")})
		}
		return true
	})
	return inserts
}
