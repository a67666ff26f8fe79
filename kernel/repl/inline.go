package repl

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Inline images: in a terminal that can draw images, a figure the session shows is also drawn
// right below the line that wrote it. Two protocols cover the terminals that can: iTerm2's
// (OSC 1337 File; also WezTerm, Konsole and others) and kitty's graphics protocol (also
// Ghostty). $EQF_INLINE_IMAGES = iterm, kitty or off overrides the detection.

// inlineProtocol names the protocol this terminal reads ("iterm", "kitty"), or "" for none.
func inlineProtocol(getenv func(string) string) string {
	switch v := strings.ToLower(getenv("EQF_INLINE_IMAGES")); v {
	case "iterm", "kitty":
		return v
	case "off", "0", "no", "none":
		return ""
	}
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || getenv("TERM") == "xterm-kitty" || getenv("TERM") == "xterm-ghostty":
		return "kitty"
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM_PROGRAM") == "WezTerm" || getenv("LC_TERMINAL") == "iTerm2":
		return "iterm"
	}
	return ""
}

// kittyChunk is the largest base64 payload of one kitty graphics escape.
const kittyChunk = 4096

// inlineImage is the escape sequence that draws png in protocol proto ("" for none), followed
// by a newline.
func inlineImage(proto string, png []byte) string {
	b64 := base64.StdEncoding.EncodeToString(png)
	switch proto {
	case "iterm":
		return fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;preserveAspectRatio=1:%s\a\n", len(png), b64)
	case "kitty":
		var b strings.Builder
		for i := 0; i < len(b64); i += kittyChunk {
			end := min(i+kittyChunk, len(b64))
			more := 1
			if end == len(b64) {
				more = 0
			}
			if i == 0 {
				fmt.Fprintf(&b, "\x1b_Gf=100,a=T,m=%d;%s\x1b\\", more, b64[i:end])
			} else {
				fmt.Fprintf(&b, "\x1b_Gm=%d;%s\x1b\\", more, b64[i:end])
			}
		}
		b.WriteString("\n")
		return b.String()
	}
	return ""
}
