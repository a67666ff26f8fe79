package symbols_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/symbols"
)

// sweepPackages are eqf's public packages whose every function and method the sweep calls.
var sweepPackages = []string{"eqflib", "data", "plots", "zoo", "paper"}

// buildsGraph reports whether a function takes a graph node: it runs inside a graph function,
// where GoMLX's convention is to panic on bad input and the executor (Exec.Call, and eqflib's
// own executors through catch) returns the panic as an error. The sweep leaves these out.
func buildsGraph(ft reflect.Type) bool {
	for i := range ft.NumIn() {
		t := ft.In(i)
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.PkgPath() == "github.com/gomlx/gomlx/core/graph" && (t.Name() == "Node" || t.Name() == "Graph") {
			return true
		}
	}
	return false
}

// callLimit catches a call that hangs. It is well above the slowest call's few seconds:
// zoo.OpenTrained() trains the quick zoo's action net in the empty EQF_ROOT, which took over 30 s
// on two cores shared with two trainings and the other packages' tests.
const callLimit = 3 * time.Minute

// TestNoPanicOnZeroArguments calls every exported function of eqf's packages, and every method
// of their exported types on a zero value, with zero arguments (nil pointers, nil slices and
// interfaces, zero numbers, empty strings) and checks that none panics: bad input is an error,
// never a panic (a Must… function panics by its contract and is left out).
func TestNoPanicOnZeroArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("calls every public function")
	}
	t.Chdir(t.TempDir()) // anything a zero-argument call writes lands here
	t.Setenv("EQF_ROOT", t.TempDir())
	var names []string
	graphFuncs := 0
	calls := map[string]func() []reflect.Value{}
	for _, pkg := range sweepPackages {
		key := "github.com/equilibriumforcing/eqf/" + pkg + "/" + pkg
		for name, v := range symbols.Symbols[key] {
			if strings.HasPrefix(name, "_") || strings.HasPrefix(name, "Must") {
				continue
			}
			switch {
			case v.Kind() == reflect.Func:
				if buildsGraph(v.Type()) {
					graphFuncs++
					continue
				}
				fn := v
				calls[pkg+"."+name] = func() []reflect.Value { return call(fn, reflect.Value{}) }
			case v.Kind() == reflect.Pointer && v.IsNil(): // a type: (*T)(nil)
				pt := v.Type()
				for i := range pt.NumMethod() {
					m := pt.Method(i)
					if strings.HasPrefix(m.Name, "Must") {
						continue
					}
					if buildsGraph(m.Type) {
						graphFuncs++
						continue
					}
					calls[pkg+"."+pt.Elem().Name()+"."+m.Name] = func() []reflect.Value {
						return call(m.Func, reflect.New(pt.Elem()))
					}
				}
			}
		}
	}
	for n := range calls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		done := make(chan string, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Sprint(r)
				}
			}()
			calls[n]()
			done <- ""
		}()
		select {
		case p := <-done:
			if p != "" {
				t.Errorf("%s with zero arguments panics: %s", n, firstLine(p))
			}
		case <-time.After(callLimit):
			t.Errorf("%s with zero arguments has not returned in %s", n, callLimit)
		}
	}
	t.Logf("%d functions and methods called; %d graph-building ones left out", len(names), graphFuncs)
	if len(names) < 300 {
		t.Errorf("only %d functions and methods found: is the symbol table complete?", len(names))
	}
}

// call calls fn with recv (when valid) and zero values for every other parameter.
func call(fn reflect.Value, recv reflect.Value) []reflect.Value {
	ft := fn.Type()
	var args []reflect.Value
	for i := range ft.NumIn() {
		if i == 0 && recv.IsValid() {
			args = append(args, recv)
			continue
		}
		args = append(args, reflect.Zero(ft.In(i)))
	}
	if ft.IsVariadic() {
		return fn.CallSlice(args)
	}
	return fn.Call(args)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
