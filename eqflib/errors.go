package eqflib

import (
	"fmt"
	"math/rand/v2"
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

// checkRNG refuses a nil random source (every function that draws takes one explicitly, so
// that results are reproducible from a seed).
func checkRNG(rng *rand.Rand) error {
	if rng == nil {
		return paramErr("rng", "nil", "a *rand.Rand, e.g. eqflib.NewRNG(seed)")
	}
	return nil
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
