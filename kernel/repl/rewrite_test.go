package repl

import (
	"context"
	"log"
	"reflect"
	"strings"
	"testing"
)

// A range over an integer (Go 1.22), which yaegi cannot compile, runs as Go runs it: at the
// prompt, nested, over a negative count, in a Go file (whose globals are initialised once); a
// range over a slice is untouched, and yaegi's "nil type" is not logged.
func TestRangeOverInt(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s,
		"n := 3",
		"for i := range n { for j := range i { fmt.Print(j) }; fmt.Print(\"|\") }",
		"for range 2 { fmt.Print(\"x\") }",
		"for i := range -1 { fmt.Print(i) }",
		"xs := []string{\"a\", \"b\"}",
		"for i, x := range xs { fmt.Print(i, x) }",
		"var k int64 = 2",
		"for i := range k + 1 { fmt.Print(i) }",
	)
	file := "package main\n\nimport \"fmt\"\n\nvar g = initG()\n\nfunc initG() int { fmt.Print(\"init \"); return 2 }\n\nfunc main() {\n\tfor i := range g { fmt.Print(i) }\n}\n"
	if err := s.LoadSource(ctx, "r.go", file); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "|0|01|xx0a1b012init 01"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if err := s.Eval(ctx, "for i := range len(xs) { fmt.Print(i + notdef) }"); err == nil || !strings.Contains(err.Error(), "undefined: notdef") {
		t.Errorf("a range over an integer whose body uses an undefined name: %v", err)
	}
	if f, ok := log.Writer().(lineFilter); !ok || f.drop != yaegiLogPanic {
		t.Errorf("the standard logger writes to %T, not through the filter of yaegi's compiler panics", log.Writer())
	}
}

func TestRangeOverIntRewrite(t *testing.T) {
	for src, want := range map[string]string{
		"for i := range n {}":                         "for i := range __ints(int(n)) {}",
		"for range 3 {}":                              "for range __ints(int(3)) {}",
		"for i := range xs[1:] {}":                    "",
		"for _, c := range \"ab\" {}":                 "",
		"for k := range map[int]int{} {}":             "",
		"func f() {\n\tfor i := range m.N {}\n}":      "func f() {\n\tfor i := range __ints(int(m.N)) {}\n}",
		"for i := range a { for j := range b(i) {} }": "for i := range __ints(int(a)) { for j := range __ints(int(b(i))) {} }",
	} {
		got, _, ok := rangeOverInt(src)
		if want == "" {
			if ok || got != src {
				t.Errorf("rangeOverInt(%q) = %q, %v: want it untouched", src, got, ok)
			}
		} else if !ok || got != want {
			t.Errorf("rangeOverInt(%q) = %q, %v; want %q", src, got, ok, want)
		}
	}
}

// var m = n, which yaegi cannot compile when n is the session's ("variable definition loop"),
// declares m as Go does, without running its value twice.
func TestVarFromSessionVariables(t *testing.T) {
	s, out := newTestSession(t)
	evalAll(t, s,
		`func f() int { fmt.Print("f "); return 1 }`,
		"var g = 2",
		"var y = f() + g",
		"type other struct{ A int }",
		"func (o *other) Inc() { o.A++ }",
		"o := other{2}",
		"var a any = o",
		"var c, d = g, g + 1",
		"var (\n\tk int64 = 7\n\tl = \"s\"\n)",
		"fmt.Print(y, c, d, k, l)",
		"a",
	)
	if got, want := out.String(), "f 3 2 3 7s{A:2}\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// evalAll evaluates each input in s, failing the test at the first error.
func evalAll(t *testing.T, s *Session, srcs ...string) {
	t.Helper()
	for _, src := range srcs {
		if err := s.Eval(context.Background(), src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
}

func TestVarAsAssignments(t *testing.T) {
	for src, want := range map[string][]string{
		"var m = n":                        {"m := n"},
		"var k T = f(n)":                   {"var k T", "k = f(n)"},
		"var a, b = x, y[1]":               {"a, b := x, y[1]"},
		"var (\n\tp = q\n\tr []int = s\n)": {"p := q", "var r []int", "r = s"},
		"var v int":                        nil,
		"x := 1":                           nil,
		"var m = n\nvar o = p":             nil,
	} {
		got, ok := varAsAssignments(src)
		if ok != (want != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("varAsAssignments(%q) = %q, %v; want %q", src, got, ok, want)
		}
	}
}
