package browser

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A page's script runs in the tab: Eval reads what it computed, WaitFor waits for what it sets
// later, a thrown exception is an error, and the screenshot is the page's PNG.
func TestPageOverPipe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><body style="background:#00f"><p id="p">wait</p>
<script>setTimeout(() => { document.getElementById('p').textContent = 'done'; }, 300);</script></body>`))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := Open(ctx, t.TempDir(), srv.URL, 400, 300)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.WaitFor(ctx, `document.getElementById('p') !== null && document.getElementById('p').textContent === 'done'`, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var sum int
	if err := p.Eval(`[1, 2, 3].reduce((a, b) => a + b)`, &sum); err != nil || sum != 6 {
		t.Errorf("Eval: %d, %v; want 6", sum, err)
	}
	if err := p.Eval(`(() => { throw new Error("boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a thrown exception: %v", err)
	}
	shot, err := p.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 300 {
		t.Errorf("screenshot %v, want the 400×300 viewport", b)
	}
	if r, g, b, _ := img.At(200, 250).RGBA(); b>>8 < 200 || r>>8 > 50 || g>>8 > 50 {
		t.Errorf("the screenshot at (200, 250) is %d,%d,%d, want the page's blue", r>>8, g>>8, b>>8)
	}
	short, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	if err := p.WaitFor(short, `false`, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "still false") {
		t.Errorf("WaitFor on false: %v", err)
	}
}
