package notebooks

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
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

// Every sampler an experiment notebook rolls out or suggests trying is one eqflib.ParseSampler
// reads: the editable cell's `sampler = "…"` and each quoted sampler in the cell's "Try:" line.
func TestNotebookSamplersParse(t *testing.T) {
	files, _ := filepath.Glob("[1-3][0-9]-*.ipynb")
	quoted := regexp.MustCompile(`"([a-z0-9]+(?:[:,][^"\\]*)?)"`)
	var checked int
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(raw, &nb); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range nb.Cells {
			for _, line := range strings.Split(strings.Join(c.Source, ""), "\n") {
				if !strings.Contains(line, "Try:") && !strings.Contains(line, "sampler = ") {
					continue
				}
				for _, m := range quoted.FindAllStringSubmatch(line, -1) {
					s := m[1]
					if _, err := eqflib.RuleByName(strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' })[0]); err != nil {
						continue // a model name ("fm"), not a sampler
					}
					if _, err := eqflib.ParseSampler(s); err != nil {
						t.Errorf("%s: sampler %q: %v", f, s, err)
					}
					checked++
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d samplers checked in %d notebooks; want every experiment notebook's (≥ 20)", checked, len(files))
	}
}
