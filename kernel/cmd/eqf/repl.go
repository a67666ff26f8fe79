package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/kernel/repl"
	"golang.org/x/term"
)

func runREPL(args []string) error {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	dir := fs.String("dir", "", "session folder for figures and videos (default out/repl/<date-time>)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("repl: unexpected argument %q (to run a file: eqf run FILE.go)", fs.Arg(0))
	}
	if err := outDir("dir", *dir); err != nil {
		return err
	}
	s, err := repl.New(repl.Options{Dir: *dir})
	if err != nil {
		return err
	}
	if term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd())) {
		return s.Interactive()
	}
	return s.Script(os.Stdin)
}

func runScript(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	dir := fs.String("dir", "", "session folder for figures and videos (default out/repl/<date-time>)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: eqf run [-dir DIR] FILE.go [FILE.go …] | DIR\n\nFILE.go is a Go file (package main; its imports, declarations and func main) or a script of\nREPL lines; several Go files, or a folder's (not its _test.go), run as one program, as go run\ndoes; either way eqflib, data, plots, eqf, graph, tensors, … are preloaded.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("run: FILE: none given: name a Go file, a script of REPL lines, several Go files or a folder")
	}
	files, err := programFiles(fs.Args())
	if err != nil {
		return err
	}
	if err := outDir("dir", *dir); err != nil {
		return err
	}
	s, err := repl.New(repl.Options{Dir: *dir})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return s.LoadFiles(ctx, files...)
}

// programFiles are the files eqf run runs: those named, or a folder's Go files but its tests
// (one folder alone, as go run . takes it).
func programFiles(args []string) ([]string, error) {
	if len(args) == 1 {
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			matches, err := filepath.Glob(filepath.Join(args[0], "*.go"))
			if err != nil {
				return nil, err
			}
			var files []string
			for _, m := range matches {
				if !strings.HasSuffix(m, "_test.go") {
					files = append(files, m)
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("run: FILE = %s: a folder without Go files", args[0])
			}
			return files, nil
		}
	}
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return nil, fmt.Errorf("run: FILE = %s: a folder among several files: name the files, or the folder alone", a)
		}
	}
	return args, nil
}
