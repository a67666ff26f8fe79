package paper

import (
	"strings"
	"testing"
	"time"
)

// An experiment's setup clocks its phases: a computed rollout (and its scoring) and one the
// cache gave are counted apart, the first computed rollout is kept, the result carries the
// clock (Result.Spent) and the log says each phase as it ends.
func TestSpent(t *testing.T) {
	l, log, m, _ := rollFMEuler(t, quick(), "fm") // computed, or cached by an earlier test
	before := *l.spent
	if _, err := l.rollout(m, 7); err != nil { // from the process's cache
		t.Fatal(err)
	}
	l.cfg.NoCache = true
	if _, err := l.rollout(m, 7); err != nil { // computed again
		t.Fatal(err)
	}
	s := l.spent
	if s.Rolled != before.Rolled+1 || s.Cached != before.Cached+1 || s.Rolled+s.Cached != 3 {
		t.Errorf("rolled %d, cached %d (before: %d, %d): want one more of each, three in all", s.Rolled, s.Cached, before.Rolled, before.Cached)
	}
	if s.First <= 0 || s.Rollouts < s.First || s.Scoring <= 0 || s.Load <= 0 || s.Clips <= 0 {
		t.Errorf("phases %+v: want the load, the clips, both rollouts (the first among them) and their scoring timed", *s)
	}
	r := l.withProvenance(&Result{Name: "spent"})
	if r.Spent != s {
		t.Errorf("Result.Spent is not the setup's clock")
	}
	line := r.Spent.String()
	for _, want := range []string{"loading ", "clips ", " rollout", "(the first ", "scoring ", " from the cache"} {
		if !strings.Contains(line, want) {
			t.Errorf("Spent.String() = %q lacks %q", line, want)
		}
	}
	// The setup's own log (newSetup ran before rollFMEuler set it) has the clips and each
	// computed rollout's scoring time.
	for _, want := range []string{"validation clips of seed 7: ", " s scoring\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	total := s.Load + s.Clips + s.Rollouts + s.Scoring
	if got := s.Rest(total + time.Second); got != time.Second {
		t.Errorf("Rest = %v, want the 1s no phase covers", got)
	}
	if got := s.Rest(total / 2); got != 0 {
		t.Errorf("Rest of less than the phases = %v, want 0", got)
	}
	one := (&Spent{Load: 1500 * time.Millisecond, Rolled: 1, Rollouts: 2 * time.Second, First: 2 * time.Second, Cached: 2}).String()
	if want := "loading 1.5s, 1 rollout 2s (the first 2s), scoring 0s, 2 rollouts from the cache"; one != want {
		t.Errorf("Spent.String() = %q, want %q", one, want)
	}
	if got, want := (&Spent{Load: time.Second}).Summary(4504*time.Millisecond), "loading 1s; the rest (analyses, tables, figures, saving) 3.5s"; got != want {
		t.Errorf("Summary = %q, want %q (the rest rounded as the phases are)", got, want)
	}
	var none *Spent // an analytic experiment
	if none.String() == "" || none.Rest(time.Minute) != time.Minute {
		t.Errorf("nil Spent: %q, rest %v", none.String(), none.Rest(time.Minute))
	}
}
