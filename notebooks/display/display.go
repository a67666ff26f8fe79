// Package display shows eqf's figures, videos and results in a GoNB notebook, one call each.
// Every call returns only when GoNB has the output (gonbui.Sync), so a cell's program can end
// right after it without losing a figure. A call that cannot render its output shows the error
// in the notebook and returns it; Must and Check stop the cell on an error with a one-line
// message instead of a panic's stack.
//
//	fig, err := plots.WarpFigure(plots.DefaultWarps(), 10)
//	display.Check(err)
//	display.Figure(fig)
//
// Outside a GoNB notebook (go run, tests, the REPL) nothing is shown: each call says so in one
// line on stderr.
package display

import (
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/paper"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/janpfeifer/gonb/gonbui"
)

// sink is where outputs go: GoNB's display (gonbSink), or a recorder in the tests.
type sink interface {
	png(b []byte)
	html(s string)
	markdown(s string)
	sync()
}

// gonbSink sends outputs to the GoNB kernel that runs this cell, or names them on stderr when
// no kernel does.
type gonbSink struct{}

func (gonbSink) png(b []byte) {
	if !gonbui.IsNotebook {
		fmt.Fprintf(os.Stderr, "display: not in a GoNB notebook: a PNG of %d bytes not shown\n", len(b))
		return
	}
	gonbui.DisplayPNG(b)
}

func (gonbSink) html(s string) {
	if !gonbui.IsNotebook {
		fmt.Fprintf(os.Stderr, "display: not in a GoNB notebook: %d bytes of HTML not shown\n", len(s))
		return
	}
	gonbui.DisplayHTML(s)
}

func (gonbSink) markdown(s string) {
	if !gonbui.IsNotebook {
		fmt.Fprintf(os.Stderr, "display: not in a GoNB notebook: %d bytes of Markdown not shown\n", len(s))
		return
	}
	gonbui.DisplayMarkdown(s)
}

func (gonbSink) sync() { gonbui.Sync() }

var (
	out  sink = gonbSink{}
	exit      = os.Exit // Must and Check end the cell's program with it
)

// shown shows err (when not nil) in the notebook, waits until GoNB has every output and
// returns err.
func shown(err error) error {
	if err != nil {
		out.html(errorHTML(err))
	}
	out.sync()
	return err
}

func errorHTML(err error) string {
	return `<pre style="color:#b00020;white-space:pre-wrap">` + html.EscapeString(err.Error()) + "</pre>"
}

// shownPNG shows b, or err when rendering failed, and waits for GoNB.
func shownPNG(b []byte, err error) error {
	if err == nil {
		out.png(b)
	}
	return shown(err)
}

// Figure shows a figure as a PNG.
func Figure(f *plots.Figure) error {
	if f == nil {
		return shown(fmt.Errorf("display: Figure: f is nil"))
	}
	return shownPNG(f.Bytes("png"))
}

// Interactive shows a figure as its echarts page (zoom, hover, toggled series; the script
// inlined, offline) in a frame of height pixels (0: 480).
func Interactive(f *plots.Figure, height int) error {
	if f == nil {
		return shown(fmt.Errorf("display: Interactive: f is nil"))
	}
	page, err := f.Bytes("html")
	if err != nil {
		return shown(err)
	}
	return Page(page, height)
}

// PNG shows PNG bytes.
func PNG(b []byte) error {
	if len(b) == 0 {
		return shown(fmt.Errorf("display: PNG: no bytes"))
	}
	out.png(b)
	return shown(nil)
}

// HTML shows an HTML fragment.
func HTML(s string) error {
	out.html(s)
	return shown(nil)
}

// Markdown shows Markdown text.
func Markdown(s string) error {
	out.markdown(s)
	return shown(nil)
}

// Page shows a whole HTML page (an echarts figure, a video player, an explorer) in a frame of
// height pixels (0: 480), its scripts running as in a browser tab.
func Page(page []byte, height int) error {
	if height == 0 {
		height = 480
	}
	frame, err := plots.Embed(page, height)
	if err == nil {
		out.html(frame)
	}
	return shown(err)
}

