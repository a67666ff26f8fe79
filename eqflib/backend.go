package eqflib

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/gobackend"
)

// BackendEnv is the environment variable that selects the compute backend, as in GoMLX:
// "<name>[:<config>]". Unset or empty means DefaultBackend. Recognised here:
//
//   - "go", "go:parallelism=-1", "go:ops_sequential": GoMLX's pure-Go backend (always compiled in);
//   - "xla:cuda", "xla:cuda,tf32=false", "xla:/abs/path/to/plugin.so": XLA through a PJRT plugin,
//     only in a build with `-tags xla` and cgo (backend_xla.go);
//   - "auto": xla:cuda when this build has XLA and a CUDA plugin and GPU answer, otherwise the
//     pure-Go backend; one line on standard error says which it picked and why.
const BackendEnv = compute.ConfigEnvVar // "GOMLX_BACKEND"

// DefaultBackend is the default backend: the pure-Go backend with unlimited parallelism (faster
// than its default worker pool; docs/performance.md "Measurements").
const DefaultBackend = "go:parallelism=-1"

// BackendAuto is the $GOMLX_BACKEND value that picks XLA on an NVIDIA GPU when it can and the
// pure-Go backend otherwise.
const BackendAuto = "auto"

// XLA reports whether this binary has the XLA backend compiled in (built with `-tags xla`).
const XLA = xlaCompiledIn

// SIMD reports whether this binary was built with GOEXPERIMENT=simd. Without it the pure-Go
// backend's matrix products are about 25× slower.
const SIMD = simdEnabled

var (
	backendOnce sync.Once
	backendVal  compute.Backend
	backendErr  error
)

// Backend returns the process-wide compute backend, created on first use. It honours
// $GOMLX_BACKEND and defaults to DefaultBackend (pure Go). No backend eqflib creates ever downloads
// anything: the XLA backend (build tag xla) is linked without GoMLX's plugin auto-installer. In
// a build without GOEXPERIMENT=simd it prints a one-line warning to standard error.
func Backend() (compute.Backend, error) {
	backendOnce.Do(func() {
		backendVal, backendErr = newBackendLogged(os.Getenv(BackendEnv), os.Stderr)
		if backendErr == nil {
			var p Precision
			if p, backendErr = CurrentPrecision(); backendErr == nil {
				backendErr = checkPrecision(p, backendVal)
			}
		}
		if backendErr == nil && !SIMD && isGoBackend(backendVal) {
			fmt.Fprintln(os.Stderr, "eqflib: warning: built without GOEXPERIMENT=simd; the pure-Go backend's matrix products are ~25x slower (use `make` or export GOEXPERIMENT=simd)")
		}
	})
	return backendVal, backendErr
}

// MustBackend is Backend for programs and notebooks that cannot continue without one.
func MustBackend() compute.Backend {
	b, err := Backend()
	if err != nil {
		panic(err)
	}
	return b
}

// xlaNames are the names GoMLX registers for its XLA backend.
var xlaNames = []string{"xla", "stablehlo", "hlo", "shlo", "pjrt"}

func newBackend(config string) (compute.Backend, error) { return newBackendLogged(config, io.Discard) }

// newBackendLogged creates the backend for a $GOMLX_BACKEND value; "auto" writes its one line
// (which backend it picked, and why) to log.
func newBackendLogged(config string, log io.Writer) (b compute.Backend, err error) {
	defer catch(&err)
	if config == "" {
		config = DefaultBackend
	}
	if config == BackendAuto {
		return autoBackend(log)
	}
	name, opts, _ := strings.Cut(config, ":")
	switch {
	case name == gobackend.BackendName:
		return newGoBackend(opts)
	case isXLAName(name):
		if !xlaCompiledIn {
			return nil, paramErr("$"+BackendEnv, config, "a backend this binary has: it was built without XLA — rebuild with "+
				"`CGO_ENABLED=1 go build -tags xla` (or `make gpu-check`; docs/gpu.md), or use \"go\" or \"auto\"")
		}
		return newXLABackend(opts)
	}
	known := append(compute.List(), BackendAuto)
	return nil, paramErr("$"+BackendEnv, config, fmt.Sprintf("one of the backends compiled in: %q (optionally followed by :config)", known))
}

func isXLAName(name string) bool {
	for _, n := range xlaNames {
		if name == n {
			return true
		}
	}
	return false
}

// autoBackend tries XLA on CUDA and falls back to the pure-Go backend, saying which it picked.
func autoBackend(log io.Writer) (compute.Backend, error) {
	reason := "this binary was built without XLA (-tags xla)"
	if xlaCompiledIn {
		b, err := newXLABackend("cuda")
		if err == nil {
			fmt.Fprintf(log, "eqflib: GOMLX_BACKEND=auto picked xla:cuda (%s)\n", firstLine(b.Description()))
			return b, nil
		}
		reason = "xla:cuda is unavailable: " + firstLine(err.Error())
	}
	b, err := newGoBackend(strings.TrimPrefix(DefaultBackend, gobackend.BackendName+":"))
	if err == nil {
		fmt.Fprintf(log, "eqflib: GOMLX_BACKEND=auto picked %s (%s)\n", DefaultBackend, reason)
	}
	return b, err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func newGoBackend(opts string) (compute.Backend, error) {
	// compute v0.1.14's Go backend prints "Go backend: parallelism set to N" on stdout when the
	// option is in its configuration. Rather than silence the whole process's stdout while it
	// starts (other goroutines print too), the option is taken out and applied afterwards through
	// the backend's exported Workers pool; if that ever stops working, the option goes back into
	// the configuration (and the line is printed).
	var rest []string
	parallelism, hasParallelism := 0, false
	for _, part := range strings.Split(opts, ",") {
		if v, ok := strings.CutPrefix(part, "parallelism="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, paramErr("$"+BackendEnv, part, "parallelism=<int> (−1: unlimited)")
			}
			parallelism, hasParallelism = n, true
			continue
		}
		rest = append(rest, part)
	}
	b, err := gobackend.New(strings.Join(rest, ","))
	if err != nil || !hasParallelism {
		return b, err
	}
	if setParallelism(b, parallelism) {
		return b, nil
	}
	return gobackend.New(opts)
}

// setParallelism calls b.Workers.SetMaxParallelism(n) on the Go backend (its type is internal to
// compute, its field and method are exported) and reports whether it could.
func setParallelism(b compute.Backend, n int) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	v := reflect.ValueOf(b)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	w := v.Elem().FieldByName("Workers")
	if !w.IsValid() {
		return false
	}
	m := w.MethodByName("SetMaxParallelism")
	if !m.IsValid() {
		return false
	}
	m.Call([]reflect.Value{reflect.ValueOf(n)})
	return true
}

// isGoBackend reports whether b is the pure-Go backend (named "go" or "Go Backend" depending on
// how it was created).
func isGoBackend(b compute.Backend) bool {
	return strings.HasPrefix(strings.ToLower(b.Name()), gobackend.BackendName)
}
