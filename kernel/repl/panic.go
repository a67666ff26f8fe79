package repl

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
)

// Panics in interpreted code, said as a Go programmer reads them.
//
// yaegi runs values through reflect, so a nil pointer read in interpreted code panics with
// reflect's words, "reflect: call of reflect.Value.Field on zero Value", where compiled Go says
// "invalid memory address or nil pointer dereference". The usual cause at the prompt is a value
// returned beside an error that was not looked at (m, _ := zoo.LoadModel("eqf") before the zoo
// is trained, then m.Card), so the session names it. yaegi also writes a line
// "1:35: panic: main(...)" to its standard error before the panic comes back: its position is
// in the source the session builds around what was typed (a wrapped expression, a file whose
// imports were taken apart, main renamed), not in what the user wrote, so the session drops it
// and reports the panic once.

// zeroValuePanic matches reflect's panic on a zero Value, which interpreted code reaches by
// dereferencing a nil pointer (a field, *p, a method through it).
var zeroValuePanic = regexp.MustCompile(`^reflect: call of reflect\.Value\.\w+ on zero Value$`)

// panicError is the error Eval returns for a panic with value v.
func panicError(v any) error {
	msg := fmt.Sprint(v)
	switch {
	case zeroValuePanic.MatchString(msg):
		return fmt.Errorf("panic: nil pointer dereference: a value used here is nil (one returned beside an error?) [yaegi: %s]", msg)
	case msg == "reflect: Method on nil interface value":
		return fmt.Errorf("panic: method called on a nil interface value (one returned beside an error?) [yaegi: %s]", msg)
	}
	return fmt.Errorf("panic: %s", msg)
}

// yaegiPanicTrace matches the line yaegi writes to standard error for a panic in interpreted
// code: "L:C: panic: F(...)".
var yaegiPanicTrace = regexp.MustCompile(`^\d+:\d+: panic: \S*\(\.\.\.\)\n$`)

// panicTraceFilter passes writes through to w, except yaegi's panic lines (written one per
// call, by fmt.Fprintln).
type panicTraceFilter struct{ w io.Writer }

func (f panicTraceFilter) Write(p []byte) (int, error) {
	if bytes.HasSuffix(p, []byte("(...)\n")) && yaegiPanicTrace.Match(p) {
		return len(p), nil
	}
	return f.w.Write(p)
}
