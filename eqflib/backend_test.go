package eqflib

import "testing"

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
	// XLA is not compiled in: a clear error naming the variable, never a download.
	assertParamErr(t, "xla", second(newBackend("xla:cuda")), "$GOMLX_BACKEND")
	if _, err := newBackend("go:no_such_option"); err == nil {
		t.Error("an unknown Go backend option was accepted")
	}
	if !SIMD {
		t.Error("test binary built without GOEXPERIMENT=simd")
	}
}
