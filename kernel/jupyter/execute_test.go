//go:build notebook

package jupyter

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/paper"
)

// TestExecuteQuickstart executes notebooks/00-quickstart.ipynb headless on the "Go (eqf)"
// kernel (jupyter nbconvert --execute, Debian's Jupyter under /usr/bin/python3) and asserts on
// the stored outputs, like GoNB's own notebook tests. Run by `make test-notebooks` (part of
// `make test`), which installs Jupyter and builds GoNB first; EQF_GONB_BIN names the folder with
// gonb, goimports and gopls (default: the checkout's bin/).
func TestExecuteQuickstart(t *testing.T) {
	root, data := installKernel(t)
	outPath := filepath.Join(t.TempDir(), "quickstart.ipynb")
	cmd := exec.Command("/usr/bin/jupyter", "nbconvert", "--to", "notebook", "--execute",
		"--ExecutePreprocessor.kernel_name="+KernelName, "--ExecutePreprocessor.timeout=900",
		"--output", outPath, filepath.Join(root, "notebooks", "00-quickstart.ipynb"))
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert --execute: %v\n%s", err, tail(string(out), 4000))
	}
	nb := readNotebook(t, outPath)

	var stdout strings.Builder
	var pngs [][]byte
	var htmls []string
	for i, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				t.Errorf("cell %d: %s: %s", i, o.Ename, o.Evalue)
			case "stream":
				if o.Name == "stdout" {
					stdout.WriteString(string(o.Text))
				}
			case "display_data":
				if p, ok := o.Data["image/png"]; ok {
					b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(p), "\n", ""))
					if err != nil {
						t.Errorf("cell %d: image/png is not base64: %v", i, err)
					}
					pngs = append(pngs, b)
				}
				if h, ok := o.Data["text/html"]; ok {
					htmls = append(htmls, string(h))
				}
			}
		}
	}
	out := stdout.String()
	// Golden numbers (paper App. G; docs/derivations.md): c-function α = 0.8, σ_end = 0.001 and SD3 r = 3 levels.
	for _, want := range []string{
		"built with GOEXPERIMENT=simd: true, GOMLX_BACKEND=go:parallelism=-1", // the kernel's env
		"c-function: A = 1.859663, ρ(1) = 0.0010",
		"[1.0000 0.9643 0.9231 0.8750 0.8182 0.7500 0.6667 0.5625 0.4286 0.2500 0.0000]",
		"FM Euler               NFE 100",
		"EqF NAG (closed loop)  NFE 100",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// The oracle samples land on the data's moments (parsed from the printed table).
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "var ratio") {
			continue
		}
		var meanErr, ratio float64
		f := strings.Fields(line[strings.Index(line, "mean err"):])
		if _, err := fmt.Sscan(f[2], &meanErr); err != nil {
			t.Errorf("unparsable line %q", line)
			continue
		}
		fmt.Sscan(f[5], &ratio)
		if meanErr < -0.05 || meanErr > 0.05 || ratio < 0.9 || ratio > 1.1 {
			t.Errorf("oracle samples off the data's moments: %q", line)
		}
	}
	if len(pngs) != 2 {
		t.Errorf("%d PNG display_data outputs, want 2 (warps, trace)", len(pngs))
	}
	for i, b := range pngs {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("PNG %d: %v", i, err)
			continue
		}
		if img.Bounds().Dx() < 600 || img.Bounds().Dy() < 300 {
			t.Errorf("PNG %d is %v, too small for a figure", i, img.Bounds())
		}
	}
	if len(htmls) != 2 {
		t.Fatalf("%d HTML display_data outputs, want 2 (explorer, player)", len(htmls))
	}
	if !strings.Contains(htmls[0], "<iframe srcdoc=") || !strings.Contains(htmls[0], "η-warp explorer") || strings.Contains(htmls[0], "src=&#34;http") {
		t.Errorf("explorer output is not a self-contained iframe: %s", tail(htmls[0], 300))
	}
	if !strings.Contains(htmls[1], "maze clip, seed 7") || strings.Count(htmls[1], `data:image\/png;base64,`) != 16 {
		t.Errorf("player output lacks the clip's 16 frames (%d)", strings.Count(htmls[1], `data:image\/png;base64,`))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestExecuteNotebooks executes every generated notebook headless in one nbconvert run: the
// teaching notebooks (notebooks/01–09, on the oracle and the quick zoo) and one per paper
// experiment (notebooks/10–39, quick mode). Each must run without an error; an experiment
// notebook must display its figures and its results table, and every code cell of a teaching
// notebook after the set-up must print or display something (its exercises' answers included).
func TestExecuteNotebooks(t *testing.T) {
	root, data := installKernel(t)
	teaching, _ := filepath.Glob(filepath.Join(root, "notebooks", "0[1-9]-*.ipynb"))
	var experiments []string
	for _, pat := range []string{"1[0-9]-*.ipynb", "2[0-9]-*.ipynb", "3[0-9]-*.ipynb"} {
		m, _ := filepath.Glob(filepath.Join(root, "notebooks", pat))
		experiments = append(experiments, m...)
	}
	if len(experiments) < 21 || len(teaching) < 6 {
		t.Fatalf("%d experiment and %d teaching notebooks, want 21 and 6: run `go generate ./notebooks`", len(experiments), len(teaching))
	}
	// The answers are collapsed Markdown (Run All skips them): run them too, as code cells.
	answered := t.TempDir()
	for i, b := range teaching {
		teaching[i] = answerCells(t, b, answered)
	}
	outDir := t.TempDir()
	args := append([]string{"nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.kernel_name=" + KernelName,
		"--ExecutePreprocessor.timeout=900", "--output-dir", outDir}, append(teaching, experiments...)...)
	cmd := exec.Command("/usr/bin/jupyter", args...)
	cmd.Env = append(os.Environ(), "JUPYTER_DATA_DIR="+data)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert --execute: %v\n%s", err, tail(string(out), 4000))
	}
	t.Logf("%d notebooks executed in %s", len(teaching)+len(experiments), time.Since(start).Round(time.Second))
	for _, b := range append(teaching, experiments...) {
		name := filepath.Base(b)
		isExperiment := name >= "10"
		nb := readNotebook(t, filepath.Join(outDir, name))
		pngs, tables := 0, 0
		for i, c := range nb.Cells {
			shown := 0
			for _, o := range c.Outputs {
				switch {
				case o.OutputType == "error":
					t.Errorf("%s cell %d: %s: %s", name, i, o.Ename, o.Evalue)
				case o.OutputType == "stream" && o.Name == "stderr" && strings.Contains(string(o.Text), "panic"):
					t.Errorf("%s cell %d: %s", name, i, tail(string(o.Text), 500))
				case o.OutputType == "stream" && o.Name == "stdout":
					shown++
				case o.OutputType == "display_data":
					shown++
					if p, ok := o.Data["image/png"]; ok {
						img, err := png.Decode(base64.NewDecoder(base64.StdEncoding, strings.NewReader(strings.ReplaceAll(string(p), "\n", ""))))
						if err != nil || img.Bounds().Dx() < 100 {
							t.Errorf("%s cell %d: not a figure PNG: %v", name, i, err)
						}
						pngs++
					}
					if h, ok := o.Data["text/html"]; ok && strings.Contains(string(h), "(paper: ") {
						tables++
					}
				}
			}
			src := string(c.Source)
			if !isExperiment && c.CellType == "code" && strings.Contains(src, "%%") && shown == 0 {
				t.Errorf("%s cell %d printed and displayed nothing", name, i)
			}
		}
		if !isExperiment {
			continue
		}
		// An experiment notebook shows its committed result (figures and table), and its results
		// on other zoo recipes (results/<experiment>-<recipe>/), or says it has none; one that
		// rolls a model out shows the player and the strip.
		exp := experimentOf(name)
		_, statErr := os.Stat(filepath.Join(root, "results", exp, "results.json"))
		others, err := paper.LoadOtherRecipes(filepath.Join(root, "results"), exp)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if committed := statErr == nil; committed && (pngs == 0 || tables != 1+len(others)) {
			t.Errorf("%s: %d figures and %d results tables displayed, want the committed results' (≥ 1 and %d)", name, pngs, tables, 1+len(others))
		} else if !committed && !strings.Contains(shownMarkdown(nb), "No committed result of "+exp) {
			t.Errorf("%s: no committed result, and the notebook does not say so", name)
		}
		if rolls := strings.Contains(sources(nb), "cl.Roll("); rolls && players(nb) != 1 {
			t.Errorf("%s: its rollout cell showed %d video players, want 1", name, players(nb))
		}
	}
}

