package repl

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
)

// Unexported fields of the session's struct types. The interpreter builds a struct type the
// session declares with reflect, which exports every field, an unexported one under an "X"
// before its name (tags becomes Xtags), so encoding/json wrote it: json.Marshal of
// struct{ Name string; tags []string } read {"Name":"x","Xtags":["t"]} where Go's reads
// {"Name":"x"} (and an unexported field tagged `json:"n"` was written as "n"). The session gives
// each unexported field the tag `json:"-"`, which encoding/json skips, the tag as typed left
// after it in a comment (Go's encoders ignore an unexported field's tag). A field list that names
// exported and unexported fields alike (c, D int) is left: its one tag would hide D. fmt's %+v
// still names the field Xtags (the REPL's printing of a value names it tags).

// unexportedTagInserts are the tags put on each unexported field of each struct type the input
// declares or writes.
func unexportedTagInserts(in typed) (inserts []insert) {
	ast.Inspect(in.root, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 || slices.ContainsFunc(f.Names, func(n *ast.Ident) bool { return token.IsExported(n.Name) }) {
				continue // embedded (encoding/json reads an embedded struct's fields), or exported
			}
			if f.Tag == nil {
				inserts = append(inserts, insert{in.offset(f.Type.End()), " `json:\"-\"`"})
				continue
			}
			if from, end, inside := in.span(f.Tag); inside && !strings.Contains(in.src[from:end], "*/") {
				inserts = append(inserts, insert{from, "`json:\"-\"` /*"}, insert{end, "*/"})
			}
		}
		return true
	})
	return inserts
}
