package repl

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Serve starts (once per session) an HTTP server for the session folder on 127.0.0.1 and
// returns its URL; port "" or "0" picks a free one. It never listens beyond localhost. Its
// front page is a live gallery: the newest figure large, the earlier ones below, updated within
// a second whenever eqf.Show (or a figure an expression returns) writes a new one; every file of
// the folder is served under its name (a figure's interactive page, a video player).
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
	srv := &http.Server{Handler: galleryHandler(s.Dir()), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	s.serveURL = "http://" + l.Addr().String() + "/"
	return s.serveURL, nil
}

// shownItem is one figure or video of the session folder, as the gallery lists it: the image
// (PNG or GIF) and, when there is one, the interactive page of the same stem.
type shownItem struct {
	Image string `json:"image"`
	Page  string `json:"page,omitempty"`
}

// shownItems lists the session folder's figures and videos, newest first (eqf.Show numbers
// them NNN-…, so name order is the order they were shown).
func shownItems(dir string) ([]shownItem, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range entries {
		have[e.Name()] = true
	}
	var items []shownItem
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		if e.IsDir() || (ext != ".png" && ext != ".gif") || strings.HasPrefix(name, ".") {
			continue
		}
		it := shownItem{Image: name}
		if page := strings.TrimSuffix(name, ext) + ".html"; have[page] {
			it.Page = page
		}
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Image > items[j].Image })
	return items, nil
}

// galleryHandler serves the live gallery at "/", the folder's listing at "/shown.json" and
// every file of dir under its name.
func galleryHandler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, galleryPage, htmlEscape(dir))
		case "/shown.json":
			items, err := shownItems(dir)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			_ = json.NewEncoder(w).Encode(items)
		default:
			w.Header().Set("Cache-Control", "no-store")
			files.ServeHTTP(w, r)
		}
	})
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// galleryPage polls /shown.json every second and redraws when the list changes: the newest
// figure large, the earlier ones as a strip of thumbnails (each links its interactive page).
const galleryPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>eqf REPL figures</title>
<style>
body{font-family:sans-serif;margin:16px;color:#222}
#latest img{max-width:100%%;border:1px solid #ccc}
#earlier{display:flex;flex-wrap:wrap;gap:8px;margin-top:16px}
#earlier img{height:120px;border:1px solid #ddd}
.name{font-size:13px;color:#555}
</style></head>
<body>
<h2>eqf REPL figures</h2>
<div class="name">%s — new figures appear here as the session shows them (eqf.Show, or an expression that returns a figure).</div>
<div id="latest"><p>No figure yet.</p></div>
<div id="earlier"></div>
<script>
let last = "";
function item(it, big) {
  const img = '<img src="' + encodeURIComponent(it.image) + '?' + Date.now() + '" alt="' + it.image + '">';
  const link = it.page ? ' <a href="' + encodeURIComponent(it.page) + '">interactive</a>' : '';
  return big ? '<p class="name">' + it.image + link + '</p>' + img
             : '<a href="' + encodeURIComponent(it.page || it.image) + '" title="' + it.image + '">' + img + '</a>';
}
async function poll() {
  try {
    const r = await fetch('shown.json', {cache: 'no-store'});
    const items = await r.json() || [];
    const key = JSON.stringify(items);
    if (key !== last) {
      last = key;
      document.getElementById('latest').innerHTML = items.length ? item(items[0], true) : '<p>No figure yet.</p>';
      document.getElementById('earlier').innerHTML = items.slice(1).map(it => item(it, false)).join('');
    }
  } catch (e) {}
  setTimeout(poll, 1000);
}
poll();
</script>
</body></html>
`
