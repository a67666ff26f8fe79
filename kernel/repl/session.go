// Package repl is the interpreter behind `eqf repl` and `eqf run`: a yaegi (v0.16.1)
// interpreter with eqflib, data, plots, GoMLX's graph/tensors/shapes/dtypes/compute and the
// helpers of symbols/eqf imported under short names, the compute backend created, values
// printed readably, figures written to a session folder, and the terminal loop (line editing,
// history, completion, multi-line input, Ctrl-C) around it.
package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"golang.org/x/term"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/symbols"
	"github.com/equilibriumforcing/eqf/symbols/eqf"
	"github.com/traefik/yaegi/interp"
)

// Preload is a package the session imports before the first line.
type Preload struct {
	Name, Path, Doc string
}

// Preloads are imported at the start of every session (and again after :reset).
var Preloads = []Preload{
	{"eqflib", "github.com/equilibriumforcing/eqf/eqflib", "warps, samplers, the Gaussian oracle, the DiT, training, rollouts, metrics"},
	{"data", "github.com/equilibriumforcing/eqf/data", "the synthetic video worlds and frame/latent file loaders"},
	{"plots", "github.com/equilibriumforcing/eqf/plots", "paper figures (PNG/SVG/echarts), videos, the η-warp explorer"},
	{"zoo", "github.com/equilibriumforcing/eqf/zoo", "the trained model zoo: zoo.LoadModel(\"eqf\"), zoo.LoadRun(\"out/train\") (a run eqf train wrote), recipes, rollout evaluation"},
	{"paper", "github.com/equilibriumforcing/eqf/paper", "the paper's experiments: paper.Experiments, paper.MinecraftMain(ctx, paper.Config{Quick: true})"},
	{"eqf", "github.com/equilibriumforcing/eqf/symbols/eqf", "non-generic GoMLX helpers (Exec1, Exec2, ExecN, ExecG, Scalar, Tensor32, Floats, Describe), Show and Videos (videos with their pixel options)"},
	{"graph", "github.com/gomlx/gomlx/core/graph", "GoMLX graph building (Add, Mul, MatMul, ReduceAllSum, …)"},
	{"tensors", "github.com/gomlx/gomlx/core/tensors", "GoMLX tensors (FromAnyValue, Tensor.Value, Tensor.Shape)"},
	{"shapes", "github.com/gomlx/compute/shapes", "shapes.Make(dtype, dims...)"},
	{"dtypes", "github.com/gomlx/compute/dtypes", "dtypes.Float32, dtypes.Float64, …"},
	{"compute", "github.com/gomlx/compute", "the backend interface"},
	{"fmt", "fmt", ""},
	{"math", "math", ""},
	{"strings", "strings", ""},
	{"time", "time", ""},
	{"context", "context", ""},
	{"os", "os", ""},
}

// Options configure a session.
type Options struct {
	Stdout, Stderr io.Writer // default os.Stdout, os.Stderr
	// Dir is the session folder where figures and videos are written (default
	// out/repl/<date-time> under the working directory).
	Dir string
	// InlineImages is how figures are also drawn in the terminal: "iterm", "kitty" or "off";
	// "" detects it (inline.go) when Stdout is the process's terminal, else off.
	InlineImages string
	// Omit names preloads not imported: eqf run leaves out those a program declares a name of
	// (ProgramNames), as Go, where a file sees only what it imports, lets it. eqflib, which the
	// session's own helpers use, is always imported.
	Omit []string
}

