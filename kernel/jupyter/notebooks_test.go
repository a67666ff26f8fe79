package jupyter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// notebook is the part of the .ipynb format the tests read.
type notebook struct {
	Metadata struct {
		Kernelspec struct {
			Name        string `json:"name"`
			DisplayName string `json:"display_name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	Cells []cell `json:"cells"`
}

type cell struct {
	CellType       string          `json:"cell_type"`
	Source         stringOrLines   `json:"source"`
	Outputs        []output        `json:"outputs"`
	ExecutionCount *int            `json:"execution_count"`
	Metadata       json.RawMessage `json:"metadata"`
}

type output struct {
	OutputType string                   `json:"output_type"`
	Name       string                   `json:"name"`
	Text       stringOrLines            `json:"text"`
	Data       map[string]stringOrLines `json:"data"`
	Ename      string                   `json:"ename"`
	Evalue     string                   `json:"evalue"`
}

// stringOrLines is nbformat's multiline string: a string or a list of lines.
type stringOrLines string

func (s *stringOrLines) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = stringOrLines(one)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return err
	}
	*s = stringOrLines(strings.Join(lines, ""))
	return nil
}

func readNotebook(t *testing.T, path string) notebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

// TestCommittedNotebooks: every notebook is committed with outputs stripped, runs on the eqf
// kernel, starts with the documented set-up cell (and has no other), and imports explicitly.
func TestCommittedNotebooks(t *testing.T) {
	files, _ := filepath.Glob("../../notebooks/*.ipynb")
	if len(files) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	for _, f := range files {
		nb := readNotebook(t, f)
		if nb.Metadata.Kernelspec.Name != KernelName {
			t.Errorf("%s: kernelspec %q, want %q", f, nb.Metadata.Kernelspec.Name, KernelName)
		}
		setups, firstCode := 0, -1
		for i, c := range nb.Cells {
			if len(c.Outputs) > 0 || c.ExecutionCount != nil {
				t.Errorf("%s: cell %d is committed with outputs (strip them)", f, i)
			}
			if c.CellType != "code" {
				continue
			}
			if firstCode < 0 {
				firstCode = i
			}
			src := string(c.Source)
			if strings.Contains(src, "%goworkfix") || strings.Contains(src, "go work") || strings.Contains(src, "go get") {
				setups++
				if i != firstCode || !strings.HasSuffix(strings.TrimSpace(src), SetupCell) {
					t.Errorf("%s: cell %d: the set-up must be the first code cell and end with\n%s", f, i, SetupCell)
				}
			}
			if strings.Contains(src, `"github.com/janpfeifer/gonb`) {
				t.Errorf("%s: cell %d imports GoNB's packages directly, which needs a `go get` the filtered proxy refuses: use notebooks/display", f, i)
			}
			if i != firstCode && strings.Contains(src, "%%") && !strings.HasPrefix(strings.TrimSpace(src), "import (") {
				t.Errorf("%s: cell %d: cells import explicitly (start with an import block)", f, i)
			}
		}
		if setups != 1 {
			t.Errorf("%s: %d set-up cells, want exactly 1", f, setups)
		}
	}
}
