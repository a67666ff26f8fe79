// Command resultsdoc writes docs/results.md from the committed results (results/*/results.json):
// `go generate ./paper` runs it from the paper folder.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/paper"
)

func main() {
	md, err := paper.ResultsMarkdown(paper.ResultsDir())
	if err == nil {
		err = fsutil.WriteFileAtomic(filepath.Join(filepath.Dir(paper.ResultsDir()), "docs", "results.md"), []byte(md))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "resultsdoc:", err)
		os.Exit(1)
	}
}
