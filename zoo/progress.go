package zoo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// A backbone's training can run for hours and stop part-way (Ctrl-C, SIGTERM, a machine lent
// for ten minutes at a time): it leaves its newest checkpoint in the model's folder and no card,
// and the same `eqf models` command resumes it. Progress says how far such a model has got and
// whether a process is training it now, so that `eqf models -list` tells a stopped run from one
// that is running, and both from a model never started.

// Progress is where the training of a model stands: trained (its card says so), in training,
// stopped part-way, or not started.
type Progress struct {
	Step       int     // the newest checkpoint's step; 0 when there is none
	Steps      int     // the steps the zoo's recipe trains the model for
	Seconds    float64 // the training time the newest checkpoint holds (every run so far); 0 when it holds none
	Checkpoint string  // the newest checkpoint's path; "" when there is none
	Holder     string  // the process training it now, as its lock names it; "" when none
	// Live is what the process training it now last said about where it is (nil when none
	// has: the action net and g_φ, or a build of before 2026-12-02).
	Live *Live
	// Trained says the model has a card of this zoo's configuration: its training is done
	// (Zoo.Card and Zoo.Load read it) and nothing is left to resume.
	Trained bool
}

// String says it in one line: "trained: step 70000 of 70000 after 6h1m2s of training
// (ckpt-00070000.eqf)", "training now by PID …, checkpoint at step 7000 of 70000 after 40m12s
// of training", "stopped at step 7000 of 70000 after 40m12s of training (ckpt-00007000.eqf):
// the same command resumes it", or "not started". A checkpoint written before checkpoints held
// the training time (2026-11-29) gives none.
func (p Progress) String() string {
	if p.Holder == "" && p.Trained {
		if p.Checkpoint == "" { // the action net and g_φ train in one go
			return "trained"
		}
		return fmt.Sprintf("trained: %s (%s)", p.at(), filepath.Base(p.Checkpoint))
	}
	if p.Holder == "" && p.Checkpoint != "" {
		return fmt.Sprintf("stopped at %s (%s): the same command resumes it", p.at(), filepath.Base(p.Checkpoint))
	}
	if p.Holder == "" {
		return "not started"
	}
	s, sep := "training now by "+p.Holder, ", "
	if p.Live != nil {
		s, sep = s+", "+p.Live.String(p.Steps), "; "
	}
	if p.Checkpoint == "" {
		return s + sep + "no checkpoint yet"
	}
	return s + sep + "checkpoint at " + p.at()
}

// at is where the newest checkpoint stands: "step 7000 of 70000 after 40m12s of training".
func (p Progress) at() string {
	at := fmt.Sprintf("step %d of %d", p.Step, p.Steps)
	if p.Seconds > 0 {
		at += fmt.Sprintf(" after %s of training", trainingTime(p.Seconds))
	}
	return at
}

// Progress reads how far name's training has got: whether its card says it is trained, its
// newest checkpoint, unless the folder holds another configuration (Build moves such a folder
// aside instead of resuming it), and its lock's holder. The action net and g_φ train in one go
// and never have a checkpoint.
func (z *Zoo) Progress(name string) (Progress, error) {
	s, err := SpecByName(name)
	if err != nil {
		return Progress{}, err
	}
	name = s.Name
	p := Progress{Steps: z.Recipe.stepsFor(s)}
	if lockHeld(z.lockPath(name)) {
		h, named := z.readHolder(name)
		p.Holder = holderName(h, named)
		if named {
			p.Live = z.live(name, h.PID)
		}
	}
	if z.holdsOtherConfiguration(s) {
		return p, nil
	}
	if ck := eqflib.LatestCheckpoint(z.dir(name)); ck != "" {
		info, err := eqflib.CheckpointInfo(ck)
		if err != nil {
			return p, err
		}
		p.Step, p.Seconds, p.Checkpoint = info.Step, info.Seconds, ck
	}
	// Not through Card: its error for a missing model reads Progress.
	if c, err := z.readCard(s); err == nil && c.Hash == z.configHash(s) {
		p.Trained = true
	}
	return p, nil
}

