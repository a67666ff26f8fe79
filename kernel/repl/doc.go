package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// DefaultDocTimeout bounds a :doc lookup (go doc reads the package's sources).
const DefaultDocTimeout = 30 * time.Second

// Doc is what :doc NAME prints: the signature and doc comment of pkg, pkg.Name or
// pkg.Type.Method, where pkg is a name the session imports (eqflib, plots, strings, …). It runs
// `go doc` on the package's import path in the eqf module's folder (sourceDir), so it needs the
// go command on PATH (make repl has it) and works from any folder the session was started in.
func (s *Session) Doc(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New(":doc needs a NAME, e.g. :doc eqflib.CFunctionWarp")
	}
	if decl, ok := s.declaredDoc(name); ok {
		return decl, nil
	}
	pkg, member, _ := strings.Cut(name, ".")
	s.mu.Lock()
	path, ok := s.imports[pkg]
	s.mu.Unlock()
	if !ok {
		index()
		for p, n := range pkgName { // a standard-library package not imported yet
			if n == pkg && !strings.Contains(p, ".") {
				path, ok = p, true
				break
			}
		}
	}
	if !ok {
		return "", fmt.Errorf(":doc %s: the session declared no %s and imports no package %s (import it first)", name, name, pkg)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf(":doc needs the go command on PATH: %w", err)
	}
	arg := path
	if member != "" {
		arg += "." + member
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultDocTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "doc", arg)
	cmd.Dir = sourceDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf(":doc %s: %s", name, msg)
	}
	return string(out) + stdGenericDoc(path, member), nil
}

// declaredDoc is what :doc prints for a constant, type, function, method (T.M) or variable
// declared with a type the session declared: its declaration as typed (a function's or method's signature; a type's followed by
// its methods'); ok is false for another name, and while an evaluation runs (the session's record
// is being written then).
func (s *Session) declaredDoc(name string) (doc string, ok bool) {
	s.idle(func() {
		decl, found := s.decls[name]
		if !found {
			return
		}
		lines := []string{decl}
		var methods []string
		for n, d := range s.decls {
			if strings.HasPrefix(n, name+".") {
				methods = append(methods, d)
			}
		}
		sort.Strings(methods)
		doc, ok = strings.Join(append(lines, methods...), "\n")+"\n(declared in this session)\n", true
	})
	return doc, ok
}

// sourceDir is the folder go doc runs in: the root of the eqf sources this binary was built from
// (two folders above this file's compile-time path, as plots finds its echarts script), where go
// doc resolves eqf's packages and the GoMLX versions go.mod pins; "" (the working folder) when
// those sources are not on this machine.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return ""
	}
	return root
}
