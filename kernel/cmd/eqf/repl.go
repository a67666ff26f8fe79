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
		fmt.Fprintln(os.Stderr, "usage: eqf run [-dir DIR] FILE.go [FILE.go …] | DIR [ARG …]\n\nFILE.go is a Go file (package main; its imports, declarations and func main) or a script of\nREPL lines; several Go files, or a folder's (not its _test.go), run as one program, as go run\ndoes; either way eqflib, data, plots, eqf, graph, tensors, … are preloaded, but for those\nwhose names a Go file declares at its top level. The arguments after the program are its own\n(os.Args[1:], what flag.Parse reads), as go run gives them.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("run: FILE: none given: name a Go file, a script of REPL lines, several Go files or a folder")
	}
	program, progArgs := repl.RunArgs(fs.Args())
	files, err := repl.ProgramFiles(program)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	for _, f := range files { // (before the session folder is made)
		if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("run: FILE = %s: no such file (the words after the program are its arguments)", f)
		} else if err != nil {
			return fmt.Errorf("run: FILE = %s: %w", f, err)
		}
	}
	if err := outDir("dir", *dir); err != nil {
		return err
	}
	// the program's command line, as go run gives it: its name, then the arguments after the
	// program (the interpreted os.Args and the flag package, which is compiled, read it), set
	// once every check has passed (a refused command leaves the process's own as they were)
	os.Args = append([]string{strings.TrimSuffix(filepath.Base(program[0]), ".go")}, progArgs...)
	// and its flags only: not those the packages eqf links register (testing/quick's -quickchecks)
	flag.CommandLine = flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	// a preload the program declares a name of is left out: its files see only what they import
	s, err := repl.New(repl.Options{Dir: *dir, Omit: repl.ProgramNames(files)})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err = s.LoadFiles(ctx, files...)
	if exit := (*repl.ExitError)(nil); errors.As(err, &exit) {
		os.Exit(exit.Code) // the program's os.Exit or log.Fatal: its status, as go run gives it
	}
	return err
}
