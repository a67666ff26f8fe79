package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// These tests drive `eqf repl` as a user would: the binary on a pseudo-terminal, keys typed,
// the screen read back (escape sequences stripped).

var (
	buildOnce sync.Once
	binDir    string // removed by TestMain once every test has run
	binPath   string
	buildErr  error
)

// TestMain removes the eqf binary the tests built (62 MB a run, left in the temporary folder
// before).
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// eqfBinary builds the eqf command once per test run.
func eqfBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "eqf-repl-test")
		if err != nil {
			buildErr = err
			return
		}
		binDir = dir
		binPath = filepath.Join(dir, "eqf")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building eqf: %v", buildErr)
	}
	return binPath
}

// screen is a REPL on a pseudo-terminal.
type screen struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	buf  bytes.Buffer
	mark int // expect searches after this offset of the cleaned text
	done chan error
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|\r`)

func startREPL(t *testing.T, history string) *screen {
	t.Helper()
	cmd := exec.Command(eqfBinary(t), "repl", "-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "TERM=xterm", "EQF_HISTORY="+history)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{t: t, pty: f, cmd: cmd, done: make(chan error, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		f.Close()
	})
	s.expect("eqf> ")
	return s
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansi.ReplaceAllString(s.buf.String(), "")
}

// typeKeys sends keys as typed (\r is Enter).
func (s *screen) typeKeys(keys string) {
	s.t.Helper()
	if _, err := s.pty.Write([]byte(keys)); err != nil {
		s.t.Fatal(err)
	}
}

// expect waits until want appears on the screen after the last match, and moves past it.
func (s *screen) expect(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		txt := s.text()
		if i := strings.Index(txt[s.mark:], want); i >= 0 {
			seen := txt[s.mark : s.mark+i+len(want)]
			s.mark += i + len(want)
			return seen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited 60 s for %q; screen after the last match:\n%s", want, txt[s.mark:])
		}
		time.Sleep(20 * time.Millisecond) // polling the screen, not timing the test
	}
}

// line types a line and waits for the next prompt; it returns what was printed in between.
func (s *screen) line(input string) string {
	s.t.Helper()
	s.typeKeys(input + "\r")
	s.expect(input)
	out := s.expect("eqf> ")
	return strings.TrimSpace(strings.TrimSuffix(out, "eqf> "))
}

func TestREPLOnTerminal(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	s := startREPL(t, hist)

	// An expression.
	if out := s.line("40 + 2"); out != "42" {
		t.Errorf("40 + 2 printed %q", out)
	}
	// A GoMLX graph built and run from interpreted code, over several lines.
	s.typeKeys("sq, _ := eqf.Exec1(func(x *graph.Node) *graph.Node {\r")
	s.expect("...> ")
	s.typeKeys("return graph.Mul(x, x)\r")
	s.expect("...> ")
	s.typeKeys("})\r")
	s.expect("eqf> ")
	if out := s.line("sq.Call([]float32{1, 2, 3})"); !strings.Contains(out, "Float32[3] [1 4 9]") {
		t.Errorf("graph call printed %q", out)
	}
	// Sampling from the exact oracle with a sampler.
	s.line("data, _ := eqflib.NewGaussian([]float64{2, -1, 0.5, 3}, 0.5)")
	s.line("field, _ := eqflib.NewOracle(data, eqflib.OracleFM)")
	s.line("x0, _ := eqflib.Randn(eqflib.NewRNG(3), 256, 1, 4, 1, 1)")
	s.line("res, err := eqflib.SampleEuler(field, x0, eqflib.Options{Steps: 100})")
	if out := s.line("res.NFE"); out != "100" {
		t.Errorf("res.NFE printed %q", out)
	}
	s.line("rep, _ := data.CompareMoments(res.X)")
	if out := s.line("math.Abs(rep.MeanErr) < 0.05 && math.Abs(rep.VarRatio-1) < 0.1"); out != "true" {
		t.Errorf("oracle samples off the data's moments: %q (%s)", out, s.line("rep"))
	}
	// A panic in interpreted code is reported and the session goes on.
	s.line("var empty []int")
	if out := s.line("empty[3]"); !strings.Contains(out, "panic:") || !strings.Contains(out, "index out of range") {
		t.Errorf("panic printed %q", out)
	}
	if out := s.line("res.NFE + 1"); out != "101" {
		t.Errorf("after the panic, res.NFE + 1 printed %q", out)
	}
	// Ctrl-C cancels a running loop, not the REPL. The loop says it runs only after 5,000
	// iterations, so n > 1000 holds however slowly a loaded machine interprets it.
	s.line("n := 0")
	s.typeKeys("for { n++; if n == 5000 { fmt.Println(\"looping\") } }\r")
	s.expect("looping")
	s.typeKeys("\x03")
	s.expect("interrupted")
	s.expect("eqf> ")
	if out := s.line("n > 1000"); out != "true" {
		t.Errorf("the loop did not run before Ctrl-C: n > 1000 printed %q", out)
	}
	// Tab completes package members.
	s.typeKeys("eqflib.CFunctionW\t")
	s.expect("eqflib.CFunctionWarp")
	s.typeKeys("(0.8, 0.001)\r")
	s.expect("(0.8, 0.001)")
	if out := s.expect("eqf> "); !strings.Contains(out, "warp c(α=0.8") {
		t.Errorf("completed call printed %q", out)
	}
	// Up-arrow recalls the previous line.
	s.typeKeys("\x1b[A")
	s.expect("eqflib.CFunctionWarp(0.8, 0.001)")
	s.typeKeys("\r")
	if out := s.expect("eqf> "); !strings.Contains(out, "warp c(α=0.8") {
		t.Errorf("history recall printed %q", out)
	}
	s.typeKeys(":quit\r")
	s.expectExit(":quit")
	h, err := os.ReadFile(hist)
	if err != nil || !strings.Contains(string(h), "40 + 2") || !strings.Contains(string(h), "eqflib.CFunctionWarp(0.8, 0.001)") {
		t.Errorf("history file %s: %v\n%s", hist, err, h)
	}
	// A new session recalls the last session's lines.
	s2 := startREPL(t, hist)
	s2.typeKeys("\x1b[A")
	s2.expect(":quit")
	s2.typeKeys("\x03")
	s2.expect("eqf> ")
	s2.typeKeys("\x04")
	s2.expectExit("Ctrl-D")
}

// expectExit waits for the REPL to end with status 0 after what (the key that should end it).
func (s *screen) expectExit(what string) {
	s.t.Helper()
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Errorf("%s: exit %v", what, err)
		}
	case <-time.After(30 * time.Second):
		s.t.Fatalf("%s did not end the REPL", what)
	}
}

// TestREPLFromPipe: with stdin not a terminal, lines are read without prompts and values
// printed, and a failing input makes the exit status non-zero.
func TestREPLFromPipe(t *testing.T) {
	cmd := exec.Command(eqfBinary(t), "repl", "-dir", t.TempDir())
	cmd.Stdin = strings.NewReader("w, _ := eqflib.CFunctionWarp(0.8, 0.001)\nfmt.Printf(\"%.6f\\n\", w.A)\nw.Eta(1) == w.A\n")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "1.859663\ntrue\n" {
		t.Errorf("piped REPL: %v\n%q", err, out)
	}
	cmd = exec.Command(eqfBinary(t), "repl", "-dir", t.TempDir())
	cmd.Stdin = strings.NewReader("undefinedThing + 1\n2\n")
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "undefined: undefinedThing") || !strings.Contains(string(out), "2\n") {
		t.Errorf("piped REPL with an error: err %v\n%s", err, out)
	}
}

// TestRunScript runs a Go file with `eqf run`.
func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "warp.go")
	src := "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/equilibriumforcing/eqf/eqflib\"\n\t\"github.com/equilibriumforcing/eqf/plots\"\n)\n\n" +
		"func main() {\n\tw, _ := eqflib.CFunctionWarp(0.8, 0.001)\n\tfmt.Printf(\"A %.4f\\n\", w.A)\n\tfig, _ := plots.WarpFigure([]eqflib.Warp{w}, 10)\n\tpaths, err := eqf.Show(fig)\n\tfmt.Println(len(paths), err)\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(eqfBinary(t), "run", "-dir", filepath.Join(dir, "figs"), file).CombinedOutput()
	if err != nil || string(out) != "A 1.8597\n2 <nil>\n" {
		t.Errorf("eqf run: %v\n%q", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "figs", "*.png"))
	if len(pngs) != 1 {
		t.Errorf("eqf run wrote %v", pngs)
	}
	out, err = exec.Command(eqfBinary(t), "run", filepath.Join(dir, "missing.go")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing.go") {
		t.Errorf("eqf run of a missing file: %v %s", err, out)
	}
}

// TestRunDeclaresPreloadNames: a Go program run by `eqf run` may declare at its top level the
// name of a package the session preloads (data, plots, zoo), as go run lets a file that does not
// import it (the session said "plots redeclared in this block"). The output is go run's.
func TestRunDeclaresPreloadNames(t *testing.T) {
	file := filepath.Join(t.TempDir(), "names.go")
	src := "package main\n\nimport \"fmt\"\n\nvar data = []float64{1, 2}\n\ntype zoo struct{ n int }\n\n" +
		"func plots(z zoo) int { return z.n * len(data) }\n\nfunc main() {\n\tfmt.Println(data, plots(zoo{3}))\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(eqfBinary(t), "run", "-dir", t.TempDir(), file).CombinedOutput()
	if err != nil || string(out) != "[1 2] 6\n" {
		t.Errorf("eqf run: %v\n%q", err, out)
	}
}

// TestRunArgsAndExit: `eqf run FILE.go ARGS…` gives the program its arguments (os.Args, and the
// flag package, which is compiled: it read eqf's own), and its os.Exit and log.Fatal end eqf run
// with their status and nothing more, as go run does (yaegi made them panics: exit status 1,
// "panic: os.Exit(3)").
func TestRunArgsAndExit(t *testing.T) {
	file := filepath.Join(t.TempDir(), "args.go")
	src := `package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	n := flag.Int("n", 1, "count")
	flag.Parse()
	fmt.Println(filepath.Base(os.Args[0]), len(os.Args), *n, flag.Args())
	switch *n {
	case 7:
		log.SetFlags(0)
		log.Fatal("seven")
	case 8:
		os.Exit(3)
	}
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		out  string
		code int
	}{
		{nil, "args 1 1 []\n", 0},
		{[]string{"-n", "5", "x", "y"}, "args 5 5 [x y]\n", 0},
		{[]string{"-n", "7"}, "args 3 7 []\nseven\n", 1},
		{[]string{"-n", "8"}, "args 3 8 []\n", 3},
		{[]string{"-bad"}, "flag provided but not defined: -bad\nUsage of args:\n  -n int\n    \tcount (default 1)\n", 2},
	} {
		out, err := exec.Command(eqfBinary(t), append([]string{"run", "-dir", t.TempDir(), file}, c.args...)...).CombinedOutput()
		code := 0
		if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.out || code != c.code {
			t.Errorf("eqf run args.go %v: %q, exit status %d; want %q, %d (go run's)", c.args, out, code, c.out, c.code)
		}
	}
}

