package repl

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
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
	for _, src := range []string{"var np *struct{ A int }", "var ip *int", "var e error", `import "log"`} {
		if err := s.Eval(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
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

func TestPanicTraceFilter(t *testing.T) {
	var b bytes.Buffer
	f := panicTraceFilter{&b}
	for _, w := range []string{"1:35: panic: main(...)\n", "8:2: panic: main.__main1(...)\n", "12:3: panic: main.f.func(...)\n"} {
		if n, err := f.Write([]byte(w)); n != len(w) || err != nil {
			t.Errorf("Write(%q) = %d, %v", w, n, err)
		}
	}
	for _, w := range []string{"1:35: panic: main(...) and more\n", "panic: main(...)\n", "a line\n"} {
		if _, err := f.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := b.String(), "1:35: panic: main(...) and more\npanic: main(...)\na line\n"; got != want {
		t.Errorf("passed %q, want %q", got, want)
	}
}
