package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/internal/browser"
	"github.com/traefik/yaegi/interp"
)

func TestIncomplete(t *testing.T) {
	for src, want := range map[string]bool{
		"1 + 2":                       false,
		"f(1,":                        true,
		"func f() {":                  true,
		"func f() {\n}":               false,
		"x := []int{\n1, 2,\n":        true,
		"s := `raw":                   true,
		"a := 1 +":                    true,
		"/* open":                     true,
		"fmt.Println(\"}\") // {":     false,
		"if x {\n} else {\n\tfoo()\n": true,
	} {
		if got := incomplete(src); got != want {
			t.Errorf("incomplete(%q) = %v, want %v", src, got, want)
		}
	}
}

func newTestSession(t *testing.T) (*Session, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: io.Discard, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return s, &out
}

func TestEvalImportsResetAndErrors(t *testing.T) {
	s, out := newTestSession(t)
	ctx := context.Background()
	must := func(src string) {
		t.Helper()
		if err := s.Eval(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	must(`import "fmt"`) // preloaded: harmless
	must("import (\n\t\"github.com/equilibriumforcing/eqf/eqflib\"\n\tmrand \"math/rand\"\n)")
	must(`mrand.New(mrand.NewSource(1)).Intn(1) == 0`)
	if err := s.Eval(ctx, `import eqflib "math"`); err == nil || !strings.Contains(err.Error(), "already bound") {
		t.Errorf("rebinding a preloaded name: %v", err)
	}
	if err := s.Eval(ctx, `import "github.com/not/here"`); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("unknown import: %v", err)
	}
	must("y := 21")
	must("y * 2")
	if err := s.Eval(ctx, `panic("boom")`); err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Errorf("panic: %v", err)
	}
	must("y + 1") // the session survives
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(ctx, "y"); err == nil || !strings.Contains(err.Error(), "undefined: y") {
		t.Errorf("after Reset, y: %v", err)
	}
	must("eqflib.SIMD == true || eqflib.SIMD == false") // preloads are back
	if got := out.String(); got != "true\n42\n22\ntrue\n" {
		t.Errorf("printed %q", got)
	}
	ctxCancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Eval(ctxCancelled, "for { }"); err != ErrInterrupted {
		t.Errorf("cancelled eval: %v", err)
	}
}

