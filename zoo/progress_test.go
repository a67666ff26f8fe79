package zoo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// stopAfterFirstLine closes stop at the first progress line ("step 1/…") a training run writes:
// the run then ends after that step with a checkpoint.
type stopAfterFirstLine struct {
	log  bytes.Buffer
	once sync.Once
	stop chan struct{}
}

func (w *stopAfterFirstLine) Write(p []byte) (int, error) {
	if bytes.HasPrefix(bytes.TrimSpace(p), []byte("step ")) {
		w.once.Do(func() { close(w.stop) })
	}
	return w.log.Write(p)
}

// A backbone stopped part-way: Progress gives its checkpoint's step of the recipe's steps and
// no holder; while its lock is held it names the holder; a folder of another configuration has
// nothing to resume; and the same Build resumes from the step Progress gave.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	r := Recipes["quick"]
	if p, err := (&Zoo{Dir: dir, Recipe: r}).Progress("fm"); err != nil || p != (Progress{Steps: r.Steps}) || p.String() != "not started" {
		t.Fatalf("Progress of a model never started: %+v (%q), %v", p, p.String(), err)
	}
	w := &stopAfterFirstLine{stop: make(chan struct{})}
	z := &Zoo{Dir: dir, Recipe: r, Log: w, Stop: w.stop}
	if err := z.Build("fm"); !errors.Is(err, eqflib.ErrStopped) {
		t.Fatalf("Build stopped at its first progress line: %v, want ErrStopped", err)
	}
	p, err := z.Progress("fm")
	if err != nil {
		t.Fatal(err)
	}
	if p.Step < 1 || p.Step >= r.Steps || p.Steps != r.Steps || p.Checkpoint == "" || p.Holder != "" {
		t.Fatalf("Progress of a stopped backbone: %+v, want a checkpoint at a step in [1, %d) and no holder", p, r.Steps)
	}
	// The checkpoint holds the time its one step took (graph compilation included), and the line
	// gives it.
	if info, err := eqflib.CheckpointInfo(p.Checkpoint); err != nil || p.Seconds <= 0 || p.Seconds != info.Seconds {
		t.Errorf("Progress.Seconds = %g; want the checkpoint's training time (%g, %v), > 0", p.Seconds, info.Seconds, err)
	}
	want := fmt.Sprintf("stopped at step %d of %d after %s of training (%s): the same command resumes it", p.Step, r.Steps, trainingTime(p.Seconds), filepath.Base(p.Checkpoint))
	if p.String() != want {
		t.Errorf("String() = %q, want %q", p.String(), want)
	}
	// Loading it says where it stopped and how to resume it.
	_, err = z.Card("fm")
	if want := fmt.Sprintf("is not trained in %s yet: stopped at step %d of %d after %s of training (%s): run `QUICK=1 make models` to resume it",
		dir, p.Step, r.Steps, trainingTime(p.Seconds), filepath.Base(p.Checkpoint)); !errors.Is(err, ErrNotTrained) || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Card of a stopped backbone: %v; want ErrNotTrained with %q", err, want)
	}

	// Held: the holder is named, with the checkpoint it has reached.
	unlock, err := z.lockModel("fm")
	if err != nil {
		t.Fatal(err)
	}
	held, err := z.Progress("fm")
	_, busy := (&Zoo{Dir: dir, Recipe: r, NoWait: true}).lockModel("fm")
	_, loading := z.Load("fm")
	unlock()
	// Loading it says that it is training now and how to follow it.
	if want := fmt.Sprintf("is not trained in %s yet: training now by PID %d", dir, os.Getpid()); !errors.Is(loading, ErrNotTrained) || loading == nil ||
		!strings.Contains(loading.Error(), want) || !strings.HasSuffix(loading.Error(), "; wait for it to finish (`eqf models -list -recipe quick fm` shows how far it has got)") {
		t.Errorf("Load of a backbone in training: %v; want ErrNotTrained with %q and the command that lists it", loading, want)
	}
	if err != nil || !strings.Contains(held.Holder, fmt.Sprintf("PID %d", os.Getpid())) ||
		!strings.HasPrefix(held.String(), "training now by PID") || !strings.HasSuffix(held.String(), fmt.Sprintf("checkpoint at step %d of %d after %s of training", p.Step, r.Steps, trainingTime(p.Seconds))) {
		t.Errorf("Progress while the lock is held: %+v (%q), %v; want the holder's PID %d and the checkpoint", held, held.String(), err, os.Getpid())
	}
	// Another recipe's and training seed's list command names them (as `eqf models` takes them).
	if got, want := (&Zoo{Recipe: Recipes["paper-70k"]}).WithTrainSeed(2).listCommand("eqf"), "eqf models -list -recipe paper-70k -seed 2 eqf"; got != want {
		t.Errorf("listCommand of training seed 2 of paper-70k = %q, want %q", got, want)
	}
	if got, want := (&Zoo{Recipe: Recipes[DefaultRecipe]}).listCommand("fm"), "eqf models -list fm"; got != want {
		t.Errorf("listCommand of the paper zoo = %q, want %q", got, want)
	}
	// A second builder that will not wait says the same.
	if !errors.Is(busy, ErrLocked) || !strings.HasSuffix(busy.Error(), fmt.Sprintf("(checkpoint at step %d of %d after %s of training) (%s)", p.Step, r.Steps, trainingTime(p.Seconds), z.lockPath("fm"))) {
		t.Errorf("a second builder with NoWait: %v; want ErrLocked naming the holder's checkpoint and training time", busy)
	}
	if after, _ := z.Progress("fm"); after.Holder != "" {
		t.Errorf("Progress after the lock is released names a holder: %q", after.Holder)
	}

	// A folder without config.json is resumed by Build, so Progress gives its checkpoint.
	cfg := filepath.Join(dir, "fm", "config.json")
	b, err := os.ReadFile(cfg)
	if err != nil || os.Remove(cfg) != nil {
		t.Fatal(err)
	}
	if q, err := z.Progress("fm"); err != nil || q.Step != p.Step {
		t.Errorf("Progress without config.json: %+v, %v; want the checkpoint at step %d", q, err, p.Step)
	}
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}

	// Another recipe's folder: its checkpoint is not this recipe's to resume.
	other := r
	other.Steps++
	if q, err := (&Zoo{Dir: dir, Recipe: other}).Progress("fm"); err != nil || q.Step != 0 || q.Checkpoint != "" || q.Steps != other.Steps {
		t.Errorf("Progress under another recipe: %+v, %v; want nothing to resume of %d steps", q, err, other.Steps)
	}
	if _, err := z.Progress("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Progress(\"nope\"): %v, want an error naming the model", err)
	}

	// The same command resumes it from that step.
	var log bytes.Buffer
	if err := (&Zoo{Dir: dir, Recipe: r, Log: &log}).Build("fm"); err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("resumed from %s at step %d", filepath.Base(p.Checkpoint), p.Step); !strings.Contains(log.String(), s) {
		t.Errorf("the second Build does not say %q:\n%s", s, log.String())
	}
	if !strings.Contains(log.String(), "with the runs it resumed)") { // the first run's training time counts too
		t.Errorf("the second Build's last line gives no time with the first run's:\n%s", log.String())
	}
	if c, err := z.Card("fm"); err != nil || c.Steps != r.Steps {
		t.Errorf("card after resuming: %+v, %v; want %d steps", c, err, r.Steps)
	}
}
