package repl

import (
	"bytes"
	"context"
	"fmt"
	"go/types"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/paper"
)

// A panic in interpreted code comes back once, in Go's words where yaegi's are reflect's, and
// yaegi's own "L:C: panic: F(...)" line (positions in the source the session built) is not
// printed; what the code itself writes to standard error still is.
func TestPanicsSaidAsGo(t *testing.T) {
	var stderr bytes.Buffer
	s, err := New(Options{Stdout: io.Discard, Stderr: &stderr, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	evalAll(t, s, "var np *struct{ A int }", "var ip *int", "var e error", `import "log"`)
	for _, c := range []struct{ src, want string }{
		{"np.A", "panic: nil pointer dereference: a value used here is nil (one returned beside an error?) [yaegi: reflect: call of reflect.Value.Field on zero Value]"},
		{"x := *ip + 1", "panic: nil pointer dereference: "},
		{"e.Error()", "panic: method called on a nil interface value (one returned beside an error?) [yaegi: reflect: Method on nil interface value]"},
		{`panic("boom")`, "panic: boom"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error starting %q", c.src, err, c.want)
		}
	}
	file := "package main\n\nimport \"fmt\"\n\ntype T struct{ A int }\n\nfunc main() {\n\tvar p *T\n\tfmt.Println(p.A)\n}\n"
	if err := s.LoadSource(ctx, "nil.go", file); err == nil || !strings.HasPrefix(err.Error(), "nil.go: panic: nil pointer dereference: ") {
		t.Errorf("a file's nil dereference: %v", err)
	}
	if err := s.Eval(ctx, `log.Print("written by the code")`); err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); strings.Contains(got, "panic") || !strings.Contains(got, "written by the code") {
		t.Errorf("standard error: %q, want the log line and no panic line", got)
	}
}

// A name nothing defines is "undefined: NAME", where yaegi says "incomplete type" or "constant
// definition loop"; Go 1.21's builtins that yaegi lacks and packages not imported say so; a Go
// file's errors name its own lines, whatever it imports.
// A constant yaegi rejects as a "constant definition loop" that is none says what Go says, where
// it says it, the session's constants known; one that reads an undefined name says that. A
// constant that overflows its type, which yaegi wraps without a word, is refused before it runs.
func TestConstantSaidAsGo(t *testing.T) {
	s, _ := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, "const one = 1", "const (\n\tk0 = iota\n\tk1\n)", "const gone = 7", "gone := 100", "var n8 int8 = 100",
		`import "math"`, "const tiny = math.SmallestNonzeroFloat64") // a constant go/types cannot read here
	for _, c := range []struct{ src, want string }{
		{`const k = 1 + "a"`, `1:11: invalid operation: 1 + "a" (mismatched types untyped int and untyped string) [yaegi: constant definition loop]`},
		{`const k int = "a"`, `1:15: cannot use "a" (untyped string constant) as int value in constant declaration`},
		{"const (\n\ta = 2\n\tb int8 = 300\n)", "3:11: cannot use 300 (untyped int constant) as int8 value in constant declaration (overflows)"},
		{"const (\n\ta2 = 2\n\tb2 = a2 + \"x\"\n)", "3:7: invalid operation: a2 + \"x\" (mismatched types untyped int and untyped string)"},
		{"const d = 1 / 0", "1:15: invalid operation: division by zero"},
		{`const e = one + "s"`, `1:11: invalid operation: one + "s" (mismatched types untyped int and untyped string) [yaegi: constant definition loop]`},
		{"const u = nothere + 1", "undefined: nothere [yaegi: constant definition loop]"},
		{`const cg = gone + "s"`, `1:12: invalid operation: gone + "s" (mismatched types int and untyped string)`}, // gone is a variable now
		{"const cx = gone + 1", "1:12: gone + 1 (value of type int) is not constant"},                              // yaegi: 0
		// overflows yaegi would wrap (const b int8 = 2 * 200 read -112)
		{"const b int8 = 2 * 200", "1:16: cannot use 2 * 200 (untyped int constant 400) as int8 value in constant declaration (overflows)"},
		{"var v8 int8 = one * 200", "1:15: cannot use one * 200 (untyped int constant 200) as int8 value in variable declaration (overflows)"},
		{"x8 := uint8(0)\nx8 += k1 << 8", "2:7: k1 << 8 (untyped int constant 256) overflows uint8"},
		{"func f8() int8 { return one * 128 }", "1:25: cannot use one * 128 (untyped int constant 128) as int8 value in return statement (overflows)"},
		{"for i := 0; i < 1; i++ {\n\tvar q uint8 = 1 << 9\n\t_ = q\n}", "2:16: cannot use 1 << 9 (untyped int constant 512) as uint8 value in variable declaration (overflows)"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error saying %q", c.src, err, c.want)
		}
	}
	// What Go accepts runs: a constant that fits, a name the session declared again as a variable
	// (gone), a constant declared again (one, here 300), arithmetic on variables (n8 * 2 wraps at
	// run time in Go too).
	for _, src := range []string{"const fine = one + 2", "var g8 int8 = int8(gone) * 100", "t2 := tiny * 2", "const one = 300\nvar i16 int16 = one * 100", "w8 := n8 * 2", "var k8 uint8 = k1 << 7", `const cl = len("abc") + math.MaxInt8`} {
		if err := s.Eval(ctx, src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	if err := s.Eval(ctx, "var o8 int8 = one"); err == nil || !strings.Contains(err.Error(), "cannot use one (untyped int constant 300) as int8 value") {
		t.Errorf("var o8 int8 = one after const one = 300: %v, want the overflow", err)
	}
}

// An input whose value Go would refuse to give its type is refused before it runs, in Go's words
// (the session's constants and variables of predeclared types known): yaegi converted it without
// a word, or said so oddly. Another compile error go/types finds where yaegi does is said in Go's
// words, yaegi's after them; one about a name go/types does not know keeps yaegi's.
func TestGoWords(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, "f64 := 1.5", "const lim = 3", "n := 1", "xs := []float64{2.5}", "var e any = 1", "c := eqflib.DiTPresets[\"tiny\"]",
		"func half(x float64) float64 { return x / 2 }", "type pt struct{ x float64 }", "func (q *pt) twice() float64 { return q.x * 2 }", "func twice(k int) int { return 2 * k }", "func unrelated(half int) int { return half }", // a parameter named half does not forget half
		"p := pt{2.5}", "pp := &p", "func mid(x int) int { return x / 2 }", "func mid(x float64) float64 { return x / 2 }")
	for _, c := range []struct{ src, want string }{
		// what yaegi ran, converting: -56, 2, 4, 5 (Go: refused)
		{"var v int8 = n * 200", "1:14: cannot use n * 200 (value of type int) as int8 value in variable declaration"},
		{"var w float32 = n + 1", "1:17: cannot use n + 1 (value of type int) as float32 value in variable declaration"},
		{"var i int = f64 * 2", "1:13: cannot use f64 * 2 (value of type float64) as int value in variable declaration"},
		{"var j int = xs[0] * 2", "1:13: cannot use xs[0] * 2 (value of type float64) as int value in variable declaration"},
		// the session's functions, types, methods and variables of its types (yaegi: 2, 4, 5, 2)
		{"var h int = half(3) * 2", "1:13: cannot use half(3) * 2 (value of type float64) as int value in variable declaration"},
		{"var px int = p.x * 2", "1:14: cannot use p.x * 2 (value of type float64) as int value in variable declaration"},
		{"var pt2 int = pp.twice()", "1:15: cannot use pp.twice() (value of type float64) as int value in variable declaration"},
		{"var md int = mid(5)", "1:14: cannot use mid(5) (value of type float64) as int value in variable declaration"}, // mid declared again
		// a package's struct value: go/types knows its fields (yaegi: -56)
		{"var dd int8 = c.Depth * 100", "1:15: cannot use c.Depth * 100 (value of type int) as int8 value in variable declaration"},
		{"var k int = e", "1:13: cannot use e (variable of interface type any) as int value in variable declaration: need type assertion"},
		// a package's functions, methods and constants (gopackages.go; yaegi: 64, "constant definition loop", a call)
		{"var t8 int8 = c.Tokens() * 100", "1:15: cannot use c.Tokens() * 100 (value of type int) as int8 value in variable declaration"},
		{"cfg := c; cfg.Depth = 2.5", "1:23: cannot use 2.5 (untyped float constant) as int value in assignment (truncated)"},
		{"z, err := zoo.Open(3)", "1:20: cannot use 3 (untyped int constant) as string value in argument to zoo.Open"},
		{`import "time"; dd := time.Second * 2.5`, "1:36: 2.5 (untyped float constant) truncated to int64"},
		// statements after imports: the check knows what they import, so nothing ran
		{`import "math/rand"; fmt.Println("ran first"); var v8 int8 = rand.Intn(3) * 100`, "1:61: cannot use rand.Intn(3) * 100 (value of type int) as int8 value in variable declaration"},
		// what yaegi refused in its words
		{`func f() int { return "a" }`, `1:23: cannot use "a" (untyped string constant) as int value in return statement`},
		{`var y int8 = "s"`, `1:14: cannot use "s" (untyped string constant) as int8 value in variable declaration`},
		{"func k() { var m map[string]int; m[1] = 2 }", "1:36: cannot use 1 (untyped int constant) as string value in map index"},
		{"var g float32 = f64", "1:17: cannot use f64 (variable of type float64) as float32 value in variable declaration"},
		{`func f3() int { return "a" }; var v3 int8 = "s"`, `1:24: cannot use "a" (untyped string constant) as int value in return statement`}, // the first by position
		{"if 1 { }", "1:4: non-boolean condition in if statement [yaegi: panic: CFG post-order panic: reflect"},
		{"for i := lim; i; i++ {}", "1:15: non-boolean condition in for statement [yaegi: non-bool used as for condition]"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q…", c.src, err, c.want)
		}
	}
	if strings.Contains(out.String(), "ran first") {
		t.Errorf("a refused input ran: %q", out.String())
	}
	// What Go takes runs: an any takes any value, a variable declared again takes its new type, a
	// package's value's fields and methods (the methods go/types is not told of) are used.
	out.Reset()
	for _, src := range []string{`e = "s"`, "e", `n := "now a string"`, "var m string = n", "m", "var d int = c.Depth * 2", "d", "c2 := c; c2.Depth = 3", "c2.Depth", "var tk int = c.Tokens() + c2.Depth", "tk",
		"type pt struct{ x int }", "var px2 int = pt{3}.x * 2", "px2",
		// a struct with the fields' names of a session's type and other types is not told as it
		`ns := struct{ x string }{"ns"}`, "var nss string = ns.x", "nss",
		// a session's named type, which the interpreter holds as its structure (float64), and a
		// value of a session's interface type (yaegi's own wrapper) are not told as those
		"type celsius float64", "tc := celsius(3)", "var tc2 celsius = tc", "tc2",
		"type shape interface{ area() float64 }", "type sq struct{ s float64 }", "func (q sq) area() float64 { return q.s * q.s }",
		"var sh shape = sq{2}", "var sh2 shape = sh", "sh2.area()",
		// a package's types as Go has them: an interface a package's type implements
		`import "time"`, "var st fmt.Stringer = time.Second", "st.String()", "var ms int64 = int64(time.Second / time.Millisecond)", "ms",
		// an interface with unexported methods (ast.Expr's exprNode), which reflect cannot show a type to have
		`import "go/ast"`, `var ex ast.Expr = &ast.Ident{Name: "x"}`, "ex.(*ast.Ident).Name"} {
		if err := s.Eval(ctx, src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if got, want := strings.Fields(out.String()), []string{"s", "now", "a", "string", "4", "3", "19", "6", "ns", "3", "4", "1s", "1000", "x"}; !slices.Equal(got, want) {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// What Go's compiler refuses and yaegi ran (without a word, or until it panicked in its own
// words) is refused before it runs, in Go's words at Go's positions (each message is what `go
// vet` of the same lines says; `go build`'s break error reads "break is not in a loop, switch, or
// select"); what Go takes beside each runs as Go runs it.
func TestRefusedBeforeRun(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, `m := map[string]int{"a": 1}`, "type pt struct{ X int }", `mp := map[string]pt{"a": {1}}`, "func (p *pt) Inc() { p.X++ }",
		"two := func() (int, int) { return 1, 2 }", `str := "ab"`, "n := 3", "xs := []int{1, 2}")
	for _, c := range []struct{ src, want string }{
		// yaegi ran these without a word: p pointed at a copy, x held 1, h() read 0, the first
		// case ran, a copy was changed, break and fallthrough did nothing
		{`fmt.Println("ran"); p := &m["a"]`, `1:27: invalid operation: cannot take address of m["a"] (map index expression of type int)`},
		{`fmt.Println("ran"); x := two()`, "1:26: assignment mismatch: 1 variable but two returns 2 values"},
		{"func h() int { }", "1:16: missing return"},
		{`switch 1 { case 1: fmt.Println("ran"); case 1: }`, "1:45: duplicate case 1 (constant of type int) in expression switch"},
		{`mp["a"].X = 7`, `1:1: cannot assign to struct field mp["a"].X in map`},
		{"pt{}.Inc()", "1:6: cannot call pointer method Inc on pt"},
		{"break", "1:1: break not in for, switch, or select statement"},
		{"switch 1 { case 1: fallthrough }", "1:20: cannot fallthrough final case in switch"},
		{`switch n { case "a": fmt.Println("ran") }`, `1:17: cannot convert "a" (untyped string constant) to type int`},
		// yaegi panicked in its words after running what came before
		{`fmt.Println("ran"); str[0] = 'x'`, "1:21: cannot assign to str[0] (neither addressable nor a map index expression)"},
		{"for i := range 3.5 { _ = i }", "1:16: cannot range over 3.5 (untyped float constant)"},
		{"b := map[[]int]int{}", "1:10: invalid map key type []int"},
		{"c := data.Clip()", "1:16: missing argument in conversion to data.Clip"},
		{"c := pt(1, 2)", "1:12: too many arguments in conversion to pt"},
		{`fmt.Println("ran"); n()`, "1:21: invalid operation: cannot call n (variable of type int): int is not a function"},
		{"var a [3]int; a[3] = 1", "1:17: invalid argument: index 3 out of bounds [0:3]"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
	if out.Len() > 0 {
		t.Errorf("a refused input ran: %q", out.String())
	}
	for _, src := range []string{"p := &xs[0]", "*p = 5", `mp["a"] = pt{7}`, "q := &pt{}", "q.Inc()", "x, y := two()", "func h() int { for {} }",
		`func h2() int { panic("no") }`, `switch 1 { case 1: fallthrough; case 2: fmt.Println("fell") }`, "for { break }",
		`str = str[:1] + "x"`, "k := map[[2]int]int{{1, 2}: 3}", `fmt.Println(xs, m, mp, q.X, x+y, str, k[[2]int{1, 2}])`} {
		if err := s.Eval(ctx, src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	if got, want := out.String(), "fell\n[5 2] map[a:1] map[a:{7}] 1 3 ax 3\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// typeErrors reports errors in what was typed, never in the session's constants it declares.
func TestTypeErrorsBlameTheInput(t *testing.T) {
	consts := map[string]string{"bad": "const bad int8 = 1000", "k": "const k = 3"}
	if errs := typeErrors("const ok2 = k + 1", known{decls: consts}); len(errs) != 0 {
		t.Errorf("an error in a session constant blamed on the input: %v", errs)
	}
	errs := typeErrors("var b8 int8 = k * 50", known{decls: consts})
	if len(errs) != 1 || errs[0].Error() != "1:15: cannot use k * 50 (untyped int constant 150) as int8 value in variable declaration (overflows)" || !errs[0].declarations {
		t.Errorf("var b8 int8 = k * 50: %v, want its overflow at 1:15", errs)
	}
}

func TestUndefinedSaidAsGo(t *testing.T) {
	s, _ := newTestSession(t)
	ctx := context.Background()
	evalAll(t, s, "defined := 1", "func twiceIt(x int) int { return 2 * x }", "type pt struct{ A int }")
	for _, c := range []struct{ src, want string }{
		{"y := nothere", "undefined: nothere [yaegi: "},
		{"nothere", "undefined: nothere [yaegi: "},
		{"var z = nothere", "undefined: nothere [yaegi: "},
		{"w := zzz + defined + aaa + len(eqflib.DiTPresets)", "undefined: aaa, zzz [yaegi: "},
		{"u := nothere3 + twiceIt(pt{1}.A)", "undefined: nothere3 [yaegi: "}, // functions and types are no globals of yaegi's
		{"y2 := twiceIt(nothere6)", "undefined: nothere6"},
		{"w2 := nothere7 + twiceIt(1)", "undefined: nothere7 [yaegi: "}, // after which yaegi's globals cannot be read
		// (min and max of two or more arguments go/types knows run: minmax.go; of one they do not)
		{"y := max(1)", "undefined: max (Go 1.21's min, max and clear are not in yaegi v0.16.1"},
		{"var m = min(1)", "undefined: min (Go 1.21's"},
		{"clear(map[int]int{})", "undefined: clear (Go 1.21's"},
		{`errors.New("b")`, `: undefined: errors (import "errors")`},
		{`e := errors.New("b")`, `1:6: undefined: errors (import "errors") [yaegi: `}, // a declaration's: the same hint
		{`e2 := errors.New(nothere8)`, `undefined: errors, nothere8 [yaegi: `},        // two names: no hint for one
		{"rand.Intn(3)", `: undefined: rand (import "math/rand" or "crypto/rand" or "math/rand/v2")`},
		// Other REPLs' commands typed without the colon.
		{"help", "1:1: undefined: help (the session's commands start with a colon: :help lists them)"},
		{" quit() ", "undefined: quit (the session's commands start with a colon: :quit leaves (so does Ctrl-D); :help lists them)"},
		{"exit", "undefined: exit (the session's commands start with a colon: :quit leaves"},
	} {
		err := s.Eval(ctx, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.src, err, c.want)
		}
	}
	// The word in an expression is a name like any other, and one the session declares is its own.
	if err := s.Eval(ctx, "help + 1"); err == nil || strings.Contains(err.Error(), "colon") || !strings.Contains(err.Error(), "undefined: help") {
		t.Errorf("help + 1: %v, want undefined: help without the commands' hint", err)
	}
	evalAll(t, s, `help := "mine"`)
	if err := s.Eval(ctx, "help"); err != nil {
		t.Errorf("help, declared: %v", err)
	}
	// A file whose function uses max of one argument (two run: minmax.go): yaegi's scope is left
	// in a state where reading its globals panicked (a crash of eqf run).
	maxFile := "package main\n\nimport \"fmt\"\n\ntype r struct{ N int }\n\nfunc (x r) String() string { return fmt.Sprint(x.N) }\n\nvar ns = []int{1, 2}\n\nfunc main() {\n\tfmt.Println(max(len(ns)))\n}\n"
	if err := s.LoadSource(ctx, "max.go", maxFile); err == nil || !strings.HasPrefix(err.Error(), "max.go:12:14: undefined: max (Go 1.21's") {
		t.Errorf("a file using max: %v", err)
	}
	globals(s.in) // yaegi's Globals panics here; globals recovers (completion reads them too)
	// After a dot import, a name may be the package's: nothing is said undefined.
	dot, _ := newTestSession(t)
	evalAll(t, dot, `import . "strings"`)
	if err := dot.Eval(ctx, "y := nothere"); err == nil || strings.Contains(err.Error(), "undefined: nothere [") {
		t.Errorf("after a dot import: %v", err)
	}
	// One's own min is no builtin.
	if err := s.LoadSource(ctx, "min.go", "package main\n\nfunc min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc main() { _ = min(3, 2) }\n"); err != nil {
		t.Errorf("a file defining min: %v", err)
	}
	file := "package main\n\nimport (\n\t\"fmt\"\n\tmr \"math/rand\"\n)\n\nfunc main() {\n\tfmt.Println(mr.Intn(1))\n\ty := undefinedThing + 1\n\tfmt.Println(y)\n}\n"
	if err := s.LoadSource(ctx, "u.go", file); err == nil || !strings.HasPrefix(err.Error(), "u.go:10:7: undefined: undefinedThing") {
		t.Errorf("a file's undefined name: %v, want it at 10:7", err)
	}
}

func TestIdentifiers(t *testing.T) {
	keys := func(m map[string]bool) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct {
		src            string
		used, declared []string
	}{
		{"y := a + b.c", []string{"a", "b"}, []string{"y"}},
		{"z := q.a + a + q", []string{"a", "q"}, []string{"z"}},
		{"var v T = f(x)", []string{"T", "f", "x"}, []string{"v"}},
		{"type P struct{ A int }\nfunc g(q P) int { return q.A + r }", []string{"P", "int", "q", "r"}, []string{"A", "P", "g", "q"}},
		{"for i, x := range xs { _ = S{K: i + x} }", []string{"S", "i", "x", "xs"}, []string{"i", "x"}},
		{"L:\nfor { break L }", nil, []string{"L"}},
		{"x := (", nil, nil},
	} {
		used, declared := identifiers(c.src)
		uses := map[string]bool{}
		for name, off := range used {
			uses[name] = true
			if !strings.HasPrefix(c.src[off:], name) { // where its first use is
				t.Errorf("%q: %s first used at byte %d, where %q is", c.src, name, off, c.src[off:])
			}
		}
		if c.src == "z := q.a + a + q" && used["a"] != 11 {
			t.Errorf("%q: a first used at byte %d, want 11 (q.a is a selector)", c.src, used["a"])
		}
		if got := keys(uses); !reflect.DeepEqual(got, c.used) {
			t.Errorf("%q uses %v, want %v", c.src, got, c.used)
		}
		if got := keys(declared); !reflect.DeepEqual(got, c.declared) {
			t.Errorf("%q declares %v, want %v", c.src, got, c.declared)
		}
	}
}

func TestLineFilter(t *testing.T) {
	var b bytes.Buffer
	for _, c := range []struct {
		f          lineFilter
		drop, pass []string
	}{
		{lineFilter{&b, yaegiPanicTrace},
			[]string{"1:35: panic: main(...)\n", "8:2: panic: main.__main1(...)\n", "12:3: panic: main.f.func(...)\n"},
			[]string{"1:35: panic: main(...) and more\n", "panic: main(...)\n"}},
		{lineFilter{&b, yaegiLogPanic},
			[]string{"2026/12/02 07:37:26 nil type\n", "nil reflect type\n"},
			[]string{"2026/12/02 07:37:26 nil types\n", "a nil type\n"}},
	} {
		for _, w := range append(c.drop, c.pass...) {
			if n, err := c.f.Write([]byte(w)); n != len(w) || err != nil {
				t.Errorf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if got, want := b.String(), strings.Join(c.pass, ""); got != want {
			t.Errorf("passed %q, want %q", got, want)
		}
		b.Reset()
	}
}

// The symbol tables' packages for go/types: types as Go has them (named ones one object each,
// with their methods), constants as constants, and the variables a session can tell.
func TestTablePackages(t *testing.T) {
	type named int
	packagesMu.Lock()
	defer packagesMu.Unlock()
	for _, c := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[int8](), "int8"}, {reflect.TypeFor[[]float64](), "[]float64"},
		{reflect.TypeFor[map[string][]int](), "map[string][]int"}, {reflect.TypeFor[*[3]bool](), "*[3]bool"},
		{reflect.TypeFor[func(int, ...string) string](), "func(int, ...string) string"}, {reflect.TypeFor[any](), "any"},
		{reflect.TypeFor[error](), "error"}, {reflect.TypeFor[<-chan rune](), "<-chan int32"}, {reflect.TypeFor[unsafe.Pointer](), "unsafe.Pointer"},
		{reflect.TypeFor[time.Duration](), "time.Duration"}, {reflect.TypeFor[[]named](), "[]github.com/equilibriumforcing/eqf/kernel/repl.named"},
		{reflect.TypeFor[struct{ A int }](), "struct{A int}"}, {reflect.TypeFor[*eqflib.DiTConfig](), "*github.com/equilibriumforcing/eqf/eqflib.DiTConfig"},
		{reflect.TypeFor[recursive](), "github.com/equilibriumforcing/eqf/kernel/repl.recursive"},
		{reflect.TypeFor[[]paper.Number](), "[]github.com/equilibriumforcing/eqf/paper.Number"},
	} {
		if got := tablePkgs.typeOf(c.t).String(); got != c.want {
			t.Errorf("typeOf(%v) = %s, want %s", c.t, got, c.want)
		}
	}
	// one object per named type, the package's as imported; its fields, methods and their receivers
	eq, err := tablePkgs.Import("github.com/equilibriumforcing/eqf/eqflib")
	if err != nil {
		t.Fatal(err)
	}
	dit := eq.Scope().Lookup("DiTConfig")
	if dit == nil || dit.Type() != tablePkgs.typeOf(reflect.TypeFor[eqflib.DiTConfig]()) {
		t.Fatalf("eqflib.DiTConfig: %v, not the type typeOf gives", dit)
	}
	tokens, _, _ := types.LookupFieldOrMethod(dit.Type(), false, eq, "Tokens")
	depth, _, _ := types.LookupFieldOrMethod(dit.Type(), false, eq, "Depth")
	if tokens == nil || tokens.Type().String() != "func() int" || depth == nil || depth.Type().String() != "int" {
		t.Errorf("DiTConfig.Tokens %v, .Depth %v; want func() int and int", tokens, depth)
	}
	rec := tablePkgs.typeOf(reflect.TypeFor[recursive]())
	if next, _, _ := types.LookupFieldOrMethod(rec, false, nil, "Next"); next == nil || next.Type().(*types.Pointer).Elem() != rec {
		t.Errorf("recursive.Next: %v, not a pointer to recursive", next)
	}
	// constants: untyped as untyped, typed with their type and value; a function; a variable
	tm, _ := tablePkgs.Import("time")
	mt, _ := tablePkgs.Import("math")
	for obj, want := range map[types.Object]string{
		tm.Scope().Lookup("Second"):     "const time.Second time.Duration = 1000000000",
		mt.Scope().Lookup("MaxInt8"):    "const math.MaxInt8 untyped int = 127",
		mt.Scope().Lookup("Pi"):         "const math.Pi untyped float = 3.14159",
		tm.Scope().Lookup("Since"):      "func time.Since(time.Time) time.Duration",
		eq.Scope().Lookup("DiTPresets"): "var github.com/equilibriumforcing/eqf/eqflib.DiTPresets map[string]github.com/equilibriumforcing/eqf/eqflib.DiTConfig",
	} {
		got := fmt.Sprint(obj)
		if c, ok := obj.(*types.Const); ok {
			got += " = " + c.Val().String()
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s, want %s", got, want)
		}
	}
	if _, err := tablePkgs.Import("os/exec/nothere"); err == nil {
		t.Error("a path no table has imported")
	}
	// a variable of a type the interpreter made is not told
	for rt, want := range map[reflect.Type]bool{
		reflect.TypeFor[[]time.Duration](): true, reflect.TypeFor[named](): true, reflect.TypeFor[any](): true, reflect.TypeFor[recursive](): true,
		reflect.TypeFor[struct{ A int }](): false, reflect.TypeFor[map[string]struct{}](): false, reflect.TypeFor[func() *struct{}](): false,
		reflect.TypeFor[interface{ M() }](): false,
	} {
		if got := tellable(rt, map[reflect.Type]bool{}); got != want {
			t.Errorf("tellable(%v) = %v, want %v", rt, got, want)
		}
	}
}

// recursive is a struct type that holds itself.
type recursive struct {
	Name string
	Next *recursive
}
