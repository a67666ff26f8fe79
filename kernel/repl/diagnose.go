package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"log"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// yaegi's errors and panics, said as Go says them.
//
// yaegi runs values through reflect, so a nil pointer read in interpreted code panics with
// reflect's words, "reflect: call of reflect.Value.Field on zero Value", where compiled Go says
// "invalid memory address or nil pointer dereference". The usual cause at the prompt is a value
// returned beside an error that was not looked at (m, _ := zoo.LoadModel("eqf") before the zoo
// is trained, then m.Card), so the session names it. A name that is not defined, the commonest
// typo, reads "CFG post-order panic: 1:33: incomplete type nothere" at top level, or "constant
// definition loop" in a var declaration; the session says "undefined: nothere" as Go does,
// naming only what neither the input, the session's earlier inputs, globals and imports nor
// Go's predeclared identifiers define (nothing after a dot import); for Go 1.21's min, max and
// clear, which yaegi lacks, it says what to write instead. yaegi's words follow in brackets.
// yaegi also writes a line "1:35: panic: main(...)" to its standard error before a panic comes
// back: its position is in the source the session builds around what was typed (a wrapped
// expression, main renamed), not in what the user wrote, so the session drops it and reports
// the panic once.

// zeroValuePanic matches reflect's panic on a zero Value, which interpreted code reaches by
// dereferencing a nil pointer (a field, *p, a method through it).
var zeroValuePanic = regexp.MustCompile(`^reflect: call of reflect\.Value\.\w+ on zero Value$`)

// panicError is the error Eval returns for a panic with value v.
func panicError(v any) error {
	if code, exit := v.(exitStatus); exit { // os.Exit, log.Fatal (exit.go)
		return &ExitError{int(code)}
	}
	msg := fmt.Sprint(v)
	switch {
	case zeroValuePanic.MatchString(msg):
		return fmt.Errorf("panic: nil pointer dereference: a value used here is nil (one returned beside an error?) [yaegi: %s]", msg)
	case msg == "reflect: Method on nil interface value":
		return fmt.Errorf("panic: method called on a nil interface value (one returned beside an error?) [yaegi: %s]", msg)
	}
	return fmt.Errorf("panic: %s", msg)
}

// undefinedSigns match the errors yaegi gives for a name that is not defined (a call of one
// makes it a placeholder type, hence "conversion").
var undefinedSigns = regexp.MustCompile(`incomplete type \w+|constant definition loop|too many arguments in conversion to main\.\w+`)

// missingBuiltins are Go 1.21's builtins that yaegi v0.16.1 does not have.
var missingBuiltins = map[string]bool{"min": true, "max": true, "clear": true}

// bareCommands are the words other REPLs take as commands (Python's help, quit and exit) that
// a session types without the colon its commands start with, and what to type instead.
var bareCommands = map[string]string{
	"help": ":help lists them",
	"quit": ":quit leaves (so does Ctrl-D); :help lists them",
	"exit": ":quit leaves (so does Ctrl-D); :help lists them",
}

// isBareCommand says whether src is the word alone, or called: "help", "quit()".
func isBareCommand(src, word string) bool {
	src = strings.TrimSpace(src)
	return src == word || src == word+"()"
}

const builtinsHint = "Go 1.21's min, max and clear are not in yaegi v0.16.1, the interpreter (the session runs min and max of two or more arguments whose types it knows, not these): math.Min and math.Max for float64s, an if for integers, a loop for clear"

// placeholder matches yaegi's errors for a name it holds as a placeholder type.
var placeholder = regexp.MustCompile(`(?:incomplete type |conversion to main\.)(\w+)`)

// undefinedName matches yaegi's own "undefined: x".
var undefinedName = regexp.MustCompile(`undefined: (\w+)$`)

// diagnose returns err, or "undefined: NAMES" when err is yaegi's for names src uses that
// nothing defines; a name that is a package the session can import says which. It runs with
// evalMu held, after the evaluation.
func (s *Session) diagnose(ctx context.Context, src string, err error) error {
	return s.importClash(s.diagnoseWords(ctx, src, err))
}

