package repl

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Commands are the REPL's own commands, with their help lines.
var Commands = []struct{ Name, Args, Doc string }{
	{":help", "", "this help"},
	{":load", "FILE", "evaluate Go files (one program, its main run once; a folder's) or a script of REPL lines"},
	{":reset", "", "forget every definition; start again with the preloads"},
	{":serve", "[PORT]", "a live gallery of the session's figures on http://127.0.0.1:PORT/ (newest on top, updated as they arrive; localhost only)"},
	{":doc", "NAME", "a symbol's signature and doc comment: :doc eqflib.CFunctionWarp, :doc eqflib.Options, :doc plots; a name you declared: its declaration"},
	{":dir", "", "print the session folder"},
	{":quit", "", "leave (also Ctrl-D)"},
}

var keywords = []string{"break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var",
	"append", "cap", "close", "complex", "copy", "delete", "imag", "len", "make", "new", "panic",
	"print", "println", "real", "recover", "true", "false", "nil", "float32", "float64", "int",
	"string", "bool", "any", "error", "byte", "rune"}

// Complete completes the word before pos in line, for the line editor: package members after
// "pkg.", fields and methods after "variable.", else package names, globals, keywords and
// builtins, and the REPL's commands at the start of a line.
func (s *Session) Complete(line string, pos int) (head string, completions []string, tail string) {
	if pos > len(line) {
		pos = len(line)
	}
	if w := strings.TrimLeft(line[:pos], " \t"); strings.HasPrefix(w, ":") && !strings.ContainsAny(w, " \t") {
		for _, c := range Commands {
			if strings.HasPrefix(c.Name, w) {
				completions = append(completions, c.Name+" ")
			}
		}
		return line[:pos-len(w)], completions, line[pos:]
	}
	start := pos
	for start > 0 && isWordByte(line[start-1]) {
		start--
	}
	head, word, tail := line[:start], line[start:pos], line[pos:]
	var cands []string
	prefix := word
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		owner := word[:dot]
		prefix = word[dot+1:]
		head += word[:dot+1]
		cands = s.members(owner)
	} else {
		cands = s.topLevel()
	}
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) && !strings.HasPrefix(c, "__") {
			completions = append(completions, c)
		}
	}
	sort.Strings(completions)
	return head, completions, tail
}

func isWordByte(b byte) bool {
	return b == '_' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// idle runs fn while no evaluation runs (evalMu held) and reports whether it could: completion
// reads the interpreter's globals, which an evaluation rewrites, and never waits for a running
// cell (a notebook asks for completions while a long cell trains).
func (s *Session) idle(fn func()) bool {
	if !s.evalMu.TryLock() {
		return false
	}
	defer s.evalMu.Unlock()
	fn()
	return true
}

func (s *Session) topLevel() []string {
	var names []string
	fresh := s.idle(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		g, _ := globals(s.in)
		for name := range g {
			names = append(names, name)
		}
		s.globalNames = names
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if !fresh { // an evaluation runs: the names as of the last completion
		names = s.globalNames
	}
	out := append([]string(nil), names...)
	for name := range s.imports {
		out = append(out, name)
	}
	return append(out, keywords...)
}

// members lists what may follow "owner.": a package's exported symbols, or the fields and
// methods of a global variable's value (one level: "w." but not "w.x.").
func (s *Session) members(owner string) []string {
	index()
	s.mu.Lock()
	p, ok := s.imports[owner]
	in := s.in
	s.mu.Unlock()
	if ok {
		if fs := stdGenericNames()[p]; len(fs) > 0 { // slices, maps, cmp: compiled from source
			return append(slices.Clone(pkgNames[p]), fs...)
		}
		return pkgNames[p]
	}
	var out []string
	s.idle(func() { out = valueMembers(in, owner) }) // while an evaluation runs: none, rather than a racy read
	return out
}

// valueMembers lists the exported fields and the methods of the global variable owner.
func valueMembers(in *interp.Interpreter, owner string) []string {
	g, _ := globals(in)
	v, ok := g[owner]
	if !ok || !v.IsValid() {
		return nil
	}
	fields, methods := members(v.Type()) // (explain.go: promoted fields and a pointer's methods too)
	out := append(fields, methods...)
	if v.Kind() == reflect.Interface && !v.IsNil() { // a value held in an interface
		et := v.Elem().Type()
		for i := 0; i < et.NumMethod(); i++ {
			out = append(out, et.Method(i).Name)
		}
	}
	return out
}
