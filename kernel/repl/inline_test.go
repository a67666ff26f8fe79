package repl

import (
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/plots"
)

// The terminal's protocol is read from its environment, $EQF_INLINE_IMAGES first; the escapes
// carry the whole PNG (kitty's in chunks of at most 4096 base64 characters, the last with m=0).
func TestInlineImages(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, "iterm"},
		{map[string]string{"LC_TERMINAL": "iTerm2"}, "iterm"},
		{map[string]string{"TERM": "xterm-kitty"}, "kitty"},
		{map[string]string{"KITTY_WINDOW_ID": "1", "TERM": "xterm-256color"}, "kitty"},
		{map[string]string{"TERM": "xterm-256color"}, ""},
		{map[string]string{"TERM": "xterm-kitty", "EQF_INLINE_IMAGES": "off"}, ""},
		{map[string]string{"EQF_INLINE_IMAGES": "iterm"}, "iterm"},
	} {
		if got := inlineProtocol(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("env %v: protocol %q, want %q", c.env, got, c.want)
		}
	}
	png := []byte(strings.Repeat("\x89PNG-data", 1000)) // 9,000 bytes: 12,000 base64 characters
	b64 := base64.StdEncoding.EncodeToString(png)
	it := inlineImage("iterm", png)
	if !strings.HasPrefix(it, "\x1b]1337;File=inline=1;size=9000;") || !strings.Contains(it, ":"+b64+"\a") {
		t.Errorf("iTerm2 escape: %.60q", it)
	}
	k := inlineImage("kitty", png)
	parts := strings.Split(strings.TrimSuffix(k, "\n"), "\x1b\\")
	var payload strings.Builder
	for i, p := range parts[:len(parts)-1] {
		head, data, _ := strings.Cut(p, ";")
		last := i == len(parts)-2
		if (i == 0) != strings.HasPrefix(head, "\x1b_Gf=100,a=T,") || strings.HasSuffix(head, "m=0") != last || len(data) > kittyChunk {
			t.Errorf("kitty chunk %d: header %q, %d bytes", i, head, len(data))
		}
		payload.WriteString(data)
	}
	if payload.String() != b64 || len(parts)-1 != 3 {
		t.Errorf("kitty escapes carry %d of %d base64 characters in %d chunks, want all in 3", payload.Len(), len(b64), len(parts)-1)
	}
	if inlineImage("", png) != "" {
		t.Error("no protocol: want no escape")
	}
}

// A session told its terminal reads kitty's protocol draws a figure it shows below the "wrote"
// line; without a protocol (a pipe, as in these tests) it only writes the files; a protocol it
// does not know is refused by name.
func TestSessionDrawsFiguresInline(t *testing.T) {
	fig := &plots.Figure{Title: "inline", Panels: []plots.Panel{{XLabel: "x", YLabel: "y", Series: []plots.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1, 4}}}}}}
	s, err := New(Options{Stdout: io.Discard, Stderr: io.Discard, Dir: t.TempDir(), InlineImages: "kitty"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Format(fig); !strings.HasPrefix(got, "wrote ") || !strings.Contains(got, "\n\x1b_Gf=100,a=T,") {
		t.Errorf("kitty session: %.80q, want the paths then the image", got)
	}
	plain, _ := newTestSession(t)
	if got := plain.Format(fig); strings.Contains(got, "\x1b") {
		t.Errorf("a session writing to a pipe drew inline: %.80q", got)
	}
	if _, err := New(Options{Stdout: io.Discard, Dir: t.TempDir(), InlineImages: "sixel"}); err == nil || !strings.Contains(err.Error(), "InlineImages") {
		t.Errorf("InlineImages = sixel: error %v, want one naming it", err)
	}
}