// diagnoseWords is diagnose but for a declaration that clashes with an import.
func (s *Session) diagnoseWords(ctx context.Context, src string, err error) error {
	if err == nil || errors.Is(err, ErrInterrupted) {
		return err
	}
	if said, ok := s.explain(ctx, src, err); ok {
		return said
	}
	if said, ok := s.sayStdGeneric(src, err); ok {
		return said
	}
	if said, ok := s.goWords(src, err); ok {
		return said
	}
	if m := undefinedName.FindStringSubmatch(err.Error()); m != nil {
		if cmd, ok := bareCommands[m[1]]; ok && isBareCommand(src, m[1]) {
			return restate(err, fmt.Sprintf("%s (the session's commands start with a colon: %s)", msgOf(err), cmd))
		}
		if missingBuiltins[m[1]] {
			return restate(err, fmt.Sprintf("%s (%s)", msgOf(err), builtinsHint))
		}
		if paths := importable(m[1]); len(paths) > 0 {
			return restate(err, fmt.Sprintf("%s (import %s)", msgOf(err), strings.Join(paths, " or ")))
		}
	}
	// A builtin yaegi lacks, once called, is a placeholder type: no need to read the session.
	if m := placeholder.FindStringSubmatch(err.Error()); m != nil && missingBuiltins[m[1]] {
		return restate(err, fmt.Sprintf("undefined: %s (%s) [yaegi: %s]", m[1], builtinsHint, words(err)))
	}
	if strings.HasSuffix(err.Error(), "variable definition loop") {
		return restate(err, msgOf(err)+" (yaegi cannot declare a variable from the session's variables in a var declaration: write m := n, or var m T, then m = n)")
	}
	if !undefinedSigns.MatchString(err.Error()) || s.dotImport {
		return err
	}
	used, declared := identifiers(src)
	s.mu.Lock()
	g, _ := globals(s.in) // none where yaegi cannot read them: the session's own record then
	var undefined []string
	first := len(src) // the first use of one
	for name, off := range used {
		_, global := g[name]
		_, imported := s.imports[name]
		predeclared := types.Universe.Lookup(name) != nil && !missingBuiltins[name]
		if !declared[name] && !s.defined[name] && !global && !imported && !predeclared {
			undefined = append(undefined, name)
			first = min(first, off)
		}
	}
	s.mu.Unlock()
	if len(undefined) == 0 {
		if said, ok := s.constantError(src, err); ok {
			return said
		}
		return err
	}
	sort.Strings(undefined)
	hint := ""
	for _, name := range undefined {
		if missingBuiltins[name] {
			hint = " (" + builtinsHint + ")"
		} else if paths := importable(name); len(paths) > 0 && len(undefined) == 1 {
			hint = " (import " + strings.Join(paths, " or ") + ")" // errors := …: a package not imported
		}
	}
	pe := &posError{msg: fmt.Sprintf("undefined: %s%s [yaegi: %s]", strings.Join(undefined, ", "), hint, words(err)), err: err}
	pe.line, pe.col = lineCol(src, first) // where Go would say it: the first use
	return pe
}

// noteDefined adds the names src declares to s.defined (after src evaluated without an error).
func (s *Session) noteDefined(src string) {
	_, declared := identifiers(src)
	for name := range declared {
		s.defined[name] = true
	}
	top := map[string]bool{}
	for _, name := range topLevelNames(src) {
		s.top[name], top[name] = true, true
		delete(s.ghosts, name) // declared again: it exists now
	}
	s.noteTypes(src)
	s.noteDecls(src, top)
	if c := s.checked; c != nil && c.src == src {
		for name, t := range c.vars { // (gotypes.go's topVars)
			s.decls[name] = "var " + name + " " + t
		}
	}
}

// clash is Go's error for a declaration of a name the session imports a package as.
var clash = regexp.MustCompile(`^(\w+) (redeclared in this block|already declared through import of package)`)

