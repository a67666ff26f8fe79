package repl

import (
	"fmt"
	"io"
	"log"
	"maps"
	"reflect"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// os.Exit and log.Fatal. A program must not end the REPL's process, so yaegi v0.16.1 makes
// os.Exit(3) panic "os.Exit(3)" and log.Fatal print and panic with its message, which `eqf run`
// then reported as a panic, exiting with status 1 (go run: exit status 3, or 1 after log.Fatal's
// line, and no panic). The session makes both panic with an exitStatus, which an evaluation
// returns as an *ExitError: the REPL says "exit status 3" and goes on, eqf run exits with that
// status and says nothing more. log's functions write to the session's error output through a
// logger of the session's (exitSymbols), as yaegi's did.

// ExitError is the error of an evaluation whose program called os.Exit (or log.Fatal: status 1).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// exitStatus is the panic of os.Exit and log.Fatal in the session's programs.
type exitStatus int

// exitSymbols are package log, its functions those of a logger writing to stderr whose Fatal,
// Fatalf and Fatalln panic with exitStatus(1) after writing, and os.Exit, which panics with its
// status; with the interfaces fmt calls listed for log's printing functions (stdlibSymbols).
// Used after the standard library's symbols, they replace yaegi's (which it sets when it loads
// fmt, not again).
func exitSymbols(stderr io.Writer) interp.Exports {
	l := log.New(stderr, "", log.LstdFlags)
	logSyms := maps.Clone(stdlib.Symbols["log/log"])
	funcs := map[string]any{
		"Fatal":     func(v ...any) { l.Output(2, fmt.Sprint(v...)); panic(exitStatus(1)) },
		"Fatalf":    func(format string, v ...any) { l.Output(2, fmt.Sprintf(format, v...)); panic(exitStatus(1)) },
		"Fatalln":   func(v ...any) { l.Output(2, fmt.Sprintln(v...)); panic(exitStatus(1)) },
		"Panic":     l.Panic,
		"Panicf":    l.Panicf,
		"Panicln":   l.Panicln,
		"Print":     l.Print,
		"Printf":    l.Printf,
		"Println":   l.Println,
		"Flags":     l.Flags,
		"Output":    l.Output,
		"Prefix":    l.Prefix,
		"SetFlags":  l.SetFlags,
		"SetOutput": l.SetOutput,
		"SetPrefix": l.SetPrefix,
		"Writer":    l.Writer,
	}
	ifaces := []reflect.Type{reflect.TypeFor[fmt.Formatter](), reflect.TypeFor[error](), reflect.TypeFor[fmt.Stringer]()}
	mapTypes := map[reflect.Value][]reflect.Type{}
	for name, f := range funcs {
		v := reflect.ValueOf(f)
		logSyms[name] = v
		if _, printer := printers["log."+name]; printer {
			mapTypes[v] = ifaces
		}
	}
	return interp.Exports{
		"log/log": logSyms,
		"os/os":   {"Exit": reflect.ValueOf(func(code int) { panic(exitStatus(code)) })},
		".":       {"MapTypes": reflect.ValueOf(mapTypes)},
	}
}
