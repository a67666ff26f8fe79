package repl

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A name whose declaration failed reads as undefined, saying why, until it is declared again;
// one that existed before, or was assigned before a later statement failed, stays usable.
func TestGhosts(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, "x := 5", "n0 := 0", `func boom() int { panic("boom") }`)
	fails := []string{
		"x := nothere",        // x existed: it keeps 5
		"n0 := nothere",       // n0 existed, with its zero value
		`var y int8 = "s"`,    // compile error: y would read 0
		"w := boom()",         // a panic: w would read 0
		"n := boom()",         // n, a parameter's name in the session's helpers, is no variable of it
		"a := 1; b := boom()", // a ran: a is 1
		`func f() int { return "a" }`,
		`type T struct{ A int }; var t T = 3`,
	}
	for _, src := range fails {
		if err := s.Eval(ctx, src); err == nil {
			t.Fatalf("%s: no error", src)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"y", `1:1: undefined: y (its declaration failed: 1:14: cannot use "s" (untyped string constant) as int8 value in variable declaration)`},
		{"w", "1:1: undefined: w (its declaration failed: panic: boom"},
		{"n", "1:1: undefined: n (its declaration failed: panic: boom"},
		{"b + 1", "1:1: undefined: b (its declaration failed: panic: boom"},
		{"z := 2 * w + int(y)", "1:10: undefined: w, y (their declarations failed; w's: panic: boom"},
		{"f()", "1:1: undefined: f (its declaration failed: 1:23: cannot use"},
		{"t.A", "1:1: undefined: t (its declaration failed:"},
		{"_ = T{}", "1:5: undefined: T (its declaration failed:"}, // the input failed whole
		{"w = 3", "1:1: undefined: w"},
		{"for w := range 2 { _ = w }\nw", "2:1: undefined: w"}, // a loop's own w does not lay the ghost
	} {
		if err := s.Eval(ctx, c.src); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q…", c.src, err, c.want)
		}
	}
	out.Reset()
	for _, src := range []string{"x", "n0", "a", "for w := range 2 { _ = w }", "pw := struct{ w int }{w: 1}; _ = pw.w", "y := int8(3)", "y", "func f() int { return 4 }", "f()"} {
		if err := s.Eval(ctx, src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if got, want := strings.Fields(out.String()), []string{"5", "0", "1", "3", "4"}; !slices.Equal(got, want) {
		t.Errorf("printed %q, want %q", got, want)
	}
}

func TestTopLevelNames(t *testing.T) {
	for src, want := range map[string][]string{
		"x := 1; var y, _ = 2, 3":                  {"x", "y"},
		"for i := 0; i < 2; i++ { k := i; _ = k }": nil,
		"func f() { inner := 1; _ = inner }":       {"f"},
		"type T int\nfunc (T) M() {}\nconst c = 1": {"T", "c"},
		"a, b := f()": {"a", "b"},
		"x = 3":       nil,
	} {
		if got := topLevelNames(src); !slices.Equal(got, want) {
			t.Errorf("topLevelNames(%q) = %q, want %q", src, got, want)
		}
	}
}