// importClash is err, where it says a declaration clashes with a package the session imports,
// saying so and what to do (yaegi said "plots redeclared in this block" of func plots()).
func (s *Session) importClash(err error) error {
	if err == nil {
		return nil
	}
	m := clash.FindStringSubmatch(msgOf(err))
	if m == nil {
		return err
	}
	s.mu.Lock()
	_, imported := s.imports[m[1]]
	s.mu.Unlock()
	if !imported {
		return err
	}
	hint := m[1] + " is a package the session imports: name yours otherwise"
	if slices.ContainsFunc(s.preloads(), func(p Preload) bool { return p.Name == m[1] }) {
		hint = m[1] + " is a package the session preloads: name yours otherwise; eqf run leaves out a preload whose name a Go program declares"
	}
	msg, yaegi, _ := strings.Cut(msgOf(err), " [yaegi: ")
	if yaegi != "" {
		yaegi = " [yaegi: " + yaegi
	}
	return restate(err, fmt.Sprintf("%s (%s)%s", msg, hint, yaegi))
}

// importable lists the quoted import paths of the packages named name that the session can
// import (the standard library's and eqf's symbol tables), shortest first.
func importable(name string) []string {
	index()
	var paths []string
	for p, n := range pkgName {
		if n == name && !strings.Contains(p, "internal") {
			paths = append(paths, p)
		}
	}
	sort.Slice(paths, func(i, j int) bool {
		if len(paths[i]) != len(paths[j]) {
			return len(paths[i]) < len(paths[j])
		}
		return paths[i] < paths[j]
	})
	for i, p := range paths {
		paths[i] = strconv.Quote(p)
	}
	return paths
}

// identifiers parses src (declarations, or statements as typed) and returns the names it uses
// as values or types, each with the byte offset in src of its first use, and those it declares
// anywhere (variables, constants, types, functions, parameters, fields, labels). A selector's
// name and a composite literal's keys are neither: they need the type to resolve. Source that
// does not parse uses nothing.
func identifiers(src string) (used map[string]int, declared map[string]bool) {
	used, declared = map[string]int{}, map[string]bool{}
	fset, root, prefix, ok := parseInput(src)
	if !ok {
		return used, declared
	}
	skip := map[*ast.Ident]bool{}
	declare := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil && id.Name != "_" {
				declared[id.Name] = true
				skip[id] = true
			}
		}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.File:
			skip[n.Name] = true
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declare(id)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						declare(id)
					}
				}
			}
		case *ast.ValueSpec:
			declare(n.Names...)
		case *ast.TypeSpec:
			declare(n.Name)
		case *ast.FuncDecl:
			declare(n.Name)
		case *ast.Field:
			declare(n.Names...)
		case *ast.LabeledStmt:
			declare(n.Label)
		case *ast.BranchStmt:
			skip[n.Label] = true
		case *ast.ImportSpec:
			declare(n.Name)
		case *ast.Ident:
			if _, seen := used[n.Name]; !skip[n] && n.Name != "_" && !seen {
				used[n.Name] = fset.Position(n.Pos()).Offset - len(prefix)
			}
		}
		return true
	})
	return used, declared
}

// yaegiLogPanic matches what yaegi's compiler writes through the standard logger before it
// panics with the same words, which come back as the evaluation's error ("nil type": a range
// over an integer, which the session then runs rewritten).
var yaegiLogPanic = regexp.MustCompile(`^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d )?nil (reflect )?type\n$`)

var quietLogOnce sync.Once

// quietYaegiLog routes the standard logger through a filter that drops yaegi's compiler panics;
// every other line passes (eqf's own code does not log with it).
func quietYaegiLog() {
	quietLogOnce.Do(func() {
		w := log.Writer()
		log.SetOutput(lineFilter{w, yaegiLogPanic})
	})
}

// yaegiPanicTrace matches the line yaegi writes to standard error for a panic in interpreted
// code: "L:C: panic: F(...)".
var yaegiPanicTrace = regexp.MustCompile(`^\d+:\d+: panic: \S*\(\.\.\.\)\n$`)

// lineFilter passes writes through to w, except those that drop matches whole: yaegi writes each
// of its lines in one call (fmt.Fprintln, log.Panic).
type lineFilter struct {
	w    io.Writer
	drop *regexp.Regexp
}

func (f lineFilter) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte("\n")) && f.drop.Match(p) {
		return len(p), nil
	}
	return f.w.Write(p)
}