// Session is one interpreter with the preloads. Evaluations (Eval, Load, LoadSource, Reset) run
// one at a time: a second one from another goroutine (two notebook cells) waits for the first;
// Eval may be cancelled through its context.
type Session struct {
	opts    Options
	in      *interp.Interpreter
	imports map[string]string // name → import path
	loads   int
	stmts   int        // compound statements run as __stmtN
	mu      sync.Mutex // guards in, imports and globalNames (read by completion)
	evalMu  sync.Mutex // one evaluation at a time; guards loads, stmts and defined
	// defined are the names that inputs evaluated without an error since the last Reset
	// declared, at any depth (diagnose.go: yaegi's globals hold variables, not functions or
	// types, and cannot be read after some failed inputs); dotImport is whether one imported a package with "." (its names are unknown).
	defined   map[string]bool
	dotImport bool
	// types are the struct types inputs declared at top level, with their fields and methods
	// (explain.go: the interpreter makes them unnamed struct types, without their methods).
	types map[string]*sessionType
	// generics are the generic functions inputs declared, with their type parameters' names.
	generics map[string][]string
	// decls are the declarations of constants, types, functions and methods inputs made at
	// top level, as typed, under each name they declare (gotypes.go tells go/types of them).
	decls map[string]string
	// ghosts are the names inputs that failed declared and no input had declared at its top
	// level (top), with the error (ghost.go: the interpreter keeps them, with their zero values).
	ghosts map[string]string
	top    map[string]bool
	// checked is the go/types check of the input being evaluated (gotypes.go).
	checked *checkedInput
	// globalNames are the interpreter's globals as of the last completion made while no
	// evaluation ran.
	globalNames []string
	serveURL    string         // set by Serve
	inline      string         // inline image protocol ("iterm", "kitty") or "" (inline.go)
	sigint      chan os.Signal // SIGINT while a loop runs
	// evalCtx is the context of the evaluation running, or of the last one (guarded by ctxMu):
	// the session's ctx (sessionContext) stands for it.
	evalCtx context.Context
	ctxMu   sync.Mutex
}

// New starts a session: creates the backend (an error when it cannot be created) and runs the
// preloads.
func New(opts Options) (*Session, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.Dir == "" {
		opts.Dir = filepath.Join("out", "repl", time.Now().Format("20060102-150405"))
	}
	if _, err := eqflib.Backend(); err != nil {
		return nil, fmt.Errorf("repl: creating the backend: %w", err)
	}
	eqf.SetSessionDir(opts.Dir)
	quietYaegiLog()
	s := &Session{opts: opts, inline: opts.InlineImages}
	switch {
	case s.inline == "off":
		s.inline = ""
	case s.inline == "" && opts.Stdout == os.Stdout && term.IsTerminal(int(os.Stdout.Fd())):
		s.inline = inlineProtocol(os.Getenv)
	case s.inline != "" && s.inline != "iterm" && s.inline != "kitty":
		return nil, fmt.Errorf("repl: Options.InlineImages = %q: must be \"iterm\", \"kitty\", \"off\" or \"\" (detect)", opts.InlineImages)
	}
	if err := s.Reset(); err != nil {
		return nil, err
	}
	return s, nil
}

// globals is in.Globals(), or ok = false where yaegi panics reading them: after some failed
// compilations its scope holds a symbol past the end of its frame.
func globals(in *interp.Interpreter) (g map[string]reflect.Value, ok bool) {
	defer func() {
		if recover() != nil {
			g, ok = nil, false
		}
	}()
	return in.Globals(), true
}

// showPath is the import path of the compiled helper that collects an expression's values for
// printing (imported as __show). Being compiled, it receives a value of a type declared in the
// session as yaegi passes it to Go, a struct with its fields, where an interpreted function
// would hold it in yaegi's own interface wrapper, whose fields are unexported: such a value
// printed as {} (its methods, String() among them, stay with the interpreter).
const showPath = "eqf/repl-show"

func showVals(xs ...any) []any { return xs }

var showValsValue = reflect.ValueOf(showVals)

// preloads are the Preloads the session imports: all but those Options.Omit names.
func (s *Session) preloads() []Preload {
	return slices.DeleteFunc(slices.Clone(Preloads), func(p Preload) bool {
		return p.Name != "eqflib" && slices.Contains(s.opts.Omit, p.Name)
	})
}

// Dir is the session folder.
func (s *Session) Dir() string { return s.opts.Dir }

