package display

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/zoo"
)

// recorder is a sink that keeps what a call showed, in order ("png", "html:…", "md:…", "sync").
type recorder struct{ got []string }

func (r *recorder) png(b []byte)      { r.got = append(r.got, "png") }
func (r *recorder) html(s string)     { r.got = append(r.got, "html:"+s) }
func (r *recorder) markdown(s string) { r.got = append(r.got, "md:"+s) }
func (r *recorder) sync()             { r.got = append(r.got, "sync") }

func record(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	old := out
	out = r
	t.Cleanup(func() { out = old })
	return r
}

var fig = &plots.Figure{Title: "t", Panels: []plots.Panel{{XLabel: "x", YLabel: "y", Series: []plots.Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}}}}

// Every call ends by waiting for GoNB (sync), after its outputs; an error is shown, then
// returned.
func TestShowThenSync(t *testing.T) {
	r := record(t)
	if err := Figure(fig); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.got, ",") != "png,sync" {
		t.Errorf("Figure showed %v, want png then sync", r.got)
	}
	r.got = nil
	if err := Figure(nil); err == nil || len(r.got) != 2 || !strings.Contains(r.got[0], "f is nil") || r.got[1] != "sync" {
		t.Errorf("Figure(nil): error %v, showed %v; want the error shown, then sync", err, r.got)
	}
	r.got = nil
	w := eqflib.MustNewWindow(1, 3, 3, 4, 4)
	if err := Videos("v", []plots.Video{{Name: "a", Frames: w}}, plots.VideoOptions{Scale: 2}); err != nil {
		t.Fatal(err)
	}
	if len(r.got) != 2 || !strings.Contains(r.got[0], "<iframe") || r.got[1] != "sync" {
		t.Errorf("Videos showed %d outputs (%.80v), want an iframe then sync", len(r.got), r.got)
	}
	r.got = nil
	if err := Strip([]plots.Video{{Name: "a", Frames: w}}, plots.VideoOptions{Scale: 2}); err != nil || strings.Join(r.got, ",") != "png,sync" {
		t.Errorf("Strip: %v, showed %v", err, r.got)
	}
	r.got = nil
	if err := Interactive(fig, 0); err != nil || len(r.got) != 2 || !strings.Contains(r.got[0], "<iframe") || !strings.Contains(r.got[0], "480") {
		t.Errorf("Interactive: %v, showed %.80v", err, r.got)
	}
}

// A committed result shows where it ran, its figure drawn from its data, and its numbers; an
// experiment without one says how to make one; an unknown name is an error.
func TestCommitted(t *testing.T) {
	r := record(t)
	if err := Committed("eqm_weighting"); err != nil {
		t.Fatal(err)
	}
	if len(r.got) != 4 || !strings.HasPrefix(r.got[0], "md:**Committed result** (`results/eqm_weighting/`; training seeds: none (analytic") ||
		!strings.Contains(r.got[0], "two CPU cores") || r.got[1] != "png" || !strings.Contains(r.got[2], "<table>") || r.got[3] != "sync" {
		t.Errorf("Committed(eqm_weighting) showed %.120q", r.got)
	}
	r.got = nil
	have := map[string]bool{}
	rs, err := paper.LoadResults(paper.ResultsDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		have[res.Name] = true
	}
	// A result on another zoo recipe (results/<experiment>-<recipe>/) follows the paper recipe's.
	for _, res := range rs {
		if res.Dir() == res.Name {
			continue
		}
		if err := Committed(res.Name); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("md:**Committed result on the zoo recipe %s** (`results/%s/`", res.Recipe, res.Dir())
		if i := slices.IndexFunc(r.got, func(s string) bool { return strings.HasPrefix(s, want) }); i < 1 || !strings.HasPrefix(r.got[0], "md:**Committed result** (`results/"+res.Name+"/`") {
			t.Errorf("Committed(%s) showed %.200q, want the paper recipe's result and then %q", res.Name, r.got, want)
		}
		// an experiment with results on the paper recipe at two lengths: their comparison follows
		atLengths := 0
		for _, o := range rs {
			if o.Name == res.Name && (o.Recipe == "" || slices.Contains(zoo.PaperLengths, o.Recipe)) {
				atLengths++
			}
		}
		if lengths := slices.ContainsFunc(r.got, func(s string) bool { return strings.Contains(s, "## Training length") }); lengths != (atLengths >= 2) {
			t.Errorf("Committed(%s): a training-length section %v, with results at %d lengths", res.Name, lengths, atLengths)
		}
		r.got = nil
	}
	for _, e := range paper.Experiments {
		if have[e.Name] {
			continue
		}
		if err := Committed(e.Name); err != nil || len(r.got) != 2 || !strings.Contains(r.got[0], "No committed result of "+e.Name) {
			t.Errorf("Committed(%s) without a result: %v, showed %.120q", e.Name, err, r.got)
		}
		break
	}
	r.got = nil
	if err := Committed("nope"); err == nil || !strings.Contains(r.got[0], "unknown") {
		t.Errorf("Committed(nope): %v, showed %q", err, r.got)
	}
}

// Check and Must stop the cell on an error after showing it, and pass values through.
func TestCheckAndMust(t *testing.T) {
	r := record(t)
	code := -1
	old := exit
	exit = func(c int) { code = c }
	t.Cleanup(func() { exit = old })
	if v := Must(7, nil); v != 7 || code != -1 || len(r.got) != 0 {
		t.Errorf("Must(7, nil) = %d, exit %d, showed %v", v, code, r.got)
	}
	Check(errors.New("boom <b>"))
	if code != 1 || len(r.got) != 2 || !strings.Contains(r.got[0], "boom &lt;b&gt;") || r.got[1] != "sync" {
		t.Errorf("Check(err): exit %d, showed %q; want the escaped error, sync, exit 1", code, r.got)
	}
}

// Cache computes a key's value once; a second call reads it back.
func TestCache(t *testing.T) {
	key := fmt.Sprintf("eqf-display-test-%d", time.Now().UnixNano())
	calls := 0
	f := func() []float64 { calls++; return []float64{1, 2.5} }
	a, b := Cache(key, f), Cache(key, f)
	if calls != 1 || len(b) != 2 || b[1] != 2.5 || a[1] != b[1] {
		t.Errorf("Cache: %d calls, values %v then %v; want one call and the same value", calls, a, b)
	}
}
