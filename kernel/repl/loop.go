package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/peterh/liner"
)

// DefaultHistoryLines is how many input lines the history file keeps.
const DefaultHistoryLines = 2000

// Prompts.
const (
	Prompt         = "eqf> "
	PromptContinue = "...> "
)

// HistoryFile is where the line history is kept across sessions: $EQF_HISTORY, else
// <user cache dir>/eqf/repl_history.
func HistoryFile() string {
	if p := os.Getenv("EQF_HISTORY"); p != "" {
		return p
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "eqf", "repl_history")
}

// Interactive runs the terminal loop on the process's terminal: line editing, history across
// sessions, tab completion, multi-line input, Ctrl-C cancelling the running evaluation (or the
// line being typed) and Ctrl-D or :quit leaving.
func (s *Session) Interactive() error {
	defer s.catchInterrupts()()
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(s.Complete)
	hist := HistoryFile()
	if hist != "" {
		if f, err := os.Open(hist); err == nil {
			_, _ = ln.ReadHistory(f)
			f.Close()
		}
	}
	saveHistory := func() {
		if hist == "" {
			return
		}
		var b strings.Builder
		if _, err := ln.WriteHistory(&b); err != nil {
			return
		}
		lines := strings.SplitAfter(b.String(), "\n")
		if len(lines) > DefaultHistoryLines {
			lines = lines[len(lines)-DefaultHistoryLines:]
		}
		_ = os.MkdirAll(filepath.Dir(hist), 0o755)
		_ = fsutil.WriteFileAtomic(hist, []byte(strings.Join(lines, "")))
	}
	defer saveHistory()
	fmt.Fprintf(s.opts.Stdout, "eqf REPL (yaegi) — preloaded: %s. Figures go to %s. :help for help.\n", preloadNames(), s.Dir())
	var pending strings.Builder
	for {
		prompt := Prompt
		if pending.Len() > 0 {
			prompt = PromptContinue
		}
		line, err := ln.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			if pending.Len() > 0 {
				pending.Reset()
				fmt.Fprintln(s.opts.Stdout, "(input discarded)")
			} else {
				fmt.Fprintln(s.opts.Stdout, "(Ctrl-D or :quit to leave)")
			}
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(s.opts.Stdout)
			return nil
		case err != nil:
			return err
		}
		if strings.TrimSpace(line) != "" {
			ln.AppendHistory(line)
		}
		done, quit, _ := s.feed(&pending, line)
		if quit {
			return nil
		}
		if done {
			saveHistory()
		}
	}
}

// feed takes one input line: a :command when no input is pending, else one more line of the
// pending input, evaluated (Ctrl-C cancels it) once it is complete. done reports that a command
// or an input ran, quit that it was :quit, failed that it printed an error.
func (s *Session) feed(pending *strings.Builder, line string) (done, quit, failed bool) {
	if pending.Len() == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
		quit, err := s.command(strings.TrimSpace(line))
		if err != nil {
			fmt.Fprintln(s.opts.Stderr, "error:", err)
		}
		return true, quit, err != nil
	}
	pending.WriteString(line + "\n")
	if incomplete(pending.String()) {
		return false, false, false
	}
	src := pending.String()
	pending.Reset()
	if err := s.evalInterruptible(src); err != nil {
		fmt.Fprintln(s.opts.Stderr, errorLine(err))
		return true, false, true
	}
	return true, false, false
}