// Reset throws away every definition and starts a fresh interpreter with the preloads.
func (s *Session) Reset() error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	// Unrestricted: os.Getenv, os.Setenv and os.Environ are the process's, as in Go (yaegi's
	// default gives the program an environment of its own, empty unless given: os.Getenv("HOME")
	// read "", and os.Setenv("EQF_ROOT", dir) never reached the zoo, which reads the process's)
	stderr := lineFilter{s.opts.Stderr, yaegiPanicTrace}
	in := interp.New(interp.Options{Stdout: s.opts.Stdout, Stderr: stderr, GoPath: os.DevNull, Unrestricted: true})
	if err := in.Use(stdlibSymbols()); err != nil {
		return fmt.Errorf("repl: loading the standard library's symbols: %w", err)
	}
	if err := in.Use(exitSymbols(stderr)); err != nil { // (exit.go)
		return fmt.Errorf("repl: loading log and os.Exit: %w", err)
	}
	if err := loadStdGeneric(in); err != nil {
		return fmt.Errorf("repl: compiling the standard library's generic functions: %w", err)
	}
	if err := in.Use(symbols.Symbols); err != nil {
		return fmt.Errorf("repl: loading eqf's symbols: %w", err)
	}
	if err := in.Use(interp.Exports{
		showPath + "/" + path.Base(showPath): {"Vals": showValsValue, "GoPanic": reflect.ValueOf(func(r any) { // goroutine.go
			fmt.Fprintf(s.opts.Stderr, "panic in a goroutine: %v (recovered; the session goes on)\n", r)
		}), "Context": reflect.ValueOf(func() context.Context { return sessionContext{s} })},
		".": {"MapTypes": reflect.ValueOf(map[reflect.Value][]reflect.Type{showValsValue: {
			reflect.TypeFor[error](), reflect.TypeFor[fmt.Stringer](),
		}})},
	}); err != nil {
		return fmt.Errorf("repl: loading the session's helpers: %w", err)
	}
	var b strings.Builder
	b.WriteString("import (\n")
	for _, p := range s.preloads() {
		fmt.Fprintf(&b, "\t%s %q\n", p.Name, p.Path)
	}
	fmt.Fprintf(&b, "\t__show %q\n", showPath)
	b.WriteString(")\n")
	if _, err := in.Eval(b.String()); err != nil {
		return fmt.Errorf("repl: preloading packages: %w", err)
	}
	// backend is the compute backend every eqflib graph runs on; ctx the context Ctrl-C cancels
	// (sessionContext); __vals collects the values of a declaration run in two steps into __last
	// (define.go; an expression's values to print go through __show.Vals instead); a range over
	// an integer n is run as one over __ints(n) (source.go).
	const helpers = "var backend, _ = eqflib.Backend()\nvar ctx = __show.Context()\nfunc __vals(xs ...any) []any { return xs }\nfunc __ints(n int) []struct{} { if n < 0 { return nil }; return make([]struct{}, n) }\nvar __last []any"
	if _, err := in.Eval(helpers); err != nil {
		return fmt.Errorf("repl: preloading helpers: %w", err)
	}
	if _, err := in.Eval(minMaxHelpers); err != nil { // min and max (minmax.go)
		return fmt.Errorf("repl: preloading min and max: %w", err)
	}
	s.defined, s.dotImport = map[string]bool{}, false
	s.types, s.generics, s.decls, s.ghosts = map[string]*sessionType{}, map[string][]string{}, map[string]string{}, map[string]string{}
	s.top = map[string]bool{}
	s.noteDefined(helpers)
	s.mu.Lock()
	s.in = in
	s.imports = map[string]string{}
	for _, p := range s.preloads() {
		s.imports[p.Name] = p.Path
	}
	s.mu.Unlock()
	return nil
}

// packageNames indexes the symbol tables: import path → package name and path → members.
var (
	indexOnce sync.Once
	pkgName   map[string]string
	pkgNames  map[string][]string
)

