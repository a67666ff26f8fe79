package zoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	// Trained: Progress says so, with the last checkpoint, and no longer that a command resumes it.
	done, err := z.Progress("fm")
	if err != nil || !done.Trained || done.Step != r.Steps || done.Holder != "" ||
		done.String() != fmt.Sprintf("trained: step %d of %d after %s of training (%s)", r.Steps, r.Steps, trainingTime(done.Seconds), filepath.Base(done.Checkpoint)) {
		t.Errorf("Progress of a trained backbone: %+v (%q), %v; want trained at step %d", done, done.String(), err, r.Steps)
	}
	// A card of another configuration (the recipe changed since) is not this zoo's training done,
	// whether config.json says so or only the card does.
	if q, err := (&Zoo{Dir: dir, Recipe: other}).Progress("fm"); err != nil || q.Trained || q.String() != "not started" {
		t.Errorf("Progress of a model trained under another recipe: %+v (%q), %v; want not trained, not started", q, q.String(), err)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	if q, err := (&Zoo{Dir: dir, Recipe: other}).Progress("fm"); err != nil || q.Trained {
		t.Errorf("Progress of a model whose card is of another recipe, without config.json: %+v, %v; want not trained", q, err)
	}
	if got := (Progress{Trained: true, Steps: 600}).String(); got != "trained" {
		t.Errorf("String() of a trained model without checkpoints (the action net) = %q, want \"trained\"", got)
	}
}

// liveAtFirstLine reads the zoo's Progress of a model at the first progress line ("step 1/…")
// its training writes, from inside the training, then closes stop.
type liveAtFirstLine struct {
	z    *Zoo
	name string
	got  Progress
	err  error
	file bool // progress.json was there
	once sync.Once
	stop chan struct{}
}

func (w *liveAtFirstLine) Write(p []byte) (int, error) {
	if bytes.HasPrefix(bytes.TrimSpace(p), []byte("step ")) {
		w.once.Do(func() {
			w.got, w.err = w.z.Progress(w.name)
			_, err := os.Stat(filepath.Join(w.z.dir(w.name), liveFile))
			w.file = err == nil
			close(w.stop)
		})
	}
	return len(p), nil
}

// While a backbone trains, Progress gives the step it is at from its progress.json, which names
// the process; the file goes when the build ends, and one that another process left, or one
// without the lock held, is not read.
func TestProgressLive(t *testing.T) {
	defer func(d time.Duration) { liveEvery = d }(liveEvery)
	liveEvery = 0 // every step
	dir := t.TempDir()
	r := Recipes["quick"]
	w := &liveAtFirstLine{name: "eqf", stop: make(chan struct{})}
	z := &Zoo{Dir: dir, Recipe: r, Log: w, Stop: w.stop}
	w.z = z
	if err := z.Build("eqf"); !errors.Is(err, eqflib.ErrStopped) {
		t.Fatalf("Build stopped at its first progress line: %v, want ErrStopped", err)
	}
	p := w.got
	if w.err != nil || !w.file || p.Live == nil || p.Live.PID != os.Getpid() || p.Live.Phase != PhaseBackbone || p.Live.Step < 1 || p.Live.Seconds <= 0 {
		t.Fatalf("Progress during training: %+v (live %+v), file %v, %v; want this process's backbone at a step ≥ 1", p, p.Live, w.file, w.err)
	}
	if want := fmt.Sprintf("training now by PID %d", os.Getpid()); !strings.HasPrefix(p.String(), want) ||
		!strings.Contains(p.String(), fmt.Sprintf(", at step %d of %d after ", p.Live.Step, r.Steps)) || !strings.HasSuffix(p.String(), "; no checkpoint yet") {
		t.Errorf("String() during training = %q, want %q…, at step %d of %d after …; no checkpoint yet", p.String(), want, p.Live.Step, r.Steps)
	}
	live := filepath.Join(dir, "eqf", liveFile)
	if _, err := os.Stat(live); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("progress.json after the build ended: %v, want it removed", err)
	}

	// What the other phases say.
	l := Live{Phase: PhaseReadout, Step: 150, Updated: time.Now()}
	if got := l.String(150); got != "training h_ω after 150 steps (0s ago)" {
		t.Errorf("Live.String in the readout phase = %q", got)
	}
	l.Phase, l.Updated = PhaseCard, time.Now().Add(-90*time.Second)
	if got := l.String(150); got != "rolling out its card after 150 steps (1m30s ago)" {
		t.Errorf("Live.String in the card phase = %q", got)
	}
	l = Live{Phase: PhaseBackbone, Step: 8022, Seconds: 1060.4, Rate: 12.5, Updated: time.Now()}
	if got := l.String(70000); got != "at step 8022 of 70000 after 17m40s of training, 12.5 steps/s, about 1h23m left (0s ago)" {
		t.Errorf("Live.String of a backbone with its rate = %q", got)
	}
	// The pace follows the last five minutes: 10 steps/s for ten minutes, then 20.
	var pace stepRate
	t0 := time.Now()
	if r := pace.add(t0, 100); r != 0 {
		t.Errorf("pace at the first step = %g, want 0", r)
	}
	for sec := 15; sec <= 600; sec += 15 {
		pace.add(t0.Add(time.Duration(sec)*time.Second), 100+10*sec)
	}
	if r := pace.add(t0.Add(615*time.Second), 100+6000+20*15); math.Abs(r-10.5) > 1e-9 { // (285·10 + 15·20) / 300
		t.Errorf("pace after ten minutes at 10 steps/s and 15 s at 20 = %g, want 10.5 over the last five minutes", r)
	}
	for sec := 630; sec <= 915; sec += 15 {
		last := pace.add(t0.Add(time.Duration(sec)*time.Second), 100+6000+20*(sec-600))
		if sec == 915 && last != 20 {
			t.Errorf("pace after five minutes at 20 steps/s = %g, want 20", last)
		}
	}
	for sec, want := range map[float64]string{29: "under a minute", 60: "about 1m", 3599: "about 1h00m", 3600 + 5*60 + 31: "about 1h06m"} {
		if got := aboutMinutes(sec); got != want {
			t.Errorf("aboutMinutes(%g) = %q, want %q", sec, got, want)
		}
	}

	// A file of this process without its lock held, and one of another process with it held.
	write := func(pid int) {
		b, _ := json.Marshal(Live{PID: pid, Phase: PhaseBackbone, Step: 7, Updated: time.Now()})
		if err := os.WriteFile(live, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(os.Getpid())
	if q, err := z.Progress("eqf"); err != nil || q.Live != nil {
		t.Errorf("Progress with no lock held: %+v, %v; want no live step", q, err)
	}
	unlock, err := z.lockModel("eqf")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if q, err := z.Progress("eqf"); err != nil || q.Live == nil || q.Live.Step != 7 {
		t.Errorf("Progress with the lock held by the process that wrote it: %+v, %v; want its step 7", q, err)
	}
	write(os.Getpid() + 1)
	if q, err := z.Progress("eqf"); err != nil || q.Live != nil {
		t.Errorf("Progress with another process's file: %+v, %v; want no live step", q, err)
	}
}