// Videos shows videos one above the other in the frame-by-frame player (play, pause, a slider
// for the frame), all stepping together.
func Videos(title string, videos []plots.Video, o plots.VideoOptions) error {
	page, err := plots.PlayerHTML(title, videos, o)
	if err != nil {
		return shown(err)
	}
	scale := max(o.Scale, 1)
	height := 120
	for _, v := range videos {
		if v.Frames != nil {
			height += scale*v.Frames.Shape[3] + 30
		}
	}
	return Page(page, height)
}

// Strip shows videos as a strip of frames, one row per video (the first clip of each).
func Strip(videos []plots.Video, o plots.VideoOptions) error {
	return shownPNG(plots.StripPNG(videos, o))
}

// Result shows an experiment's result: from (Markdown: where it came from; "" for none), its
// figures and strips (PNG), then its numbers beside the paper's and its notes.
func Result(r *paper.Result, from string) error {
	if r == nil {
		return shown(fmt.Errorf("display: Result: r is nil"))
	}
	if from != "" {
		out.markdown(from)
	}
	pngs, err := r.PNGs()
	if err != nil {
		return shown(err)
	}
	for _, b := range pngs {
		out.png(b)
	}
	out.html(r.HTML())
	return shown(nil)
}

// Committed shows an experiment's committed full result (results/<name>/, paper.LoadResult):
// where and how it ran (its run.txt) and its training seeds, then its figures, numbers and
// notes; or says that there is none yet and how to make one. Results of the same experiment on
// another zoo recipe (results/<name>-<recipe>/, such as the 8-frame models' paper-8) follow it,
// then how many training seeds its comparisons with the paper need (paper.SeedsMarkdown) and,
// where the paper recipe trained for other lengths has one, paper.LengthsMarkdown. It needs no
// zoo.
func Committed(name string) error {
	if _, err := paper.ByName(name); err != nil {
		return shown(err)
	}
	root := paper.ResultsDir()
	r, err := paper.LoadResult(filepath.Join(root, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		out.markdown(fmt.Sprintf("**No committed result of %s yet.** `make models SEEDS=3`, then `eqf paper %s` and commit `out/paper/%s` "+
			"as `results/%s` (`go generate ./paper ./notebooks`); or rerun it below.", name, name, name, name))
		if err := shown(nil); err != nil {
			return err
		}
	case err != nil:
		return shown(err)
	default:
		if err := Result(r, committedFrom(root, r, "")); err != nil {
			return err
		}
	}
	others, err := paper.LoadOtherRecipes(root, name)
	if err != nil {
		return shown(err)
	}
	for _, o := range others {
		if err := Result(o, committedFrom(root, o, fmt.Sprintf(" on the zoo recipe %s", o.Recipe))); err != nil {
			return err
		}
	}
	if r != nil {
		others = append([]*paper.Result{r}, others...)
	}
	md := paper.SeedsMarkdown(others) + paper.LengthsMarkdown(others) // seeds needed; the paper recipe trained for other lengths
	if md == "" {
		return nil
	}
	out.markdown(md)
	return shown(nil)
}

// committedFrom is the line above a result committed under root: its folder, training seeds and
// run.txt.
func committedFrom(root string, r *paper.Result, recipe string) string {
	seeds := "none (analytic: exact, no model)"
	if len(r.TrainSeeds) > 0 {
		seeds = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(r.TrainSeeds)), ", "), "[]")
	}
	dir := r.Dir()
	return fmt.Sprintf("**Committed result%s** (`results/%s/`; training seeds: %s). %s", recipe, dir, seeds, paper.Run(filepath.Join(root, dir)))
}

// Must returns v when err is nil; otherwise it shows err in the notebook and ends the cell.
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

// Check ends the cell when err is not nil, after showing err in the notebook.
func Check(err error) {
	if err == nil {
		return
	}
	shown(err)
	fmt.Fprintln(os.Stderr, "error:", err)
	exit(1)
}