// answerCells writes a copy of notebook path into dir with every answer cell (collapsed
// Markdown holding a Go block, tagged "answer") turned into a code cell of that block, and
// returns the copy's path; a teaching notebook without an answer fails the test.
func answerCells(t *testing.T, path, dir string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb map[string]any
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range nb["cells"].([]any) {
		cell := c.(map[string]any)
		meta, _ := cell["metadata"].(map[string]any)
		if tags, _ := meta["tags"].([]any); len(tags) == 0 || tags[0] != "answer" {
			continue
		}
		var src string
		switch v := cell["source"].(type) {
		case string:
			src = v
		case []any:
			for _, l := range v {
				src += l.(string)
			}
		}
		_, code, ok := strings.Cut(src, "```go\n")
		code, _, ok2 := strings.Cut(code, "\n```")
		if !ok || !ok2 || cell["cell_type"] != "markdown" {
			t.Fatalf("%s: an answer cell is not collapsed Markdown holding a Go block:\n%s", path, src)
		}
		cell["cell_type"], cell["source"], cell["outputs"], cell["execution_count"] = "code", code, []any{}, nil
		n++
	}
	if n == 0 {
		t.Errorf("%s: a teaching notebook without an answer", path)
	}
	out, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// experimentOf is the experiment of a notebook file "NN-name-with-dashes.ipynb".
func experimentOf(file string) string {
	stem := strings.TrimSuffix(file, ".ipynb")
	return strings.ReplaceAll(stem[strings.Index(stem, "-")+1:], "-", "_")
}

func sources(nb notebook) string {
	var b strings.Builder
	for _, c := range nb.Cells {
		b.WriteString(string(c.Source))
	}
	return b.String()
}

func shownMarkdown(nb notebook) string {
	var b strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			b.WriteString(string(o.Data["text/markdown"]))
		}
	}
	return b.String()
}

func players(nb notebook) int {
	n := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if h := string(o.Data["text/html"]); strings.Contains(h, "<iframe srcdoc=") && strings.Contains(h, "data:image") {
				n++
			}
		}
	}
	return n
}

// installKernel installs the "Go (eqf)" kernel spec into a temporary JUPYTER_DATA_DIR and returns
// the repository root and that folder; EQF_GONB_BIN names the folder with gonb, goimports and
// gopls (default: the checkout's bin/).
func installKernel(t *testing.T) (root, data string) {
	t.Helper()
	root, _ = filepath.Abs("../..")
	bin := os.Getenv("EQF_GONB_BIN")
	if bin == "" {
		bin = filepath.Join(root, "bin")
	}
	data = t.TempDir()
	if out, err := exec.Command("sh", "kernel.sh", data, bin, root).CombinedOutput(); err != nil {
		t.Fatalf("kernel.sh: %v\n%s (run `make gonb` first)", err, out)
	}
	return root, data
}