func index() {
	indexOnce.Do(func() {
		pkgName, pkgNames = map[string]string{}, map[string][]string{}
		for _, tab := range tables {
			for key, syms := range tab {
				p, name := path.Dir(key), path.Base(key)
				pkgName[p] = name
				var names []string
				for n := range syms {
					if !strings.HasPrefix(n, "_") {
						names = append(names, n)
					}
				}
				sort.Strings(names)
				pkgNames[p] = names
			}
		}
		pkgName["iter"], pkgNames["iter"] = "iter", []string{"Seq", "Seq2"} // (the session's own: stdgeneric.go)
	})
}

// filterImports drops imports the session already has (so importing twice is harmless) and
// rejects a name bound to another path.
func (s *Session) filterImports(specs []importSpec) (keep []importSpec, err error) {
	index()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range specs {
		name := sp.name
		if name == "_" || name == "." {
			keep = append(keep, sp)
			continue
		}
		if _, ok := pkgName[sp.path]; !ok {
			return nil, fmt.Errorf("import %q: not available here; the REPL can import the standard library, eqf's packages and GoMLX's graph, tensors, shapes, dtypes and compute", sp.path)
		}
		if name == "" {
			name = pkgName[sp.path]
		}
		if have, ok := s.imports[name]; ok {
			if have == sp.path {
				continue
			}
			return nil, fmt.Errorf("import %q: the name %s is already bound to %q; import it under another name (import x %q)", sp.path, name, have, sp.path)
		}
		keep = append(keep, importSpec{name, sp.path})
	}
	return keep, nil
}

// ErrInterrupted is returned by Eval when its context is cancelled (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// Eval evaluates one complete input (as typed at the prompt) and prints the value of an
// expression to Stdout. Imports are idempotent; a panic in interpreted code comes back as an
// error; cancelling ctx stops the evaluation and returns ErrInterrupted.
func (s *Session) Eval(ctx context.Context, src string) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	return s.evalInput(ctx, src)
}

// evalInput is Eval with evalMu held: an input that reads a name whose declaration failed is
// refused, and one that fails leaves the names it declared as such (ghost.go).
func (s *Session) evalInput(ctx context.Context, src string) error {
	if err := s.ghostUse(src); err != nil {
		return err
	}
	s.checked = nil // the session's names may have changed since the last input
	err := s.evalChecked(ctx, src)
	if err != nil {
		s.noteFailed(src, err)
	}
	return err
}

