package repl

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// Serve starts (once per session) an HTTP server for the session folder on 127.0.0.1, so
// figures can be opened in a browser; port "" or "0" picks a free one. It never listens beyond
// localhost. It returns the URL.
func (s *Session) Serve(port string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serveURL != "" {
		return s.serveURL, nil
	}
	if port == "" {
		port = "0"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf(":serve PORT = %q: must be a port number in [0, 65535] (the server listens on 127.0.0.1 only)", port)
	}
	if err := os.MkdirAll(s.Dir(), 0o755); err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(s.Dir())), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	s.serveURL = "http://" + l.Addr().String() + "/"
	return s.serveURL, nil
}