// trainingTime rounds seconds of training for a person: to the second from a minute on, to a
// tenth of a second below it (a test's few steps).
func trainingTime(seconds float64) time.Duration {
	d := time.Duration(seconds * float64(time.Second))
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// stepsFor is how many steps the recipe trains s for: a backbone Steps, an equilibrium finetune
// Finetune, g_φ GPhiSteps, the action net ActionSteps.
func (r Recipe) stepsFor(s Spec) int {
	switch {
	case s.Kind == "gphi":
		return r.GPhiSteps
	case s.Kind == "action-net":
		return r.ActionSteps
	case s.From != "":
		return r.Finetune
	}
	return r.Steps
}

// A backbone writes a checkpoint every tenth of its run (7,000 steps of paper-70k, 10 to 15
// minutes on two cores) and every checkpointAfter, so while Build trains a backbone it also says
// where it is, more often and with its pace, in the model's progress.json: the step and training
// time every liveEvery, then that it trains h_ω, then that it rolls out its card's evaluation.
// Build removes the file when it ends; Progress reads it only while the lock names the process
// that wrote it.

// liveFile is the file in a model's folder where the process training it says where it is.
const liveFile = "progress.json"

// liveEvery is how often a backbone in training rewrites liveFile.
var liveEvery = 15 * time.Second

// checkpointAfter is the most wall time between a backbone's checkpoints (on top of one every
// tenth of its steps, 7,000 steps of paper-70k, 10 to 15 minutes on two cores): what a training
// killed with no chance to save (SIGKILL, the machine switched off) loses at most.
const checkpointAfter = 5 * time.Minute

// Live is where a model in training stands, as the process training it last said.
type Live struct {
	PID     int       `json:"pid"`     // the process that trains it
	Phase   string    `json:"phase"`   // PhaseBackbone, PhaseReadout or PhaseCard
	Step    int       `json:"step"`    // the backbone's step
	Seconds float64   `json:"seconds"` // the training time so far, every run included (0 when not known)
	Rate    float64   `json:"rate"`    // steps per second over the last rateWindow (0 when not known)
	Updated time.Time `json:"updated"` // when it said so
}

// The phases of a backbone's build that Live names.
const (
	PhaseBackbone = "backbone" // training the DiT
	PhaseReadout  = "h_ω"      // training the σ readout h_ω on the finished backbone
	PhaseCard     = "card"     // rolling the finished model out for its card
)

// String says it: "at step 6166 of 70000 after 9m12s of training, 12.5 steps/s, about 1h25m
// left", "training h_ω after 70000 steps" or "rolling out its card after 70000 steps", then how
// long ago.
func (l Live) String(steps int) string {
	var at string
	switch l.Phase {
	case PhaseReadout:
		at = fmt.Sprintf("training h_ω after %d steps", l.Step)
	case PhaseCard:
		at = fmt.Sprintf("rolling out its card after %d steps", l.Step)
	default:
		at = fmt.Sprintf("at step %d of %d", l.Step, steps)
		if l.Seconds > 0 {
			at += fmt.Sprintf(" after %s of training", trainingTime(l.Seconds))
		}
		if l.Rate > 0 && steps > l.Step {
			at += fmt.Sprintf(", %.3g steps/s, %s left", l.Rate, aboutMinutes(float64(steps-l.Step)/l.Rate))
		}
	}
	return fmt.Sprintf("%s (%s ago)", at, max(time.Since(l.Updated), 0).Round(time.Second))
}

// live reads what the process that holds name's lock (holder) last said about where it is: nil
// when it has said nothing, or the file is another process's (one that stopped without removing
// it).
func (z *Zoo) live(name string, holder int) *Live {
	b, err := os.ReadFile(filepath.Join(z.dir(name), liveFile))
	if err != nil {
		return nil
	}
	var l Live
	if json.Unmarshal(b, &l) != nil {
		return nil
	}
	if l.PID != holder {
		return nil
	}
	return &l
}

// sayLive writes where the model in training stands into its folder's progress.json, for a
// process that reads the zoo meanwhile. An error is ignored: saying where it is never stops a
// training.
func (z *Zoo) sayLive(name, phase string, step int, seconds, rate float64) {
	b, _ := json.Marshal(Live{PID: os.Getpid(), Phase: phase, Step: step, Seconds: seconds, Rate: rate, Updated: time.Now()})
	_ = data.WriteFileAtomic(filepath.Join(z.dir(name), liveFile), b)
}

// rateWindow is how far back a backbone's pace (Live.Rate) looks: long enough to span its
// validations and checkpoints, short enough to follow the machine's load (a test run beside it
// ending, say).
const rateWindow = 5 * time.Minute

// stepRate is a run's steps per second over its last rateWindow, or since its first step for
// a younger run: what the time left is estimated from.
type stepRate struct{ seen []stepAt } // oldest first; the first one at or before the window

type stepAt struct {
	at   time.Time
	step int
}

// add records that the run reached step at `at` and returns its pace (0 within its first second).
func (r *stepRate) add(at time.Time, step int) float64 {
	r.seen = append(r.seen, stepAt{at, step})
	for len(r.seen) > 2 && at.Sub(r.seen[1].at) >= rateWindow {
		r.seen = r.seen[1:]
	}
	first := r.seen[0]
	if dt := at.Sub(first.at).Seconds(); dt >= 1 {
		return float64(step-first.step) / dt
	}
	return 0
}

// aboutMinutes says a time left to the minute: "about 1h23m", "about 7m", "under a minute".
func aboutMinutes(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second)).Round(time.Minute)
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("about %dm", d/time.Minute)
	}
	return fmt.Sprintf("about %dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
}