// The session's ctx is the running evaluation's context: a library call given it sees the
// cancellation that interrupts the evaluation (the interpreter alone would leave the call running
// in the background), and the next evaluation's ctx is live again; it prints as what it is.
func TestSessionContext(t *testing.T) {
	// ctx is the running evaluation's context, not an earlier one's.
	fresh, printed := newTestSession(t)
	cancelled, stop := context.WithCancel(context.Background())
	if err := fresh.Eval(cancelled, "ctx.Err()"); err != nil {
		t.Fatal(err)
	}
	stop() // that evaluation's context, cancelled once it has ended: the next one's ctx is live
	printed.Reset()
	evalAll(t, fresh, "ctx.Err()", "ctx")
	if got, want := printed.String(), "<nil>\nthe session's context: Ctrl-C cancels it while an evaluation runs\n"; got != want {
		t.Errorf("after an evaluation whose context was cancelled, ctx.Err() and ctx print %q, want %q", got, want)
	}
	if raceDetector {
		// An interrupted evaluation's goroutine goes on inside the interpreter while the session
		// notes the failure (as TestGoroutinePanic's goroutines do): its frames race.
		t.Skip("yaegi's frames race with the session while an interrupted evaluation ends")
	}
	s, _ := newTestSession(t)
	stopped := make(chan struct{})
	// A compiled function waiting on its context, beside the session's own helpers.
	if err := s.in.Use(interp.Exports{showPath + "/" + path.Base(showPath): {"Wait": reflect.ValueOf(func(c context.Context) { <-c.Done(); close(stopped) })}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if err := s.Eval(ctx, "__show.Wait(ctx)"); err != ErrInterrupted {
		t.Errorf("an evaluation cancelled while a library call waits on ctx: %v, want ErrInterrupted", err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Error("the library call given ctx still runs 10 s after its evaluation was cancelled")
	}
}

func TestComplete(t *testing.T) {
	s, _ := newTestSession(t)
	if err := s.Eval(context.Background(), "w, _ := eqflib.CFunctionWarp(0.8, 0.001)"); err != nil {
		t.Fatal(err)
	}
	has := func(list []string, x string) bool {
		for _, y := range list {
			if y == x {
				return true
			}
		}
		return false
	}
	head, c, tail := s.Complete("x := eqflib.CFunction) + 1", len("x := eqflib.CFunction"))
	if head != "x := eqflib." || tail != ") + 1" || !has(c, "CFunction") || !has(c, "CFunctionWarp") || len(c) != 2 {
		t.Errorf("eqflib.CFunction: %q %q %q", head, c, tail)
	}
	if _, c, _ := s.Complete("graph.ReduceAllS", 16); !has(c, "ReduceAllSum") {
		t.Errorf("graph.ReduceAllS: %q", c)
	}
	// a package the interpreter compiles from source (stdgeneric.go), whose symbol table is empty
	if err := s.Eval(context.Background(), `import "slices"`); err != nil {
		t.Fatal(err)
	}
	if _, c, _ := s.Complete("slices.So", 9); !has(c, "Sort") || !has(c, "SortFunc") || !has(c, "Sorted") || has(c, "Max") {
		t.Errorf("slices.So: %q", c)
	}
	if _, c, _ := s.Complete("w.", 2); !has(c, "Rho") || !has(c, "A") || !has(c, "Eta") {
		t.Errorf("w.: %q", c)
	}
	if _, c, _ := s.Complete("eqf", 3); !has(c, "eqflib") || !has(c, "eqf") {
		t.Errorf("eqf: %q", c)
	}
	if _, c, _ := s.Complete(":lo", 3); len(c) != 1 || c[0] != ":load " {
		t.Errorf(":lo: %q", c)
	}
	if _, c, _ := s.Complete("__v", 3); len(c) != 0 {
		t.Errorf("internal names completed: %q", c)
	}
}

func TestCommandsAndServe(t *testing.T) {
	s, out := newTestSession(t)
	script := filepath.Join(t.TempDir(), "lines.go")
	if err := os.WriteFile(script, []byte("z := 6\nfunc twice(x int) int {\n\treturn 2 * x\n}\ntwice(z)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := ":help\n:load " + script + "\n:dir\nplots.WarpFigure([]eqflib.Warp{eqflib.IdentityWarp()}, 4)\n:serve\n:nope\n:quit\nnever()\n"
	err := s.Script(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "1 input(s) failed") { // :nope
		t.Errorf("Script: %v", err)
	}
	text := out.String()
	for _, want := range []string{"Preloaded packages:", "eqf.Exec1", ":serve", "12\n", s.Dir() + "\n", "wrote " + s.Dir(), "serving " + s.Dir() + " at http://127.0.0.1:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	url, err := s.Serve("")
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("Serve: %q %v", url, err)
	}
	pngs, _ := filepath.Glob(filepath.Join(s.Dir(), "*.png"))
	if len(pngs) != 1 {
		t.Fatalf("figures in the session folder: %v", pngs)
	}
	resp, err := http.Get(url + filepath.Base(pngs[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Errorf("GET the figure: %d, %d bytes", resp.StatusCode, len(body))
	}
	if _, err := (&Session{opts: Options{Dir: t.TempDir()}}).Serve("99999"); err == nil || !strings.Contains(err.Error(), "[0, 65535]") {
		t.Errorf("bad port: %v", err)
	}

	// The front page is a live gallery: shown.json lists the figures newest first, and a second
	// figure shows up there and, in a browser, at the top of the page.
	shown := func() []shownItem {
		t.Helper()
		resp, err := http.Get(url + "shown.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var items []shownItem
		if err := json.NewDecoder(resp.Body).Decode(&items); err != nil {
			t.Fatal(err)
		}
		return items
	}
	first := shown()
	if len(first) != 1 || first[0].Image != filepath.Base(pngs[0]) || first[0].Page != strings.TrimSuffix(first[0].Image, ".png")+".html" {
		t.Fatalf("shown.json with one figure: %+v", first)
	}
	if err := s.Script(strings.NewReader("plots.WarpFigure([]eqflib.Warp{eqflib.IdentityWarp()}, 8)\n")); err != nil {
		t.Fatal(err)
	}
	second := shown()
	if len(second) != 2 || second[1] != first[0] || second[0].Image <= first[0].Image {
		t.Fatalf("shown.json after a second figure: %+v, want it first", second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dom, err := browser.Headless(ctx, t.TempDir(), "--dump-dom", url)
	if err != nil {
		t.Fatal(err)
	}
	latest := string(dom)
	if i := strings.Index(latest, `id="earlier"`); i >= 0 {
		latest = latest[:i]
	}
	if !strings.Contains(latest, `<img src="`+second[0].Image) || !strings.Contains(string(dom), `<img src="`+first[0].Image) {
		t.Errorf("the gallery page in Chromium does not show the newest figure on top and the first below:\n%s", dom)
	}
}

// Two goroutines evaluating in one session (two notebook cells at once) both work: evaluations
// run one at a time, and completion may run beside them. go test -race checks the locking.
func TestConcurrentEval(t *testing.T) {
	s, out := newTestSession(t)
	if err := s.Eval(context.Background(), "var total int"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				errs <- s.Eval(context.Background(), "import \"strings\"\ntotal += len(strings.Repeat(\"x\", 1))")
				s.Complete("stri", 4)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if err := s.Eval(context.Background(), "total"); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "20" {
		t.Errorf("total after 2 × 10 concurrent evaluations = %q, want 20", got)
	}
}

// :doc prints a symbol's signature and doc comment through go doc, for eqf's packages and the
// standard library; an unknown package or symbol is an error.
func TestDoc(t *testing.T) {
	s, err := New(Options{Stdout: io.Discard, Stderr: io.Discard, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := s.Doc("eqflib.CFunctionWarp")
	if err != nil || !strings.Contains(doc, "func CFunctionWarp(alpha, sigmaEnd float64) (*CFunction, error)") {
		t.Errorf(":doc eqflib.CFunctionWarp: %v\n%s", err, doc)
	}
	if doc, err = s.Doc("strings.Cut"); err != nil || !strings.Contains(doc, "func Cut(s, sep string)") {
		t.Errorf(":doc strings.Cut: %v\n%s", err, doc)
	}
	// Go's slices and maps, with what the session has of them (stdgeneric.go)
	for name, want := range map[string]string{
		"slices.Sort": "In this session: the session's own slices.Sort, taking []E where Go's takes S ~[]E",
		"iter.Pull":   "In this session: none: the interpreter's iter has Seq and Seq2",
		"maps.Keys":   "In this session: the session's own maps.Keys, taking map[K]V where Go's takes M ~map[K]V (a result has that type, not the argument's named type); yaegi's copy lacks it or cannot call it. An iterator here is a function of a yield function",
	} {
		if doc, err := s.Doc(name); err != nil || !strings.Contains(doc, want) || !strings.Contains(doc, "func "+name[strings.Index(name, ".")+1:]+"[") {
			t.Errorf(":doc %s: %v\n%s", name, err, doc)
		}
	}
	// a name the session declared: its declaration as typed, a type's with its methods
	for _, src := range []string{"type gauge struct{ v int }", "func (g gauge) Read() int { return g.v }", "func (g *gauge) Set(v int) { g.v = v }", "func twice(x float64) float64 { return 2 * x }"} {
		if err := s.Eval(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"gauge":      "type gauge struct{ v int }\nfunc (g *gauge) Set(v int)\nfunc (g gauge) Read() int\n(declared in this session)\n",
		"twice":      "func twice(x float64) float64\n(declared in this session)\n",
		"gauge.Read": "func (g gauge) Read() int\n(declared in this session)\n",
	} {
		if doc, err := s.Doc(name); err != nil || doc != want {
			t.Errorf(":doc %s: %v\n%q, want %q", name, err, doc, want)
		}
	}
	if doc, err = s.Doc("cmp.Ordered"); err != nil || strings.Contains(doc, "In this session") || !strings.Contains(doc, "type Ordered interface") {
		t.Errorf(":doc cmp.Ordered, yaegi's own: %v\n%s", err, doc)
	}
	for _, bad := range []string{"", "nope.X", "eqflib.NoSuchThing"} {
		if _, err := s.Doc(bad); err == nil || !strings.Contains(err.Error(), ":doc") {
			t.Errorf(":doc %q: %v, want an error naming :doc", bad, err)
		}
	}
	// A session started outside the repository (eqf repl in a scratch folder) finds the same
	// docs, eqf's packages and the GoMLX ones go.mod pins.
	t.Chdir(t.TempDir())
	for name, want := range map[string]string{
		"zoo.LoadModel":     "func LoadModel(",
		"tensors.FromValue": "func FromValue",
		"strings.Cut":       "func Cut(s, sep string)",
	} {
		if doc, err := s.Doc(name); err != nil || !strings.Contains(doc, want) {
			t.Errorf("outside the repository, :doc %s: %v\n%s", name, err, doc)
		}
	}
}

// TestResultIsSaved: printing an experiment's result saves it into the session folder as
// `eqf paper` saves it (the corpus checks the printed table).
func TestResultIsSaved(t *testing.T) {
	s, out := newTestSession(t)
	for _, src := range []string{`pe, _ := paper.ByName("eqm_weighting")`, `pres, err := pe.Run(context.Background(), paper.Config{Quick: true})`, `pres`} {
		if err := s.Eval(context.Background(), src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	dir := filepath.Join(s.opts.Dir, "eqm_weighting")
	for _, name := range []string{"results.md", "results.json", "eqm_weighting.png", "eqm_weighting.html"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.Contains(out.String(), "saved in "+dir) {
		t.Errorf("printed %q, want it to say where the result was saved", out.String())
	}
}

// A Go file that fails to compile leaves its imports in the interpreter: loading it again once
// fixed imports them once (it said "sort/_.go redeclared in this block"), and :load says that
// the session keeps the broken declarations.
func TestLoadAfterAFailedLoad(t *testing.T) {
	var out, stderr bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &stderr, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	broken, fixed := filepath.Join(dir, "broken.go"), filepath.Join(dir, "fixed.go")
	const file = "package main\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n)\n\nfunc main() {\n\txs := []int{3, 1, 2}\n\tsort.Ints(xs)\n\tfmt.Println(xs, %s)\n}\n"
	for path, arg := range map[string]string{broken: "notDefined", fixed: "len(xs)"} {
		if err := os.WriteFile(path, []byte(strings.Replace(file, "%s", arg, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err = s.Script(strings.NewReader(":load " + broken + "\n:load " + fixed + "\n"))
	if err == nil || !strings.Contains(err.Error(), "1 input(s) failed") {
		t.Errorf("Script: %v", err)
	}
	if got := stderr.String(); !strings.Contains(got, "broken.go:11:18: undefined: notDefined (the session keeps what the file declared before the error, some of it broken: once the file is fixed, :reset, then :load it)") || strings.Contains(got, "fixed.go") {
		t.Errorf("errors: %q", got)
	}
	if got := out.String(); got != "[1 2 3] 3\n" {
		t.Errorf("printed %q", got)
	}
}

// TestLoadFiles: several Go files load as one program (a function uses what a later file
// declares), and an error in a declaration names its file and its line there.
func TestLoadFiles(t *testing.T) {
	s, out := newTestSession(t)
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(twice(k)) }\n")
	b := write("b.go", "package main\n\n// k is read by a.go\nconst k = 21\n\nfunc twice(x int) int { return 2 * x }\n")
	if err := s.LoadFiles(context.Background(), a, b); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "42\n" {
		t.Errorf("printed %q, want \"42\\n\"", got)
	}
	// :load takes several files, or the folder
	for _, arg := range []string{a + " " + b, dir} {
		out.Reset()
		if _, err := s.command(":load " + arg); err != nil || out.String() != "42\n" {
			t.Errorf(":load %s: %v, printed %q", arg, err, out.String())
		}
	}
	c := write("c.go", "package main\n\nfunc thrice(x int) int {\n\treturn 3 * y\n}\n")
	err := s.LoadFiles(context.Background(), b, c)
	if want := c + ":4:13: undefined: y"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("an error in the second file: %v, want %q…", err, want)
	}
}

// TestImportClash: a declaration of a name the session imports a package as says so and what to
// do; a session that omits a preload (Options.Omit, as eqf run does for what a program declares,
// ProgramNames) takes it.
func TestImportClash(t *testing.T) {
	s, _ := newTestSession(t)
	ctx := context.Background()
	for src, want := range map[string]string{
		"func plots() int { return 3 }": "1:1: plots redeclared in this block (plots is a package the session preloads: name yours otherwise; eqf run leaves out a preload whose name a Go program declares)",
		"type zoo struct{}":             "(zoo is a package the session preloads: name yours otherwise;",
	} {
		if err := s.Eval(ctx, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", src, err, want)
		}
	}
	evalAll(t, s, `import "sort"`)
	if err := s.Eval(ctx, "func sort() {}"); err == nil || !strings.HasSuffix(err.Error(), "sort redeclared in this block (sort is a package the session imports: name yours otherwise)") {
		t.Errorf("a function named as an import: %v", err)
	}
	file := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(file, []byte("package main\n\nimport \"fmt\"\n\nvar data, n = 2, 3\n\ntype zoo int\n\nfunc (z zoo) plots() int { return int(z) }\n\nfunc main() { fmt.Println(data * n) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names := ProgramNames([]string{file, filepath.Join(t.TempDir(), "missing.go")})
	if got, want := strings.Join(names, " "), "data n zoo main"; got != want {
		t.Errorf("ProgramNames: %q, want %q (a method's name is none)", got, want)
	}
	var out bytes.Buffer
	o, err := New(Options{Stdout: &out, Stderr: io.Discard, Dir: t.TempDir(), Omit: names})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.LoadFiles(ctx, file); err != nil || out.String() != "6\n" {
		t.Errorf("a program declaring data and zoo: %v, printed %q", err, out.String())
	}
	evalAll(t, o, "plots.Figure{}.Title") // a preload it does not declare is there
}

// Several expressions separated by commas print side by side, as a call's results do, each as
// it is (an error too); yaegi read "expected 1 expression". An assignment is not one.
func TestExpressionLists(t *testing.T) {
	s, out := newTestSession(t)
	linesPrint(t, s, out, "1  two\n1  two  3.5\n2  z  <nil>\n2  error: bad\n",
		"x := 1", `y := "two"`, "x, y", "x, y, 3.5 // three", `x, y = 2, "z"`, "var err error", "x, y, err",
		`x, fmt.Errorf("bad")`)
	out.Reset()
	if err := s.Eval(context.Background(), "x, nope"); err == nil || !strings.Contains(err.Error(), "undefined: nope") || out.Len() > 0 {
		t.Errorf("x, nope: %v, printed %q", err, out)
	}
	linesPrint(t, s, out, "z  2\n", "a, b := x, y", "b, a")
}
