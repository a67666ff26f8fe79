package repl

import (
	"context"
	"strings"
	"testing"
)

// TestPositionsAsTyped: an error's line:column is in what was typed, whatever the session and
// yaegi wrapped it in (position.go): the start of the node yaegi names, counted in the typed text
// (for a binary operation that is its first operand, where Go's compiler names the operator).
func TestPositionsAsTyped(t *testing.T) {
	s, _ := newTestSession(t)
	ctx := context.Background()
	for _, c := range []struct{ src, want string }{
		{"nopeA", "1:1: undefined: nopeA"},                                                   // an expression, in __show.Vals(…)
		{"   nopeB", "1:4: undefined: nopeB"},                                                // its leading blanks kept
		{"nopeC // a comment", "1:1: undefined: nopeC"},                                      // a comment after it
		{"/* c */ nopeD", "1:9: undefined: nopeD"},                                           // and before it
		{"y1 := nopeE", "1:7: undefined: nopeE"},                                             // a declaration yaegi runs in two steps
		{"x1 := 1\ny2 := x1 + \"s\"", "2:7: invalid operation"},                              // two statements
		{"func g() int { return \"a\" }", "1:23: cannot use \"a\""},                          // a declaration: "package main;" before it
		{"for i := 0; i < 2; i++ {\n\tfmt.Println(i + \"s\")\n}", "2:14: invalid operation"}, // in a func __stmtN
		{"  if true { _ = nopeF }", "1:17: undefined: nopeF"},
		{"for i := range 3 { _ = i + \"s\" }", "1:24: invalid operation"}, // run as range __ints(int(3))
		{"for i := range 3 {\n\tfor j := range i { _ = j + \"s\" }\n}", "2:25: invalid operation"},
		{"import \"sort\"\nsort.Ints(nopeG)", "2:11: undefined: nopeG"}, // after an import
		{"import \"sort\"\ny3 := nopeH", "2:7: undefined: nopeH"},
		{"1 +", "1:4: expected operand, found the end of the input"}, // past the input
		{"x4 := (1 +\n  2", "2:4: expected ')', found newline"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q…", c.src, err, c.want)
		}
	}
	// A script: each statement's lines counted from its first.
	if err := s.LoadSource(ctx, "s.go", "a := 1\n\n// the ratio\nb := a +\n  \"s\"\n"); err == nil || !strings.HasPrefix(err.Error(), "s.go:4:6: invalid operation") {
		t.Errorf("a script: %v, want s.go:4:6: invalid operation…", err)
	}
	if err := s.LoadSource(ctx, "t.go", "a2 := 1\nfmt.Println(a2.X)\n"); err == nil || !strings.HasPrefix(err.Error(), "t.go:2:13: a2.X undefined (type int has no field or method X)") {
		t.Errorf("a script's selector: %v", err)
	}
}

// TestSelectorSaidAsGo: a field, method or package member that is not there names the
// receiver's type and what it has; a call short of arguments or with one too many names the
// function and what it wants; an assignment of a call's results names the call; calling a
// value that is no function and indexing past the end say so (explain.go).
// TestSayInferred: where go/types does not know a call's type arguments (a name it does not know),
// yaegi's error of a generic call it inferred wrongly says to write them out.
func TestSayInferred(t *testing.T) {
	s, _ := newTestSession(t)
	evalAll(t, s, "func Map[T, U any](xs []T, f func(T) U) []U { var out []U; for _, x := range xs { out = append(out, f(x)) }; return out }")
	in, _ := parseTyped("Map(cels, func(c cel) string { return fmt.Sprint(c) })")
	msg := "cannot use type func(main.cel) string as type func(float64) main.cel"
	got, call := s.sayInferred(context.Background(), in, &posError{line: 1, col: 11, msg: msg}, msg)
	if want := msg + " (yaegi v0.16.1 infers Map's type parameters wrongly here: write them out, Map[T, U](…))"; got != want || call == nil {
		t.Errorf("said %q, want %q", got, want)
	}
}