// Script reads input lines from r (standard input that is not a terminal): no prompts, values
// printed as at the prompt, errors to Stderr. It returns an error counting the inputs that
// failed, so `echo 'expr' | eqf repl` exits non-zero when expr does not evaluate.
func (s *Session) Script(r io.Reader) error {
	defer s.catchInterrupts()()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var pending strings.Builder
	failed := 0
	for sc.Scan() {
		_, quit, bad := s.feed(&pending, sc.Text())
		if bad {
			failed++
		}
		if quit {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if strings.TrimSpace(pending.String()) != "" {
		fmt.Fprintln(s.opts.Stderr, "error: input ends inside an unfinished statement")
		failed++
	}
	if failed > 0 {
		return fmt.Errorf("%d input(s) failed", failed)
	}
	return nil
}

// catchInterrupts routes SIGINT (Ctrl-C) to the session for as long as the loop runs, so that
// a Ctrl-C between two evaluations never kills the process; stop undoes it.
func (s *Session) catchInterrupts() (stop func()) {
	s.sigint = make(chan os.Signal, 1)
	signal.Notify(s.sigint, os.Interrupt)
	return func() { signal.Stop(s.sigint) }
}

// evalInterruptible evaluates src; SIGINT (Ctrl-C) cancels it.
func (s *Session) evalInterruptible(src string) error {
	return s.interruptible(func(ctx context.Context) error { return s.Eval(ctx, src) })
}

func (s *Session) interruptible(run func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigint := s.sigint // the goroutine below reads this channel, never the field a later loop sets
	if sigint == nil {
		return run(ctx)
	}
	for len(sigint) > 0 { // a Ctrl-C from before this evaluation
		<-sigint
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigint:
			cancel()
		case <-done:
		}
	}()
	return run(ctx)
}

func errorLine(err error) string {
	if errors.Is(err, ErrInterrupted) {
		return "interrupted"
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "panic: ") {
		return msg + " (recovered; the session goes on)"
	}
	return "error: " + msg
}

func preloadNames() string {
	var names []string
	for _, p := range Preloads {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// command runs a REPL command; quit reports :quit.
func (s *Session) command(line string) (quit bool, err error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":help", ":h", ":?":
		fmt.Fprint(s.opts.Stdout, Help())
	case ":load", ":l":
		if arg == "" {
			return false, errors.New(":load needs a FILE")
		}
		args := []string{arg}
		if _, err := os.Stat(arg); err != nil {
			args = strings.Fields(arg) // several files (a name with spaces is one file that is there)
		}
		files, err := ProgramFiles(args)
		if err != nil {
			return false, fmt.Errorf(":load: %w", err)
		}
		err = s.interruptible(func(ctx context.Context) error { return s.LoadFiles(ctx, files...) })
		var decls declsError
		if errors.As(err, &decls) {
			err = fmt.Errorf("%w (the session keeps what the file declared before the error, some of it broken: once the file is fixed, :reset, then :load it)", err)
		}
		return false, err
	case ":reset":
		if err := s.Reset(); err != nil {
			return false, err
		}
		fmt.Fprintln(s.opts.Stdout, "session reset; preloads imported again")
	case ":serve":
		url, err := s.Serve(arg)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(s.opts.Stdout, "serving %s at %s\n", s.Dir(), url)
	case ":dir":
		fmt.Fprintln(s.opts.Stdout, s.Dir())
	case ":doc", ":d":
		doc, err := s.Doc(arg)
		if err != nil {
			return false, err
		}
		fmt.Fprint(s.opts.Stdout, doc)
	case ":quit", ":q", ":exit":
		return true, nil
	default:
		return false, fmt.Errorf("unknown command %s (:help lists them)", name)
	}
	return false, nil
}

// Help is the text :help prints.
func Help() string {
	var b strings.Builder
	b.WriteString("Go, interpreted by yaegi. Type expressions to print them (several: n, err), statements to run\n")
	b.WriteString("them; input continues on the next line while brackets are open. Tab completes (pkg.<Tab> lists\n")
	b.WriteString("members).\n")
	b.WriteString("Ctrl-C stops a running evaluation; Ctrl-D leaves.\n\nPreloaded packages:\n")
	for _, p := range Preloads {
		if p.Doc != "" {
			fmt.Fprintf(&b, "  %-8s %s\n", p.Name, p.Doc)
		}
	}
	b.WriteString("  also fmt, math, strings, time, os; import anything else from the standard library.\n")
	b.WriteString("  backend  the compute backend (eqflib.Backend(), $GOMLX_BACKEND)\n")
	b.WriteString("  ctx      a context.Context that Ctrl-C cancels: given to an experiment or a training, it stops them too\n\n")
	b.WriteString("Helpers for what yaegi cannot call (generic GoMLX functions):\n")
	b.WriteString("  eqf.Exec1(func(x *graph.Node) *graph.Node) (*eqf.Func, error)   also Exec2, ExecN, ExecG\n")
	b.WriteString("  f.Call(args...) (*tensors.Tensor, error)   f.CallAll(args...)\n")
	b.WriteString("  eqf.Scalar(g, 2.0)  eqf.ScalarLike(x, 2.0)  eqf.Tensor32([]float64{1, 2})  eqf.Floats(t)\n")
	b.WriteString("  eqf.Show(x)  writes a *plots.Figure (PNG + echarts HTML), videos or a window to the session folder\n")
	b.WriteString("  A figure that an expression returns is written there automatically.\n")
	b.WriteString("yaegi v0.16.1 lacks Go 1.21's clear (a loop); min and max of values whose types are\n")
	b.WriteString("known, slices, maps, cmp and iter (the session's own: slices.Sort, slices.Max, maps.Clone,\n")
	b.WriteString("and Go 1.23's iterators, slices.Sorted(maps.Keys(m)); a range over one runs where its body\n")
	b.WriteString("has no defer, label or goto), for i := range n and Go 1.22's loop variables (one per\n")
	b.WriteString("iteration) work. What else yaegi runs otherwise than Go, mended or not, is listed in\n")
	b.WriteString("docs/repl.md of eqf's sources.\n\n")
	b.WriteString("Commands:\n")
	for _, c := range Commands {
		fmt.Fprintf(&b, "  %-14s %s\n", strings.TrimSpace(c.Name+" "+c.Args), c.Doc)
	}
	b.WriteString("\nExamples:\n")
	b.WriteString("  w, _ := eqflib.CFunctionWarp(0.5, 0.01)     // the c-function warp (α, σ_end)\n")
	b.WriteString("  w.A                                         // its normaliser A\n")
	b.WriteString("  plots.WarpFigure([]eqflib.Warp{w}, 10)      // η, ρ, η∘ρ and step sizes → PNG + HTML\n")
	b.WriteString("  f, _ := eqf.Exec1(func(x *graph.Node) *graph.Node { return graph.Mul(x, x) })\n")
	b.WriteString("  f.Call([]float32{1, 2, 3})\n")
	return b.String()
}
