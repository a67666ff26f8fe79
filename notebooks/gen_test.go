package notebooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed experiment notebooks are what gen.go writes now: one per paper experiment, none
// stale (run `go generate ./notebooks` after changing paper.Experiments or gen.go).
func TestGeneratedNotebooksUpToDate(t *testing.T) {
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "gen.go", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, out)
	}
	want, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	want = append(want, filepath.Join(dir, "README.md")) // the index, with the committed results' table
	if len(want) == 0 {
		t.Fatal("gen.go wrote no notebooks")
	}
	for _, w := range want {
		name := filepath.Base(w)
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("notebooks/%s is missing or stale: run `go generate ./notebooks` (after committing a result, too)", name)
		}
	}
	have, _ := filepath.Glob("[0-9][0-9]-*.ipynb")
	have = have[1:] // 00-quickstart is written by hand
	if len(have) != len(want)-1 {
		t.Errorf("%d experiment notebooks committed, gen.go writes %d: remove the stale ones", len(have), len(want)-1)
	}
}
