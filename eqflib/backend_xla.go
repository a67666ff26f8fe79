//go:build xla

package eqflib

// The XLA backend (GoMLX's github.com/gomlx/go-xla/compute/xla, PJRT plugins loaded with dlopen)
// for GPUs. Built only with `-tags xla` and cgo (gcc; no CUDA SDK at build time). We import the
// backend package and never its autoinstall sub-package (nor gomlx's backends/default), so
// asking for a plugin that is not installed is an error, never a download.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gomlx/compute"
	xla "github.com/gomlx/go-xla/compute/xla"
)

const xlaCompiledIn = true

// pjrtAPI is the PJRT C API version go-xla v0.4.13 was built against (its pjrt_c_api.h).
const pjrtAPI = "0.104"

// CUDAPluginEnv names a CUDA PJRT plugin file to use for "xla:cuda" ahead of any search.
const CUDAPluginEnv = "EQF_PJRT_CUDA_PLUGIN"

func init() { xla.EnableAutoInstall(false) } // belt and braces: no installer is linked anyway

// newXLABackend creates the XLA backend for the options after "xla:" ("cuda,tf32=false",
// "/abs/plugin.so", "" for the first plugin found). For "cuda" it also finds the plugin that
// jax ships (jax_plugins/xla_cuda*/xla_cuda_plugin.so in a Python site-packages), whose file
// name go-xla's own search does not recognise.
func newXLABackend(opts string) (b compute.Backend, err error) {
	plugin, rest, _ := strings.Cut(opts, ",")
	if rest != "" {
		rest = "," + rest
	}
	searched := "PJRT_PLUGIN_LIBRARY_PATH, ~/.local/lib/go-xla, /usr/local/lib/go-xla, LD_LIBRARY_PATH"
	if plugin == "cuda" && !hasPlugin("cuda") {
		searched += ", $" + CUDAPluginEnv + " and jax's jax_plugins/xla_cuda*/ in Python site-packages"
		if p := findCUDAPlugin(); p != "" {
			plugin = p
			if os.Getenv("GOPJRT_CUDA_CHECKS") == "" {
				// jax's plugin finds CUDA through its RPATH (site-packages/nvidia), not the
				// nvidia/ folder go-xla checks for and warns about.
				_ = os.Setenv("GOPJRT_CUDA_CHECKS", "0")
			}
		} else {
			return nil, fmt.Errorf("eqflib: $%s = xla:%s: no CUDA PJRT plugin found (looked in %s). Install jax with CUDA "+
				"(its xla_cuda plugin is used), set $%s to the plugin file, or give its absolute path: "+
				"GOMLX_BACKEND=xla:/abs/path/to/xla_cuda_plugin.so", BackendEnv, opts, searched, CUDAPluginEnv)
		}
	}
	b, err = xla.New(plugin + rest)
	if err != nil {
		msg := err.Error()
		hint := ""
		if strings.Contains(msg, "size") || strings.Contains(strings.ToLower(msg), "version") {
			hint = fmt.Sprintf(" — this looks like a PJRT C API mismatch: go-xla v0.4.13 speaks PJRT C API %s; use a plugin "+
				"built for it (jax's CUDA plugin of the matching release) or another go-xla", pjrtAPI)
		}
		return nil, fmt.Errorf("eqflib: $%s = xla:%s: the XLA backend could not start with plugin %q%s: %w", BackendEnv, opts, plugin, hint, err)
	}
	return b, nil
}

// XLAPlugins lists the PJRT plugins go-xla finds by name, plus jax's CUDA plugin if installed.
func XLAPlugins() []string {
	out := append([]string(nil), xla.GetAvailablePlugins()...)
	if p := findCUDAPlugin(); p != "" {
		out = append(out, p)
	}
	return out
}

func hasPlugin(name string) bool {
	for _, p := range xla.GetAvailablePlugins() {
		if p == name || strings.HasPrefix(p, name+"_") {
			return true
		}
	}
	return false
}

// findCUDAPlugin returns $EQF_PJRT_CUDA_PLUGIN if set, else the newest jax CUDA plugin in the
// site-packages of the python3 on PATH, $VIRTUAL_ENV, the user's and the system's Pythons.
func findCUDAPlugin() string {
	if p := os.Getenv(CUDAPluginEnv); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	var roots []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "python3")); err == nil {
			roots = append(roots, filepath.Dir(dir)) // <prefix>/bin/python3 → <prefix>
		}
	}
	if v := os.Getenv("VIRTUAL_ENV"); v != "" {
		roots = append(roots, v)
	}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".local"))
	}
	roots = append(roots, "/usr", "/usr/local", "/opt/conda")
	for _, root := range roots {
		var found []string
		for _, pkgs := range []string{"site-packages", "dist-packages"} {
			m, _ := filepath.Glob(filepath.Join(root, "lib", "python3*", pkgs, "jax_plugins", "xla_cuda*", "xla_cuda_plugin.so"))
			found = append(found, m...)
		}
		if len(found) > 0 {
			sort.Strings(found) // xla_cuda12 < xla_cuda13: the newest CUDA last
			return found[len(found)-1]
		}
	}
	return ""
}
