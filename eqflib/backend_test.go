package eqflib

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

func TestBackendDefaultsToPureGo(t *testing.T) {
	b, err := newBackend("")
	if err != nil {
		t.Fatal(err)
	}
	if !isGoBackend(b) {
		t.Errorf("default backend %q, want the pure-Go backend", b.Name())
	}
	b, err = newBackend("go:ops_sequential")
	if err != nil || !isGoBackend(b) {
		t.Errorf("go:ops_sequential gave %v, %v", b, err)
	}
	if _, err := newBackend("go:no_such_option"); err == nil {
		t.Error("an unknown Go backend option was accepted")
	}
	assertParamErr(t, "nosuch", second(newBackend("nosuch")), "$GOMLX_BACKEND")
	if !SIMD {
		t.Error("test binary built without GOEXPERIMENT=simd")
	}
}

// On a machine without an NVIDIA GPU (CI), "auto" falls back to the Go backend and says so in one
// line, whether or not this build has XLA.
func TestBackendAutoFallsBackToGo(t *testing.T) {
	t.Setenv("EQF_PJRT_CUDA_PLUGIN", "") // an XLA build must not find a plugin here
	var log bytes.Buffer
	b, err := newBackendLogged(BackendAuto, &log)
	if err != nil {
		t.Fatal(err)
	}
	if !isGoBackend(b) {
		t.Skipf("auto picked %s: this machine has a GPU", b.Name())
	}
	line := log.String()
	if strings.Count(line, "\n") != 1 || !strings.Contains(line, "GOMLX_BACKEND=auto picked "+DefaultBackend) {
		t.Errorf("auto's message %q, want one line naming %s", line, DefaultBackend)
	}
	want := "built without XLA"
	if XLA {
		want = "xla:cuda is unavailable"
	}
	if !strings.Contains(line, want) {
		t.Errorf("auto's message %q does not say why (%q)", line, want)
	}
}

// The default configuration's parallelism=-1 reaches the Go backend (its description says so)
// without the line compute prints on stdout when the option is in its configuration.
func TestGoBackendParallelismQuietly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	b, err := newGoBackend("parallelism=-1")
	os.Stdout = saved
	w.Close()
	printed, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(printed) != 0 {
		t.Errorf("creating the backend printed %q", printed)
	}
	if d := b.Description(); !strings.Contains(d, "parallelism=-1") {
		t.Errorf("backend description %q: parallelism=-1 was not applied", d)
	}
	assertParamErr(t, "parallelism=x", second(newGoBackend("parallelism=x")), "$GOMLX_BACKEND")
}
