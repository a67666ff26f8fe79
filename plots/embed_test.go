package plots

import (
	"html"
	"strings"
	"testing"
)

func TestEmbed(t *testing.T) {
	page := []byte(`<html><body><div id="a" title='x'>"quoted" & <b>bold</b></div><script>var s = "<"</script></body></html>`)
	s, err := Embed(page, 400)
	if err != nil {
		t.Fatal(err)
	}
	const open = `<iframe srcdoc="`
	if !strings.HasPrefix(s, open) || !strings.Contains(s, "height:400px") {
		t.Fatalf("Embed = %s", s)
	}
	attr := s[len(open):strings.Index(s, `" style=`)]
	if strings.ContainsAny(attr, `"<>`) {
		t.Errorf("srcdoc attribute not escaped: %s", attr)
	}
	if got := html.UnescapeString(attr); got != string(page) {
		t.Errorf("srcdoc does not round-trip:\n%s\n%s", got, page)
	}
	if _, err := Embed(nil, 400); err == nil || !strings.Contains(err.Error(), "page") {
		t.Errorf("empty page: %v", err)
	}
	if _, err := Embed(page, 10); err == nil || !strings.Contains(err.Error(), "height = 10") {
		t.Errorf("height 10: %v", err)
	}
}
