package plots

import (
	"fmt"
	"html"
)

// Embed wraps a self-contained HTML page (an echarts figure from Figure.Bytes("html"), the
// η-warp explorer, a video player) in an <iframe srcdoc> of the given height in pixels, so a
// notebook cell can display it (GoNB: gonbui.DisplayHTML(s)) without the page's scripts and
// styles leaking into the notebook's.
func Embed(page []byte, height int) (string, error) {
	if len(page) == 0 {
		return "", fmt.Errorf("plots: Embed: page is empty")
	}
	if height < 50 || height > 5000 {
		return "", fmt.Errorf("plots: Embed: height = %d out of range: must be in [50, 5000] pixels", height)
	}
	return fmt.Sprintf(`<iframe srcdoc="%s" style="width:100%%;height:%dpx;border:0" sandbox="allow-scripts"></iframe>`,
		html.EscapeString(string(page)), height), nil
}
