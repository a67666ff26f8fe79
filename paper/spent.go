package paper

import (
	"fmt"
	"strings"
	"time"
)

// Spent is where an experiment's wall time went, phase by phase, as its setup measured it:
// loading the zoo's models, rendering the validation clips, rolling out (the process's first
// computed rollout apart: it builds the step graphs, and on XLA compiles them) and scoring
// (FVD features, flicker, action agreement). `eqf paper` prints it after each experiment and
// the setup logs each phase as it ends, so that a run stopped half way (a GPU lease's last
// minutes) still says where its time went. It describes the machine, not the numbers:
// results.json does not keep it.
type Spent struct {
	Load     time.Duration // opening the zoo and loading the models (in quick mode training them too)
	Clips    time.Duration // rendering the validation clips, every evaluation seed
	Rollouts time.Duration // computing rollouts (and replans), the first included
	First    time.Duration // the first computed rollout alone
	Scoring  time.Duration // scoring computed rollouts
	Rolled   int           // rollouts computed
	Cached   int           // rollouts whose scores the cache gave
}

// String is one line: each measured phase with its time, e.g. "loading 12s, clips 3s, 24
// rollouts 1m1s (the first 21s), scoring 1m20s, 5 rollouts from the cache".
func (s *Spent) String() string {
	if s == nil {
		return "not measured (an analytic experiment)"
	}
	parts := []string{fmt.Sprint("loading ", roughly(s.Load))}
	if s.Clips > 0 {
		parts = append(parts, fmt.Sprint("clips ", roughly(s.Clips)))
	}
	if s.Rolled > 0 {
		parts = append(parts, fmt.Sprintf("%d %s %v (the first %v)", s.Rolled, plural(s.Rolled, "rollout"), roughly(s.Rollouts), roughly(s.First)),
			fmt.Sprint("scoring ", roughly(s.Scoring)))
	}
	if s.Cached > 0 {
		parts = append(parts, fmt.Sprintf("%d %s from the cache", s.Cached, plural(s.Cached, "rollout")))
	}
	return strings.Join(parts, ", ")
}

// Rest is the part of total (the experiment's wall time) that no phase of s covers: analyses
// outside the rollout protocol, tables and figures.
func (s *Spent) Rest(total time.Duration) time.Duration {
	if s == nil {
		return total
	}
	return max(total-s.Load-s.Clips-s.Rollouts-s.Scoring, 0)
}

// Summary is `eqf paper`'s line after an experiment of wall time total: String, then the rest
// (Rest), every time rounded alike, e.g. "loading 12s, …, scoring 1m20s; the rest (analyses,
// tables, figures, saving) 3.5s".
func (s *Spent) Summary(total time.Duration) string {
	return fmt.Sprintf("%v; the rest (analyses, tables, figures, saving) %v", s, roughly(s.Rest(total)))
}

// roughly rounds a duration for a log line: to the millisecond under a second, else to a tenth
// of a second.
func roughly(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// rolledIn adds one computed rollout of duration d to the setup's clock.
func (l *setup) rolledIn(d time.Duration) {
	if l.spent.Rolled == 0 {
		l.spent.First = d
	}
	l.spent.Rolled++
	l.spent.Rollouts += d
}
