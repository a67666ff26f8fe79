//go:build !xla

package eqflib

import (
	"strings"
	"testing"
)

// The default build has no XLA: asking for it is a clear error naming the variable and the
// rebuild, never a panic or a download.
func TestBackendXLANeedsTheBuildTag(t *testing.T) {
	for _, cfg := range []string{"xla:cuda", "xla", "xla:cuda,tf32=false", "stablehlo:cpu"} {
		err := second(newBackend(cfg))
		assertParamErr(t, cfg, err, "$GOMLX_BACKEND")
		if err != nil && !strings.Contains(err.Error(), "-tags xla") {
			t.Errorf("%s: %v does not say how to rebuild", cfg, err)
		}
	}
	if XLA || len(XLAPlugins()) != 0 {
		t.Error("the default build claims XLA")
	}
}
