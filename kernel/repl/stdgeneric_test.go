package repl

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStdGeneric: the standard library's generic functions called in the session as a user
// types them give what Go's give (stdgeneric.go; internal/stdgeneric's own tests hold them
// against Go's packages on random inputs, this that the interpreter runs them).
func TestStdGeneric(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	for _, src := range []string{`import "slices"`, `import "maps"`, `x := []float64{3, 1, 2, 1}`, `names := []string{"shapes", "pan", "maze"}`,
		`m := map[string]int{"a": 1, "b": 2}`, `type series []float64`, `sr := series{2, 0.5}`} {
		if err := s.Eval(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	x := func() []float64 { return []float64{3, 1, 2, 1} }
	sorted := func() []float64 { y := x(); slices.Sort(y); return y }
	names := func() []string { return []string{"shapes", "pan", "maze"} }
	m := map[string]int{"a": 1, "b": 2}
	byLen := func(a, b string) int { return len(a) - len(b) }
	rows := []struct {
		src  string
		want any
	}{
		{`slices.Equal(x, []float64{3, 1, 2, 1})`, true},
		{`slices.Compare(x, []float64{3, 1})`, slices.Compare(x(), []float64{3, 1})},
		{`slices.Index(x, 2)`, slices.Index(x(), 2)},
		{`slices.Contains(names, "pan")`, true},
		{`slices.IndexFunc(names, func(n string) bool { return n[0] == 'm' })`, 2},
		{`slices.Insert(slices.Clone(x), 1, 9, 8)`, slices.Insert(x(), 1, 9, 8)},
		{`slices.Delete(slices.Clone(x), 1, 3)`, slices.Delete(x(), 1, 3)},
		{`slices.DeleteFunc(slices.Clone(x), func(v float64) bool { return v < 2 })`, slices.DeleteFunc(x(), func(v float64) bool { return v < 2 })},
		{`slices.Replace(slices.Clone(x), 0, 2, 7)`, slices.Replace(x(), 0, 2, 7)},
		{`slices.Clone(x)`, x()},
		{`slices.Compact([]int{1, 1, 2, 2, 1})`, []int{1, 2, 1}},
		{`len(slices.Grow(x, 10)) == 4 && cap(slices.Grow(x, 10)) >= 14`, true},
		{`cap(slices.Clip(x[:2]))`, 2},
		{`slices.Concat(x, x[:1])`, slices.Concat(x(), x()[:1])},
		{`slices.Repeat(names[:1], 2)`, slices.Repeat(names()[:1], 2)},
		{`slices.Min(x)`, slices.Min(x())},
		{`slices.Max(names)`, slices.Max(names())},
		{`slices.MaxFunc(names, func(a, b string) int { return len(a) - len(b) })`, slices.MaxFunc(names(), byLen)},
		{`slices.MinFunc(names, func(a, b string) int { return len(a) - len(b) })`, slices.MinFunc(names(), byLen)},
		{`slices.IsSorted(x)`, false},
		{`y := slices.Clone(x); slices.Sort(y)`, nil}, // several statements: none printed
		{`y`, sorted()},
		{`slices.IsSorted(y)`, true},
		{`slices.BinarySearch(y, 2)`, strings.Join(strings.Fields(fmt.Sprint(slices.BinarySearch(sorted(), 2))), "  ")}, // the session's two spaces
		{`n := slices.Clone(names); slices.SortFunc(n, func(a, b string) int { return len(a) - len(b) })`, nil},
		{`n`, func() []string { n := names(); slices.SortStableFunc(n, byLen); return n }()},
		{`slices.SortStableFunc(n, func(a, b string) int { return strings.Compare(b, a) })`, nil},
		{`n`, func() []string {
			n := names()
			slices.SortStableFunc(n, func(a, b string) int { return strings.Compare(b, a) })
			return n
		}()},
		{`r := slices.Clone(x); slices.Reverse(r)`, nil},
		{`r`, func() []float64 { r := x(); slices.Reverse(r); return r }()},
		{`c := slices.Clone(x)`, nil},
		{`c`, x()},
		{`slices.Max(sr)`, 2.0},
		{`maps.Equal(m, map[string]int{"b": 2, "a": 1})`, true},
		{`m2 := maps.Clone(m); maps.Copy(m2, map[string]int{"c": 3})`, nil},
		{`m2`, func() map[string]int { m2 := maps.Clone(m); m2["c"] = 3; return m2 }()},
		{`maps.DeleteFunc(m2, func(k string, v int) bool { return v > 1 })`, nil},
		{`m2`, map[string]int{"a": 1}},
		// Go 1.23's iterators, and a range over one (rangefunc.go)
		{`slices.Collect(slices.Values(x))`, x()},
		{`slices.Sorted(slices.Values(x))`, sorted()},
		{`slices.Sorted(maps.Keys(m))`, []string{"a", "b"}},
		{`slices.Collect(maps.Values(map[string]int{"k": 7}))`, []int{7}},
		{`maps.Collect(slices.All(names))`, maps.Collect(slices.All(names()))},
		{`slices.Collect(slices.Chunk(x, 3))`, slices.Collect(slices.Chunk(x(), 3))},
		{`slices.AppendSeq([]float64{9}, slices.Values(x))`, slices.AppendSeq([]float64{9}, slices.Values(x()))},
		{`slices.SortedFunc(slices.Values(names), func(a, b string) int { return len(a) - len(b) })`, slices.SortedStableFunc(slices.Values(names()), byLen)},
		{`it := slices.Values(x)`, nil}, // a variable holding an iterator (define.go)
		{`slices.Collect(it)`, x()},
		{`mi := maps.Clone(m); maps.Insert(mi, maps.All(map[string]int{"c": 3}))`, nil},
		{`mi`, map[string]int{"a": 1, "b": 2, "c": 3}},
		{`for i, v := range slices.All(names) { if i == 1 { fmt.Println(v) } }`, "pan"},
		{`total := 0.0; for v := range slices.Values(x) { if v == 2 { continue }; total += v }`, nil},
		{`total`, 5},
		{`for k, v := range maps.All(m) { if v == 2 { fmt.Println(k); break } }`, "b"},
		{`for v := range slices.Values(x) { switch { case v == 3: break }; fmt.Print(v, " ") }; fmt.Println()`, "3 1 2 1 "}, // the switch's break
		// a slice from a compiled package (stdgeneric.go's stdArgInserts; yaegi's compiler panicked)
		{`fw := strings.Fields("b a c"); slices.Sort(fw)`, nil},
		{`fw`, []string{"a", "b", "c"}},
		{`slices.Index(strings.Fields("x y"), "y")`, 1},
		{`slices.Sorted(slices.Values(strings.Fields("q p")))`, []string{"p", "q"}},
	}
	for _, r := range rows {
		out.Reset()
		if err := s.Eval(ctx, r.src); err != nil {
			t.Errorf("%s: %v", r.src, err)
			continue
		}
		want := ""
		if r.want != nil {
			want = fmt.Sprint(r.want) + "\n"
		}
		if got := out.String(); got != want {
			t.Errorf("%s printed %q, want %q (Go's)", r.src, got, want)
		}
	}
}

// TestTypeParamNames: names the session declares that are a generic function's type parameters'
// (E, K, V, S, T, yaegi's lookup of a type parameter's name found them) leave slices, maps, cmp
// and the functions and types a file declares working (stdgeneric.go's own type parameters end in
// _; typeargs.go renames a file's that its names clash with). Outputs are Go's.
func TestTypeParamNames(t *testing.T) {
	s, out := newTestSession(t)
	filePrints(t, s, out, "typeparams.go", typeParamsProgram, "4 50 b {1} 2.5\n")
	linesPrint(t, s, out, "-1\n[1 2]\n1\n[a]\n3\n7\n", `import ("cmp"; "maps"; "slices")`, "E, K, V, S := 1, 2, 3, 4", "cmp.Compare(1, 2)",
		"xs := []int{2, 1}", "slices.Sort(xs)", "xs", "slices.IndexFunc(xs, func(v int) bool { return v == 2 })",
		`slices.Sorted(maps.Keys(map[string]int{"a": 1}))`, "cmp.Or(0, 3)", "func second[S any](s []S) S { return s[1] }", "second([]int{6, 7})")
}

const typeParamsProgram = `package main

import "fmt"

var T = 50

type E struct{ n int }

type Box[T any] struct{ v T }

func (b Box[T]) Get() T { return b.v }

func first[T any](s []T) T { return s[0] }

func pair[E, K any](e E, k K) string { return fmt.Sprint(e, k) }

func main() {
	fmt.Println(first([]int{4}), T, Box[string]{"b"}.Get(), pair(E{1}, 2.5))
}
`

// TestStdStubsUpToDate: stdstubs_gen.go is what go generate writes from the toolchain's cmp,
// iter, slices and maps.
func TestStdStubsUpToDate(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "stubs.txt") // (not .go: go run would take it for a file to build)
	if out, err := exec.Command("go", "run", "./internal/stdgeneric/stubs/gen.go", fresh).CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile("stdstubs_gen.go"); err != nil || string(got) != string(want) {
		t.Errorf("stdstubs_gen.go is out of date (%v): run go generate ./kernel/repl", err)
	}
}

// TestStdGenericSaid: what the session's slices, maps and cmp lack is said as Go says it, with
// why; a range over a function is said as one; several statements that yaegi's compiler panics
// on run one by one, and a panic of the program in one does not run the statements before it
// again.
func TestStdGenericSaid(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	for _, src := range []string{`import "slices"`, `import "maps"`, `import "iter"`, `m := map[string]int{"a": 1}`, `x := []int{3, 1, 2}`,
		`func first[T any](s []T) T { return s[0] }`, `func seq(yield func(int) bool) { yield(1) }`, `k := 0`} {
		if err := s.Eval(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	for src, want := range map[string]string{
		`y := slices.Sortt(x)`: "1:6: undefined: slices.Sortt (did you mean slices.Sort?)",
		`iter.Pull(seq)`:       "1:1: undefined: iter.Pull (the interpreter's iter has Seq and Seq2, not Pull and Pull2",
		`slices.Nope(x)`:       "1:1: undefined: slices.Nope (:doc slices lists Go's; the interpreter's are All, AppendSeq, Backward, BinarySearch, ",
		// a range over a function the session cannot write as a call (a goto, a defer)
		`func find() int { for i, v := range slices.All(x) { if v == 1 { goto out } }; out: return -1 }`: "1:37: cannot range over slices.All(x) (value of type iter.Seq2[int, int]): yaegi v0.16.1, the interpreter, cannot range over a function",

		`for v := range seq { defer fmt.Println(v) }`: "1:16: cannot range over seq (value of type func(yield func(int) bool)): yaegi v0.16.1",
		// a range with a variable too many: Go's error, at its column
		`for a, b := range seq {}`:          "1:8: range over seq (value of type func(yield func(int) bool)) permits only one iteration variable",
		`for k, v := range maps.Keys(m) {}`: "1:8: range over maps.Keys(m) (value of type iter.Seq[string]) permits only one iteration variable",
	} {
		if err := s.Eval(ctx, src); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: error %v, want one starting %q", src, err, want)
		}
	}
	out.Reset()
	for _, src := range []string{`f := first(x)`, `k++; g := first(x); k++; first(x)`, `f`, `g`, `k`,
		`k++; var p *struct{ N int }; h := p.N`, `k`,
		// a result of a struct type the session declared, and one that refers to itself: declared
		// by their names (sessionStruct)
		`type pt struct{ X int }`, `pts := []pt{{4}}`, `pf := first(pts)`, `pf.X`,
		`type node struct{ v int; next *node }`, `nodes := []*node{{5, nil}}`, `nodes[0] = &node{6, nodes[0]}`, `nf := first(nodes)`, `nf.next.v`} {
		err := s.Eval(ctx, src)
		if (err != nil) != strings.Contains(src, "p.N") {
			t.Errorf("%s: %v", src, err)
		}
	}
	// f and g are 3; k is 2 after the second line (once each; its last value not printed, as no
	// line of several statements prints), 3 after the panic's (its k++ ran once: the panic was
	// the program's, not the compiler's)
	if got, want := out.String(), "3\n3\n2\n3\n4\n5\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestOrderedConstraint: a function of a type parameter constrained by cmp.Ordered takes untyped
// constants, as in Go (stdgeneric.go; yaegi: less(2.5, 1) read "untyped float does not implement
// cmp.Ordered"), and such a parameter keys a map, in a function and a generic type typed, and in
// a file. go/types, which does not know cmp's names, refuses none of it (it finds the map key
// "invalid", following from cmp.Ordered undefined: gotypes.go's refusedError).
func TestOrderedConstraint(t *testing.T) {
	s, out := newTestSession(t)
	evalAll(t, s, `import "cmp"`,
		"func index[T cmp.Ordered](xs []T) map[T]int { m := map[T]int{}; for i, x := range xs { m[x] = i }; return m }",
		"func less[T cmp.Ordered](a, b T) bool { return a < b }",
		"type seen[K cmp.Ordered] struct{ m map[K]bool }",
		"var sn seen[string]",
		`sn.m = map[string]bool{"a": true}`,
		`fmt.Println(index([]float64{2, 3}), index([]string{"x"}), less(1, 2), less(2.5, 1), sn.m["a"])`)
	file := "package main\n\nimport (\n\t\"cmp\"\n\t\"fmt\"\n)\n\nfunc count[K cmp.Ordered, V any](m map[K]V) map[K]int {\n\tc := map[K]int{}\n\tfor k := range m {\n\t\tc[k]++\n\t}\n\treturn c\n}\n\nfunc main() { fmt.Println(count(map[int]string{1: \"a\"})) }\n"
	loadAll(t, s, "ordered.go", file)
	if got, want := out.String(), "map[2:0 3:1] map[x:0] true false true\nmap[1:1]\n"; got != want {
		t.Errorf("printed %q, want %q (Go's)", got, want)
	}
}
