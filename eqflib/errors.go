package eqflib

import (
	"fmt"
	"runtime/debug"
)

// ParamError reports a bad argument: which parameter, the value it had and the range it must
// lie in. Every public function of eqflib returns one (wrapped or not) for bad input.
type ParamError struct {
	Param   string // the parameter's name as the caller knows it, e.g. "sigmaEnd" or "Options.Momentum"
	Value   any    // what was given
	Allowed string // the allowed range, e.g. "(0, 1)"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("eqflib: parameter %s = %v is out of range: must be %s", e.Param, e.Value, e.Allowed)
}

func paramErr(param string, value any, allowed string) error {
	return &ParamError{Param: param, Value: value, Allowed: allowed}
}

// catch converts a panic (GoMLX panics while building graphs) into an error, so that no panic
// escapes a public API. Use as `defer catch(&err)`.
func catch(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = fmt.Errorf("eqflib: %w", e)
		} else {
			*err = fmt.Errorf("eqflib: %v", r)
		}
		if debugPanics {
			*err = fmt.Errorf("%w\n%s", *err, debug.Stack())
		}
	}
}

// debugPanics adds the stack of a recovered panic to the returned error (tests set it).
var debugPanics = false