func TestSelectorSaidAsGo(t *testing.T) {
	s, _ := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, `c := eqflib.DiTPresets["tiny"]`, "n := 3", "type pt struct{ X, Y float64 }", "q := pt{1, 2}", "cs := []eqflib.DiTConfig{c}",
		"type acc struct{ n int }", "func (a *acc) add(k int) { a.n += k }", "var ac acc",
		"pac := &ac", "anon := struct{ V int }{1}", "anonf := func() struct{ N int } { return struct{ N int }{1} }", "v := struct{ N int }{3}", "hold := struct{ F func() int }{func() int { return 1 }}", "vals := []any{c, 3}", "k0 := 1",
		"type bag struct{ items []pt }", "bg := bag{[]pt{q, q}}", "nest := [][]bag{{bg}}", "pa := &[2]int{}",
		"func Map[T, U any](xs []T, f func(T) U) []U { var out []U; for _, x := range xs { out = append(out, f(x)) }; return out }",
		"func sum[T int | float64](xs ...T) T { var s T; for _, x := range xs { s += x }; return s }",
		"type cel float64", `import "slices"`, "cels := slices.Clone([]cel{1.5})")
	for _, c := range []struct{ src, want string }{
		{"c.Dept", "1:1: c.Dept undefined (type eqflib.DiTConfig has no field or method Dept; did you mean Depth?)"},
		{"c.heads", "c.heads undefined (type eqflib.DiTConfig has no field or method heads, but does have field Heads)"},
		{"c.tokens()", "but does have method Tokens"},
		{"cs[0].Dept", "1:1: cs[0].Dept undefined (type eqflib.DiTConfig has no field or method Dept; did you mean Depth?)"},
		{"q.Z", "q.Z undefined (type pt has no field or method Z; it has fields X, Y)"},
		{"ac.ad(3)", "1:1: ac.ad undefined (type acc has no field or method ad; did you mean add?)"},
		{"pac.N", "pac.N undefined (type *acc has no field or method N, but does have field n)"},
		{"anon.W", "anon.W undefined (type struct { V int } has no field or method W; it has fields V)"},
		{"n.Foo", "n.Foo undefined (type int has no field or method Foo)"},
		// n is the loop's, not the session's int: its type is cs's element type
		{"for _, n := range cs { _ = n.Dept }", "1:28: n.Dept undefined (type eqflib.DiTConfig has no field or method Dept; did you mean Depth?)"},
		{"for n := range cs { _ = n.Dept }", "n.Dept undefined (type int has no field or method Dept)"},
		{"for k, v := range eqflib.DiTPresets { _ = k.X; _ = v }", "k.X undefined (type string has no field or method X)"},
		{"for _, v := range eqflib.DiTPresets { _ = v.Dept }", "v.Dept undefined (type eqflib.DiTConfig has no field"},
		{"for _, r := range \"ab\" { _ = r.X }", "r.X undefined (type int32 has no field or method X)"},
		{"for _, p := range bg.items[1:] { _ = p.Z }", "p.Z undefined (type pt has no field or method Z; it has fields X, Y)"},
		{"for _, xs := range nest { for _, x := range xs[0].items { _ = x.W } }", "x.W undefined (type pt has no field"},
		{"for _, x := range cs { for _, x := range x.Dept { _ = x } }", "x.Dept undefined (type eqflib.DiTConfig has no field"}, // the outer x
		{"for _, r := range pa { _ = r.X }", "r.X undefined (type int has no field or method X)"},
		{"for i := range 3 { _ = i.X }", "1:24: i.X undefined (type int has no field or method X)"},
		{"for i := range n { for j := range i { _ = j.X } }", "1:43: j.X undefined (type int has no field or method X)"},
		// a loop's element held in an interface: its type is not known without running the loop,
		{"for _, v := range vals { _ = v.Dept }", "v.Dept undefined (no field or method Dept)"},
		// nor from a call, which is not run again
		{"for _, v := range append(cs, c) { _ = v.Dept }", "v.Dept undefined (no field or method Dept)"},
		// nor an index that is the loop's (the session's k0 would read vals[1], an int)
		{"for k0 := range 1 { _ = vals[k0].Dept }", "1:25: vals[k0].Dept undefined (no field or method Dept)"},
		// a receiver that would run a call is not evaluated again; its type needs none
		{"eqflib.DiTPresets[\"tiny\"].Dept", "eqflib.DiTPresets[\"tiny\"].Dept undefined (type eqflib.DiTConfig"},
		{"cs[len(cs)-1].Dept", "cs[len(cs)-1].Dept undefined (type eqflib.DiTConfig has no field"},
		{"cs[len(cs)-1:][0].Dept", "undefined (type eqflib.DiTConfig has no field"},
		// what is wrong is the operand, a call of two results: Go says so (go/types, gopackages.go)
		{"z := zoo.Open(\"paper\").WithTrainSeed(3)", "1:6: multiple-value zoo.Open(\"paper\") (value of type (*zoo.Zoo, error)) in single-value context"},
		{"eqflib.NoSuchThing", "1:1: undefined: eqflib.NoSuchThing (:doc eqflib lists its names)"},
		{"eqflib.CFunctionWrap(0.8, 0.01)", "undefined: eqflib.CFunctionWrap (did you mean eqflib.CFunctionWarp?)"},
		{"w9 := eqflib.CFunctionWrap", "1:7: undefined: eqflib.CFunctionWrap (did you mean eqflib.CFunctionWarp?)"}, // yaegi: "undefined selector …/eqflib.CFunctionWrap"
		// yaegi: "unsupported assign expression"; Go's error, which go/types finds, is the name
		{"clips, err9 := data.Clips", "1:21: undefined: data.Clips (did you mean data.Clip?)"},
		{"ab9, cd9 := c", "1:13: assignment mismatch: 2 variables but 1 value"},
		{"eqflib.SD3Warp()", "1:1: not enough arguments in call to eqflib.SD3Warp: want (float64)"},
		{"x5 := c.Tokens", ""}, // no error
		// a call yaegi infers wrongly runs again with the type arguments go/types inferred
		// (typeargs.go: TestInferredTypeArguments); where go/types does not know them, the error
		// says to write them out
		{"Map([]int{1, 2}, func(i int) string { return fmt.Sprint(i) })", ""},
		{"Map(cels, func(c cel) string { return fmt.Sprint(c) })", ""}, // (go/types knows slices.Clone's result: the call runs)
		{"strs := Map[int, string]([]int{1, 2}, func(i int) string { return fmt.Sprint(i) })", ""},
		{"sum(1, 2, 3)", ""},
		{"sum[int](1, 2, 3)", ""},
		{"var bad int = \"s\"", "1:15: cannot use \"s\" (untyped string constant) as int value in variable declaration"}, // no generic call: no hint
		// what go/types knows is refused before it runs, in Go's words and at Go's positions
		{"a, b := c.Tokens()", "1:9: assignment mismatch: 2 variables but c.Tokens returns 1 value"},
		{"var a2, b2 = c.Tokens()", "1:14: assignment mismatch: 2 variables but c.Tokens returns 1 value"},
		// what it does not (a value of an unnamed struct type), in the same words after yaegi's error
		// (refused before they run, hold and anonf known to go/types by the types the inputs that
		// defined them gave: Go's words at Go's column)
		{"a3, b3 := hold.F()", "1:11: assignment mismatch: 2 variables but hold.F returns 1 value"},
		{"a3, b3 := anonf()", "1:11: assignment mismatch: 2 variables but anonf returns 1 value"},
		{"c.Tokens(3)", "1:10: too many arguments in call to c.Tokens: 1 given, want ()"},
		{"eqflib.SD3Warp(1, 2)", "1:19: too many arguments in call to eqflib.SD3Warp: 2 given, want (float64)"},
		{"eqflib.SD3Warp(\"a\")", "1:16: cannot use \"a\" (untyped string constant) as float64 value in argument to eqflib.SD3Warp"}, // a wrong type, in Go's words (gopackages.go)
		{"fmt.Sprint(1, 2, 3)", ""}, // variadic
		{"c()", "1:1: invalid operation: cannot call c (variable of struct type eqflib.DiTConfig): eqflib.DiTConfig is not a function"},
		{"v()", "1:1: invalid operation: cannot call v (variable of type struct{N int}): struct{N int} is not a function"},
		{"cs[3]", "panic: runtime error: index out of range [3] with length 1, in cs[3]"},
		{"_ = cs[n].Depth", "panic: runtime error: index out of range [3] with length 1, in cs[n]"},
	} {
		err := s.Eval(ctx, c.src)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"Depth", "Heads", "Hidden", "Tokens"}
	for name, want := range map[string]string{"Dept": "Depth", "Hiden": "Hidden", "heads": "Heads", "Tok": "", "Hi": "", "Width": "", "ad": "", "Tokns": "Tokens"} {
		if got := nearest(name, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", name, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "abc", 3}, {"kitten", "sitting", 3}, {"Depth", "Dept", 1}, {"ab", "ba", 2}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
