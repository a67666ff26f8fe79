package repl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScripts runs every _test/*.go file (yaegi's convention: a Go file or a script of REPL
// lines, ending in an "// Output:" comment) through a fresh session, as `eqf run` does, and
// compares what it prints with the comment.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("_test/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in _test/: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, ok := expectedOutput(string(src))
			if !ok {
				t.Fatalf("%s has no // Output: comment", file)
			}
			var out, errOut bytes.Buffer
			s, err := New(Options{Stdout: &out, Stderr: &errOut, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Load(context.Background(), file); err != nil {
				t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
			}
			if got := trimLines(out.String()); got != want {
				t.Errorf("output differs\n--- got:\n%s\n--- want:\n%s\nstderr:\n%s", got, want, errOut.String())
			}
		})
	}
}

// expectedOutput reads the "// Output:" block at the end of a script.
func expectedOutput(src string) (string, bool) {
	i := strings.LastIndex(src, "// Output:")
	if i < 0 {
		return "", false
	}
	var lines []string
	for _, l := range strings.Split(src[i+len("// Output:"):], "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(l, "//")))
	}
	return strings.Join(lines, "\n"), true
}

// trimLines drops trailing spaces on every line and blank lines at the ends.
func trimLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
