package eqflib

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// Progress reporting for Trainer.Run. On a terminal, and in a GoNB notebook (Jupyter renders
// carriage returns), one bar is redrawn in place. Anywhere else — a log file, a pipe, CI — a
// redrawn bar becomes one line of tens of thousands of characters, so progress is a full line
// every DefaultProgressPercent of the run or DefaultProgressSeconds, whichever comes first,
// and the last step. $EQF_PROGRESS=live or =lines overrides the choice.
var (
	DefaultProgressPercent = 5
	DefaultProgressSeconds = 30.0
)

// progressLog writes Trainer.Run's progress to w.
type progressLog struct {
	w        io.Writer
	live     bool      // redraw one line with \r
	drawn    bool      // live: a bar is on the current line (an error must start a new one)
	start    time.Time // of this Run
	first    int       // step at the start of this Run
	lastLine time.Time // lines: when the last line was written
	lastPct  int       // lines: the percentage bucket of the last line
}

func newProgressLog(w io.Writer, step int) *progressLog {
	if w == nil {
		return nil
	}
	now := time.Now()
	return &progressLog{w: w, live: liveProgress(w), start: now, first: step, lastLine: now, lastPct: -1}
}

// liveProgress says whether w shows a redrawn bar: a terminal, or a GoNB cell's output.
func liveProgress(w io.Writer) bool {
	switch os.Getenv("EQF_PROGRESS") {
	case "live":
		return true
	case "lines":
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if os.Getenv("GONB_PIPE") != "" && (f == os.Stdout || f == os.Stderr) {
		return true // a GoNB notebook cell: Jupyter renders \r
	}
	return term.IsTerminal(int(f.Fd()))
}

// step reports step `step` of `until` with its loss.
func (p *progressLog) step(step, until int, loss float64) {
	if p == nil {
		return
	}
	rate := float64(step-p.first) / time.Since(p.start).Seconds()
	if p.live {
		fmt.Fprintf(p.w, "\r%s %d/%d  loss %.4f  %.2f steps/s%s ", progressBar(step, until, 24), step, until, loss, rate, timeLeft(step, until, rate))
		p.drawn = true
		if step == until {
			p.endLine()
		}
		return
	}
	pct := step * 100 / max(until, 1)
	bucket := pct / max(DefaultProgressPercent, 1)
	if step != until && bucket == p.lastPct && time.Since(p.lastLine).Seconds() < DefaultProgressSeconds {
		return
	}
	p.lastPct, p.lastLine = bucket, time.Now()
	fmt.Fprintf(p.w, "step %d/%d (%d%%)  loss %.4f  %.2f steps/s%s\n", step, until, pct, loss, rate, timeLeft(step, until, rate))
}

// timeLeft estimates the time to step `until` at this run's mean rate so far (its evaluations
// included), to end a progress line: "  2h55m left", "  3m10s left", "  12s left"; "" at the
// last step or before there is a rate.
func timeLeft(step, until int, rate float64) string {
	if step >= until || !(rate > 0) {
		return ""
	}
	d := time.Duration(float64(until-step) / rate * float64(time.Second))
	switch {
	case d >= time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("  %dh%02dm left", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		d = d.Round(time.Second)
		return fmt.Sprintf("  %dm%02ds left", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("  %ds left", int(d.Round(time.Second).Seconds()))
}

// endLine ends a live bar's line, so that what follows (a message, an error) starts its own.
func (p *progressLog) endLine() {
	if p != nil && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func progressBar(done, total, width int) string {
	n := done * width / max(total, 1)
	return "[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "]"
}
