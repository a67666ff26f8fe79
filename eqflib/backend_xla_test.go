//go:build xla

package eqflib

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `make test-xla` runs this on a machine without a GPU or a PJRT plugin (CI): asking for
// xla:cuda must return a clear error, quickly, without a panic and without downloading or
// installing anything.
func TestXLAWithoutGPUIsAClearError(t *testing.T) {
	if p := findCUDAPlugin(); p != "" {
		t.Skipf("this machine has a CUDA PJRT plugin (%s): run the GPU check instead", p)
	}
	home := t.TempDir()
	t.Setenv("HOME", home) // go-xla installs into ~/.local/lib/go-xla: it must stay empty
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:9")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:9")
	start := time.Now()
	for _, cfg := range []string{"xla:cuda", "xla:cuda,tf32=false"} {
		_, err := newBackend(cfg)
		if err == nil {
			t.Fatalf("%s: got a backend on a machine without a GPU", cfg)
		}
		for _, want := range []string{"no CUDA PJRT plugin found", "GOMLX_BACKEND", "jax"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not mention %q", cfg, err, want)
			}
		}
	}
	// A file that is not a plugin: dlopen fails, reported with the plugin's path.
	bogus := filepath.Join(t.TempDir(), "xla_cuda_plugin.so")
	if err := os.WriteFile(bogus, []byte("not a shared object"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(CUDAPluginEnv, bogus)
	_, err := newBackend("xla:cuda")
	if err == nil || !strings.Contains(err.Error(), bogus) {
		t.Errorf("a bogus plugin file gave %v, want an error naming %s", err, bogus)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the failures took %s: something waited on the network", d)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("asking for XLA wrote into $HOME: %v", names)
	}
}