// TestRunSeveralFiles: `eqf run` of several Go files, or of a folder (its _test.go left out), runs
// them as one program, as go run does: a function uses what another file declares; an error names
// its file and line there; two mains, a script among files and no file at all are refused.
func TestRunSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mainGo := write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(helper(2), scale) }\n")
	helperGo := write("helper.go", "package main\n\nimport \"strings\"\n\nconst scale = 21\n\nfunc helper(x int) string { return strings.Repeat(\"*\", x*scale/21) }\n")
	write("helper_test.go", "package main\n\nfunc main() {}\n") // a second main, left out as go run leaves it
	for _, args := range [][]string{{mainGo, helperGo}, {helperGo, mainGo}, {dir}} {
		out, err := exec.Command(eqfBinary(t), append([]string{"run"}, args...)...).CombinedOutput()
		if err != nil || string(out) != "** 21\n" {
			t.Errorf("eqf run %v: %v %q, want \"** 21\\n\"", args, err, out)
		}
	}
	bad := write("bad.go", "package main\n\nfunc shout(s string) string {\n\treturn s + undefinedX\n}\n")
	two := write("two.go", "package main\n\nfunc main() {}\n")
	script := write("lines.go", "x := 1\nx\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{mainGo, helperGo, bad}, "bad.go:4:13: undefined: undefinedX"},
		{[]string{mainGo, helperGo, two}, "two.go: main redeclared (" + mainGo + " declares it)"},
		{[]string{mainGo, script}, "lines.go: not a Go file of package main"},
		{nil, "run: FILE: none given"},
	} {
		out, err := exec.Command(eqfBinary(t), append([]string{"run"}, c.args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("eqf run %v: %v %q, want an error saying %q", c.args, err, out, c.want)
		}
	}
}
