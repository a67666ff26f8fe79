//go:build notebook

package jupyter

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestServerLoopbackWithToken starts the notebook server the way `make jupyter` does (serve.sh)
// and checks that it answers an API request without its token with 403, with it with 200, and
// that it listens on 127.0.0.1 only (every other address of the machine refuses the port).
func TestServerLoopbackWithToken(t *testing.T) {
	const token = "eqf-server-test-token"
	port, get := startServer(t, t.TempDir(), t.TempDir(), token)
	for _, path := range []string{"/api/contents", "/api/kernels", "/api/sessions"} {
		if code, err := get(path, ""); err != nil || code != http.StatusForbidden {
			t.Errorf("GET %s without the token: %d, %v; want 403", path, code, err)
		}
		if code, err := get(path, "wrong-"+token); err != nil || code != http.StatusForbidden {
			t.Errorf("GET %s with a wrong token: %d, %v; want 403", path, code, err)
		}
		if code, err := get(path, token); err != nil || code != http.StatusOK {
			t.Errorf("GET %s with the token: %d, %v; want 200", path, code, err)
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, a := range addrs {
		ip, ok := a.(*net.IPNet)
		if !ok || ip.IP.IsLoopback() || ip.IP.IsLinkLocalUnicast() {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ip.IP.String(), strconv.Itoa(port)), 2*time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the server accepts connections on %s: it must listen on 127.0.0.1 only", ip.IP)
		}
		checked++
	}
	t.Logf("403 without the token, 200 with it; %d non-loopback addresses refuse the port", checked)
}

// startServer starts the notebook server the way `make jupyter` does (serve.sh) on a free
// port, with the kernels of dataDir, serving dir with token, waits until it answers, stops it
// when the test ends, and returns the port and a GET helper (path, token → status).
func startServer(t *testing.T, dataDir, dir, token string) (port int, get func(path, tok string) (int, error)) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("sh", "serve.sh", "/usr/bin/jupyter", dataDir, strconv.Itoa(port), dir)
	cmd.Env = append(os.Environ(), "JUPYTER_TOKEN="+token, "JUPYTER_CONFIG_DIR="+t.TempDir(), "JUPYTER_RUNTIME_DIR="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.CreateTemp(t.TempDir(), "jupyter-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	get = func(path, tok string) (int, error) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "token "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		code, err := get("/api/status", token)
		if err == nil && code == http.StatusOK {
			return port, get
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("the server did not answer within 90 s (last: %d, %v)\n%s", code, err, tail(string(out), 3000))
		}
		time.Sleep(500 * time.Millisecond)
	}
}