// evalChecked evaluates src; an error whose words are yaegi's and mislead comes back as Go
// would say it (diagnose.go).
func (s *Session) evalChecked(ctx context.Context, src string) error {
	if err, ok := s.refusedError(src); ok && !s.dotImport { // nothing runs (gotypes.go)
		return err
	}
	in, parsed := parseTyped(src)
	if lines, ok := varAsAssignments(src); ok && parsed && callsGeneric(in, s.generics) { // (assign.go)
		for _, line := range lines {
			if err := s.evalInput(ctx, line); err != nil {
				return unplaced(err) // a position in the line the session wrote
			}
		}
		return nil
	}
	// Loops' variables captured in their bodies get one per iteration, as in Go 1.22 (loopvar.go);
	// a goroutine's panic is recovered (goroutine.go); a composite literal among several values
	// keeps the others (assign.go); a method value copies its receiver when it is taken
	// (methodvalue.go); min and max run (minmax.go); a cmp.Ordered constraint takes untyped
	// constants (stdgeneric.go); encoding/json skips unexported fields (structtag.go); a method's
	// unnamed parameters are named _ (methodparams.go); named results start at zero
	// (namedresults.go). Those that need go/types' types come from
	// the check (typeCheck lists them).
	var rewrites []insert
	var c *checkedInput                              // (nil where a dot import leaves go/types not knowing the names)
	decls := parsed && in.prefix == "package main\n" // declarations (a file), else statements
	if parsed {
		for _, r := range []func(typed) []insert{loopVarInserts, goroutineInserts, compositeInserts, orderedInserts, unexportedTagInserts, unnamedParamInserts, namedResultInserts} {
			rewrites = append(rewrites, r(in)...)
		}
	}
	if !s.dotImport {
		c = s.check(src)
		rewrites = append(rewrites, c.rewrites...)
		if decls {
			// declarations (a file): the type arguments go/types infers written out before they
			// run (a second run of declarations that failed to compile found them broken)
			rewrites = append(rewrites, c.typeArgs...)
		}
	}
	run := withInserts(src, rewrites)
	err := s.evalSource(ctx, run)
	if err == nil {
		s.noteDefined(src)
	}
	if err != nil && c != nil && !decls && len(c.typeArgs) > 0 && uninferred(err) &&
		!slices.ContainsFunc(c.errs, func(e typeError) bool { return !unknownName(e.msg) }) {
		// statements in which yaegi inferred a generic call's type parameters wrongly, or could
		// not; nothing ran (a compile error): they run again with those go/types inferred
		// (typeargs.go), where it finds nothing wrong but names it does not know.
		inserts := append(slices.Clone(rewrites), c.typeArgs...)
		alt := withInserts(src, inserts)
		if err = s.evalSource(ctx, alt); err == nil {
			s.noteDefined(src)
			return nil
		}
		return retyped(s.diagnose(ctx, alt, err), alt, src, inserts)
	}
	if err != nil && err.Error() == "panic: nil type" {
		// yaegi cannot compile a range over an integer; nothing ran, so the input runs again
		// with each range that may be one rewritten (source.go).
		var intIns []insert
		if parsed {
			intIns = rangeIntInserts(in)
		}
		if len(intIns) > 0 {
			inserts := append(slices.Clone(rewrites), intIns...)
			alt := withInserts(src, inserts)
			err2 := s.evalSource(ctx, alt)
			if err2 == nil {
				s.noteDefined(src)
			}
			if err2 == nil || !strings.Contains(err2.Error(), "__ints") {
				d := retyped(s.diagnose(ctx, alt, err2), alt, src, inserts)
				if d == nil {
					return nil
				}
				if said, ok := rangedFuncSaid(in, d); ok { // not an integer: a function (rangefunc.go)
					return said
				}
				return d
			}
			d := retyped(s.diagnose(ctx, run, err), run, src, rewrites)
			return restate(d, msgOf(d)+" (yaegi cannot range over an integer n where Go 1.22 can: write for i := 0; i < n; i++)")
		}
	}
	if err != nil && strings.HasSuffix(err.Error(), "variable definition loop") {
		// yaegi cannot compile var m = n when n is the session's; nothing ran: declare it the
		// way it can (source.go).
		if lines, ok := varAsAssignments(src); ok {
			for _, line := range lines {
				if err := s.evalInput(ctx, line); err != nil {
					return unplaced(err) // a position in the line the session wrote
				}
			}
			return nil
		}
	}
	if err != nil && errors.As(err, new(compilePanic)) {
		// yaegi's compiler panicked on one of several statements (y := slices.Clone(x); …: a
		// generic call's result declared, which the session declares in two steps when it is a
		// statement of its own, define.go); nothing ran: each statement runs as an input.
		if stmts, ok := statementsOf(src); ok {
			for _, st := range stmts {
				if err := s.evalInput(ctx, st); err != nil {
					return unplaced(err) // a position in the statement, not in the line
				}
			}
			return nil
		}
	}
	return retyped(s.diagnose(ctx, run, err), run, src, rewrites)
}

