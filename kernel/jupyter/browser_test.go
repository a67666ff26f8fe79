//go:build notebook

package jupyter

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/internal/browser"
)

// TestNotebookInBrowser opens notebooks/00-quickstart in the Jupyter web UI the way a reader
// does — `make jupyter`'s server (serve.sh), the "Go (eqf)" kernel, headless Chromium — runs
// every cell from the page (the notebook's own Run All) and checks that the page then shows
// its figures and no error. $EQF_BROWSER_SHOT names a file for the page's screenshot.
func TestNotebookInBrowser(t *testing.T) {
	root, data := installKernel(t)
	dir := t.TempDir() // a copy: the notebook server saves what it runs
	src, err := os.ReadFile(filepath.Join(root, "notebooks", "00-quickstart.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00-quickstart.ipynb"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	const token = "eqf-browser-test-token"
	port, _ := startServer(t, data, dir, token)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	page, err := browser.Open(ctx, t.TempDir(), "http://127.0.0.1:"+strconv.Itoa(port)+"/notebooks/00-quickstart.ipynb?token="+token, 1280, 4000)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	start := time.Now()
	if err := page.WaitFor(ctx, `typeof Jupyter !== "undefined" && !!Jupyter.notebook && !!Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()`, time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("notebook open, kernel connected in %s", time.Since(start).Round(time.Second))
	if err := page.Eval(`Jupyter.notebook.execute_all_cells(), true`, nil); err != nil {
		t.Fatal(err)
	}
	// Done: no cell still queued or running, and every code cell has run (an execution count).
	done := `(() => {
		const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === "code");
		return cells.length > 0 && document.querySelectorAll(".code_cell.running").length === 0 &&
			cells.every(c => c.input_prompt_number !== null && c.input_prompt_number !== "*" && c.input_prompt_number !== undefined);
	})()`
	if err := page.WaitFor(ctx, done, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("Run All done in %s", time.Since(start).Round(time.Second))
	var shown struct {
		Figures, Frames, Errors int
		ErrorText               string
	}
	if err := page.Eval(`({
		Figures: [...document.querySelectorAll(".output_png img")].filter(i => i.naturalWidth > 100).length,
		Frames: document.querySelectorAll(".output_html iframe, .output_subarea iframe").length,
		Errors: document.querySelectorAll(".output_error").length,
		ErrorText: [...document.querySelectorAll(".output_error, .output_stderr")].map(e => e.textContent).join("\n").slice(0, 2000),
	})`, &shown); err != nil {
		t.Fatal(err)
	}
	shot, err := page.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Errorf("screenshot: %v", err)
	}
	if p := os.Getenv("EQF_BROWSER_SHOT"); p != "" {
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("the page shows %d figures, %d embedded pages (explorer, player), %d errors", shown.Figures, shown.Frames, shown.Errors)
	if shown.Errors > 0 || shown.Figures < 2 || shown.Frames < 2 {
		t.Errorf("after Run All the page shows %d figures and %d embedded pages (want ≥ 2 each) and %d errors:\n%s", shown.Figures, shown.Frames, shown.Errors, shown.ErrorText)
	}
}
