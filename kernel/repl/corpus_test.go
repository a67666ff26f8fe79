package repl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

const corpusFile = "testdata/corpus.txt"

// corpusEntry is one typed line and what it should print.
type corpusEntry struct {
	input string
	want  []string
}

func readCorpus(t *testing.T) (entries []corpusEntry, lines []string) {
	b, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "> "):
			entries = append(entries, corpusEntry{input: l[2:]})
		case l == "" || strings.HasPrefix(l, "#"):
		case len(entries) > 0:
			entries[len(entries)-1].want = append(entries[len(entries)-1].want, l)
		}
	}
	return entries, lines
}

// TestCorpus types every corpus line into one session, in order, and compares what each prints
// (stdout, and "error: …" for an evaluation error) with the corpus.
func TestCorpus(t *testing.T) {
	entries, lines := readCorpus(t)
	if len(entries) < 100 {
		t.Errorf("the corpus has %d inputs; keep at least 100", len(entries))
	}
	var out, errOut bytes.Buffer
	s, err := New(Options{Stdout: &out, Stderr: &errOut, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]string, len(entries))
	for i, e := range entries {
		out.Reset()
		if err := s.Eval(context.Background(), e.input); err != nil {
			fmt.Fprintln(&out, "error: "+err.Error())
		}
		if o := strings.TrimRight(out.String(), "\n"); o != "" {
			got[i] = strings.Split(o, "\n")
		}
		if !linesMatch(got[i], e.want) {
			t.Errorf("> %s\n--- got:\n%s\n--- want:\n%s", e.input, strings.Join(got[i], "\n"), strings.Join(e.want, "\n"))
		}
	}
	if os.Getenv("EQF_CORPUS_UPDATE") != "" {
		var b strings.Builder
		k := -1
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "> "):
				k++
				b.WriteString(l + "\n")
				for _, g := range got[k] {
					b.WriteString(g + "\n")
				}
			case l == "" || strings.HasPrefix(l, "#"):
				b.WriteString(l + "\n")
			}
		}
		if err := os.WriteFile(corpusFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// linesMatch compares output lines; a wanted line ending in "…" matches by its prefix.
func linesMatch(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if p, ok := strings.CutSuffix(want[i], "…"); ok {
			if !strings.HasPrefix(got[i], p) {
				return false
			}
		} else if strings.TrimRight(got[i], " ") != want[i] {
			return false
		}
	}
	return true
}