func (s *Session) evalSource(ctx context.Context, src string) error {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	specs, rest, isImport := splitImports(src)
	if isImport {
		keep, err := s.filterImports(specs)
		if err != nil {
			return err
		}
		// The imports first, on their own: a declaration after them that fails to compile leaves
		// them imported in the interpreter, and the session must know it, or loading the file
		// again would import them twice ("redeclared in this block").
		if len(keep) > 0 {
			var b strings.Builder
			b.WriteString("import (")
			for i, sp := range keep {
				if i > 0 {
					b.WriteString("; ")
				}
				fmt.Fprintf(&b, "%s %q", sp.name, sp.path)
			}
			b.WriteString(")")
			if _, err := s.eval(ctx, b.String()); err != nil {
				return err
			}
			s.mu.Lock()
			for _, sp := range keep {
				if sp.name != "_" && sp.name != "." {
					s.imports[sp.name] = sp.path
				}
				s.dotImport = s.dotImport || sp.name == "."
			}
			s.mu.Unlock()
		}
		if strings.TrimSpace(rest) == "" {
			return nil
		}
		// Then the rest where it was typed, the imports blanked, so that the interpreter's
		// positions are the input's (a file's errors name its lines).
		rest = blank(src[:len(src)-len(rest)]) + rest
		_, err = s.evalAt(ctx, wrapped{src: rest, text: rest, typed: src})
		return err
	}
	e, ok := isExpr(src)
	list := false // x, y: every value printed as typed
	if !ok {
		e, ok = isExprList(src)
		list = ok
	}
	if ok && !quietCall(e) {
		v, err := s.evalAt(ctx, exprCall(src, e))
		if err == nil {
			s.print(v, list)
			return nil
		}
		if msg := err.Error(); !strings.Contains(msg, "(...any)") && !strings.Contains(msg, "used as value") && !strings.HasSuffix(msg, " as type ()") {
			return err
		}
		// A call with no results: run it for its effect.
	}
	w := verbatim(src)
	if isCompound(src) {
		// As a named function, called once: a literal func(){…}() at top level would be run
		// again by yaegi on every later evaluation.
		s.stmts++
		name := fmt.Sprintf("__stmt%d", s.stmts)
		head := "func " + name + "() {\n"
		if _, err := s.evalAt(ctx, wrapped{src: head + src + "\n}", at: len(head), text: src, typed: src}); err != nil {
			return err
		}
		w = wrapped{src: name + "()"} // an error in running it has no position in the input
	}
	if as, ok := parseDefine(w.src); ok && needsTwoSteps(as) {
		return unplaced(s.evalDefine(ctx, as))
	}
	_, err := s.evalAt(ctx, w)
	if yaegiDefineBug(err) {
		if as, ok := parseDefine(w.src); ok {
			return unplaced(s.evalDefine(ctx, as))
		}
	}
	return err
}

// evalAt evaluates w.src; its error's positions are in what was typed (position.go).
func (s *Session) evalAt(ctx context.Context, w wrapped) (reflect.Value, error) {
	v, err := s.eval(ctx, w.src)
	return v, w.mapError(err)
}

// exprCall wraps the expression src in __show.Vals(…), each byte where it was typed (comments
// blanked) where that parses, else printed again (its positions are then dropped).
func exprCall(src string, e ast.Expr) wrapped {
	const call = "__show.Vals("
	blanked := blankComments(src) // (the positions of what was typed)
	body := strings.TrimRight(blanked, " \t\r\n")
	if _, err := parser.ParseExpr(call + body + ")"); err == nil {
		return wrapped{src: call + body + ")", at: len(call), text: body, typed: blanked}
	}
	return wrapped{src: call + exprString(e) + ")"}
}

func (s *Session) eval(ctx context.Context, src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil { // the interpreter itself panicked
			err = panicError(r)
		}
	}()
	s.mu.Lock()
	in := s.in
	s.mu.Unlock()
	s.ctxMu.Lock()
	s.evalCtx = ctx // what the session's ctx stands for while src runs
	s.ctxMu.Unlock()
	v, err = in.EvalWithContext(ctx, src)
	if err != nil && ctx.Err() != nil {
		return v, ErrInterrupted
	}
	var p interp.Panic
	if errors.As(err, &p) {
		if bytes.Contains(p.Stack, []byte("(*Interpreter).CompileAST(")) {
			return v, compilePanic{panicError(p.Value)}
		}
		return v, panicError(p.Value)
	}
	return v, err
}

// sessionContext is the session's ctx: the context of the evaluation that uses it, which Ctrl-C
// cancels (loop.go), as does the evaluation's end. The interpreter stops its own code at Ctrl-C
// but cannot stop a library call it made (an experiment, a training run) that goes on in the
// background; given ctx (paper.MinecraftMain(ctx, …)), the call stops too. Work started with go
// that should outlive its evaluation takes context.Background().
type sessionContext struct{ s *Session }

