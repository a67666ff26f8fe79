package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

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
		fmt.Fprintln(os.Stderr, "usage: eqf run [-dir DIR] FILE.go [FILE.go …] | DIR\n\nFILE.go is a Go file (package main; its imports, declarations and func main) or a script of\nREPL lines; several Go files, or a folder's (not its _test.go), run as one program, as go run\ndoes; either way eqflib, data, plots, eqf, graph, tensors, … are preloaded, but for those\nwhose names a Go file declares at its top level.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("run: FILE: none given: name a Go file, a script of REPL lines, several Go files or a folder")
	}
	files, err := repl.ProgramFiles(fs.Args())
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if err := outDir("dir", *dir); err != nil {
		return err
	}
	// a preload the program declares a name of is left out: its files see only what they import
	s, err := repl.New(repl.Options{Dir: *dir, Omit: repl.ProgramNames(files)})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return s.LoadFiles(ctx, files...)
}
