package eqflib

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/gobackend"
)

// BackendEnv is the environment variable that selects the compute backend, as in GoMLX:
// "<name>[:<config>]", e.g. "go", "go:parallelism=-1". Unset or empty means ParamBackend.
const BackendEnv = compute.ConfigEnvVar // "GOMLX_BACKEND"

// ParamBackend is the default backend: the pure-Go backend with unlimited parallelism, measured
// ~1.5–1.8× faster than plain "go" on a 512³ matmul (128 vs 70–85 GFLOP/s on 2 cores) and ~1.8×
// on a small DiT training step.
const ParamBackend = "go:parallelism=-1"

// SIMD reports whether this binary was built with GOEXPERIMENT=simd. Without it the pure-Go
// backend's matrix products are about 25× slower.
const SIMD = simdEnabled

var (
	backendOnce sync.Once
	backendVal  compute.Backend
	backendErr  error
)

// Backend returns the process-wide compute backend, created on first use. It honours
// $GOMLX_BACKEND and defaults to ParamBackend (pure Go). eqflib imports only the pure-Go
// backend, so creating it never tries to download XLA. In a build without GOEXPERIMENT=simd it
// prints a one-line warning to standard error.
func Backend() (compute.Backend, error) {
	backendOnce.Do(func() {
		backendVal, backendErr = newBackend(os.Getenv(BackendEnv))
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

func newBackend(config string) (b compute.Backend, err error) {
	defer catch(&err)
	if config == "" {
		config = ParamBackend
	}
	name, opts, _ := strings.Cut(config, ":")
	if name == gobackend.BackendName {
		// The Go backend prints a line to stdout when parallelism is set; keep notebooks and
		// command output clean by discarding stdout while it is created (once per process).
		return withStdoutDiscarded(func() (compute.Backend, error) { return gobackend.New(opts) })
	}
	known := compute.List()
	found := false
	for _, k := range known {
		found = found || k == name
	}
	if !found {
		return nil, paramErr("$"+BackendEnv, config, fmt.Sprintf("one of the backends compiled in: %q (optionally followed by :config)", known))
	}
	return compute.NewWithConfig(config)
}

// isGoBackend reports whether b is the pure-Go backend (named "go" or "Go Backend" depending on
// how it was created).
func isGoBackend(b compute.Backend) bool {
	return strings.HasPrefix(strings.ToLower(b.Name()), gobackend.BackendName)
}

func withStdoutDiscarded(fn func() (compute.Backend, error)) (compute.Backend, error) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return fn()
	}
	defer devNull.Close()
	saved := os.Stdout
	os.Stdout = devNull
	defer func() { os.Stdout = saved }()
	return fn()
}