func (c sessionContext) current() context.Context {
	c.s.ctxMu.Lock()
	defer c.s.ctxMu.Unlock()
	if c.s.evalCtx == nil {
		return context.Background()
	}
	return c.s.evalCtx
}

func (c sessionContext) Deadline() (time.Time, bool) { return c.current().Deadline() }
func (c sessionContext) Done() <-chan struct{}       { return c.current().Done() }
func (c sessionContext) Err() error                  { return c.current().Err() }
func (c sessionContext) Value(key any) any           { return c.current().Value(key) }

// String is how the REPL prints ctx.
func (c sessionContext) String() string {
	return "the session's context: Ctrl-C cancels it while an evaluation runs"
}

// compilePanic is a panic of the interpreter's compiler, before anything of the input ran (a
// panic of the program comes from its run instead: EvalWithContext recovers both, and only this
// one's stack holds CompileAST).
type compilePanic struct{ error }

func (c compilePanic) Unwrap() error { return c.error }

// print writes the values of an expression: a call's results with its error as "error: …",
// a nil error dropped when other values come with it; a list typed as such (x, y: all) each
// as it is.
func (s *Session) print(v reflect.Value, all bool) {
	if !v.IsValid() {
		return
	}
	vals, ok := v.Interface().([]any)
	if !ok {
		fmt.Fprintln(s.opts.Stdout, s.Format(v.Interface()))
		return
	}
	if n := len(vals); n > 1 && !all {
		switch last := vals[n-1].(type) {
		case nil: // the usual trailing nil error
			vals = vals[:n-1]
		case error: // values that come with an error are zero values: print only the error
			fmt.Fprintln(s.opts.Stdout, "error: "+last.Error())
			return
		}
	}
	parts := make([]string, len(vals))
	for i, x := range vals {
		parts[i] = s.Format(x)
	}
	fmt.Fprintln(s.opts.Stdout, strings.Join(parts, "  "))
}

// Load evaluates a file: a Go file (package main, imports, declarations, func main) whose main
// runs once, or a script of REPL lines without a package clause.
func (s *Session) Load(ctx context.Context, file string) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return s.LoadSource(ctx, file, string(src))
}

// LoadFiles loads several Go files of package main as one program, as `go run a.go b.go`
// builds them (runProgram). One file is Load's.
func (s *Session) LoadFiles(ctx context.Context, files ...string) error {
	if len(files) == 1 {
		return s.Load(ctx, files[0])
	}
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	s.loads++
	mainName := fmt.Sprintf("__main%d", s.loads)
	var program []goFile
	mainFile := ""
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		script, hasMain, err := fileToScript(string(src), mainName)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if !hasMain && script == string(src) {
			return fmt.Errorf("%s: not a Go file of package main: several files run as one program (a script of REPL lines runs alone)", name)
		}
		if hasMain && mainFile != "" {
			return fmt.Errorf("%s: main redeclared (%s declares it)", name, mainFile)
		}
		if hasMain {
			mainFile = name
		}
		program = append(program, goFile{name, script, hasMain})
	}
	return s.runProgram(ctx, program, mainName)
}

// goFile is a Go file of a program as REPL input (fileToScript): its main, if it has one,
// renamed.
type goFile struct {
	name, script string
	hasMain      bool
}

