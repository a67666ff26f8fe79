package repl

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// DefaultDocTimeout bounds a :doc lookup (go doc reads the package's sources).
const DefaultDocTimeout = 30 * time.Second

// Doc is what :doc NAME prints: the signature and doc comment of pkg, pkg.Name or
// pkg.Type.Method, where pkg is a name the session imports (eqflib, plots, strings, …). It runs
// `go doc` on the package's import path, so it needs the go command on PATH (make repl has it).
func (s *Session) Doc(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New(":doc needs a NAME, e.g. :doc eqflib.CFunctionWarp")
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
		return "", fmt.Errorf(":doc %s: the session imports no package %s (import it first)", name, pkg)
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
	out, err := exec.CommandContext(ctx, goCmd, "doc", arg).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf(":doc %s: %s", name, msg)
	}
	return string(out), nil
}
