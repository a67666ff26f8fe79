// Package browser runs Debian's Chromium headless and offline, for the tests that check a page
// the way a reader's browser shows it (`make browser` installs it).
package browser

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Headless runs chromium headless with a fresh profile in userDataDir, no GPU, no background
// networking and 5 s of virtual time (so a page's scripts and timers run), plus args (e.g.
// "--dump-dom", URL), and returns its standard output.
func Headless(ctx context.Context, userDataDir string, args ...string) ([]byte, error) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		return nil, fmt.Errorf("chromium not found: run `make browser` (apt-get install chromium): %w", err)
	}
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--user-data-dir=" + userDataDir, "--hide-scrollbars", "--virtual-time-budget=5000"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("chromium %v: %w\n%s", args, err, stderr.String())
	}
	return out, nil
}