// runProgram evaluates files, the Go files of one program, with evalMu held: the imports of each
// but the first, then the declarations of all in one input (a function may use what another
// file declares, which one file after another would not take; the first file's imports stay
// where they are, the others' are blanked, keeping every line where it was), then main
// (mainName). An error names the file and the line it is in there.
func (s *Session) runProgram(ctx context.Context, files []goFile, mainName string) error {
	var decls strings.Builder
	var starts []int // the line of the declarations where each file starts
	mainFile := ""
	for i, f := range files {
		script := f.script
		if i > 0 {
			specs, rest, _ := splitImports(script)
			var imports strings.Builder
			for _, sp := range specs {
				fmt.Fprintf(&imports, "import %s %q\n", sp.name, sp.path)
			}
			if imports.Len() > 0 {
				if err := s.evalInput(ctx, imports.String()); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
			}
			script = blank(script[:len(script)-len(rest)]) + rest
			decls.WriteString("\n")
		}
		starts = append(starts, strings.Count(decls.String(), "\n")+1)
		decls.WriteString(script)
		if f.hasMain {
			mainFile = f.name
		}
	}
	if err := s.evalInput(ctx, decls.String()); err != nil {
		at, ok := err.(*posError)
		if !ok || at.line == 0 {
			var names []string
			for _, f := range files {
				names = append(names, f.name)
			}
			return declsError{fmt.Errorf("%s: %w", strings.Join(names, ", "), err)}
		}
		k := sort.SearchInts(starts, at.line+1) - 1 // the file the line is in
		pe := *at
		pe.line -= starts[k] - 1
		return declsError{inFile(files[k].name, 0, &pe)}
	}
	if mainFile != "" {
		if err := s.evalInput(ctx, mainName+"()"); err != nil {
			return fmt.Errorf("%s: %w", mainFile, unplaced(err))
		}
	}
	return nil
}

// ProgramNames are the names the Go files among files declare at their top level (a script of
// REPL lines, or a file that does not parse, declares none here), for Options.Omit.
func ProgramNames(files []string) []string {
	var names []string
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		names = append(names, declNames(f)...)
	}
	return names
}

// ProgramFiles are the files of a program named by args: the files named, or a folder's Go files
// but its tests (one folder alone, as go run . takes it).
func ProgramFiles(args []string) ([]string, error) {
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
				return nil, fmt.Errorf("FILE = %s: a folder without Go files", args[0])
			}
			return files, nil
		}
	}
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return nil, fmt.Errorf("FILE = %s: a folder among several files: name the files, or the folder alone", a)
		}
	}
	return args, nil
}

// RunArgs splits eqf run's arguments as go run splits its own: the program (a folder, the Go
// files named first, or a script of REPL lines, one file not ending in .go) and the arguments
// given to it (its os.Args[1:]).
func RunArgs(args []string) (program, progArgs []string) {
	if len(args) == 0 {
		return nil, nil
	}
	if st, err := os.Stat(args[0]); err == nil && st.IsDir() || !strings.HasSuffix(args[0], ".go") {
		return args[:1], args[1:]
	}
	n := 1
	for n < len(args) && strings.HasSuffix(args[n], ".go") {
		n++
	}
	return args[:n], args[n:]
}

// declsError is the error of a Go file whose declarations failed to compile: yaegi keeps what
// it declared before the error, some of it unusable (a method of the file's type then returns
// zero values, and loading the fixed file again does not replace it), so :load says to reset.
type declsError struct{ error }

func (e declsError) Unwrap() error { return e.error }

// LoadSource is Load for source already read; name is used in error messages.
func (s *Session) LoadSource(ctx context.Context, name, src string) error {
	s.evalMu.Lock()
	defer s.evalMu.Unlock()
	s.loads++
	mainName := fmt.Sprintf("__main%d", s.loads)
	script, hasMain, err := fileToScript(src, mainName)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if hasMain || script != src { // a Go file: its declarations in one evaluation
		return s.runProgram(ctx, []goFile{{name, script, hasMain}}, mainName)
	}
	// A script: statement by statement, as if typed.
	var pending strings.Builder
	line, first := 0, 1 // the line read, the first of the statement read
	for _, l := range strings.Split(src, "\n") {
		line++
		pending.WriteString(l + "\n")
		if incomplete(pending.String()) {
			continue
		}
		if err := s.evalInput(ctx, pending.String()); err != nil {
			return inFile(name, first, err)
		}
		pending.Reset()
		first = line + 1
	}
	if strings.TrimSpace(pending.String()) != "" {
		return fmt.Errorf("%s: input ends inside an unfinished statement", name)
	}
	return nil
}
