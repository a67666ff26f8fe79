package zoo

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// A backbone's training can run for hours and stop part-way (Ctrl-C, SIGTERM, a machine lent
// for ten minutes at a time): it leaves its newest checkpoint in the model's folder and no card,
// and the same `eqf models` command resumes it. Progress says how far such a model has got and
// whether a process is training it now, so that `eqf models -list` tells a stopped run from one
// that is running, and both from a model never started.

// Progress is where the training of a model without a card stands.
type Progress struct {
	Step       int     // the newest checkpoint's step; 0 when there is none
	Steps      int     // the steps the zoo's recipe trains the model for
	Seconds    float64 // the training time the newest checkpoint holds (every run so far); 0 when it holds none
	Checkpoint string  // the newest checkpoint's path; "" when there is none
	Holder     string  // the process training it now, as its lock names it; "" when none
}

// String says it in one line: "training now by PID …, checkpoint at step 7000 of 70000 after
// 40m12s of training", "stopped at step 7000 of 70000 after 40m12s of training
// (ckpt-00007000.eqf): the same command resumes it", or "not started". A checkpoint written
// before checkpoints held the training time (2026-11-29) gives none.
func (p Progress) String() string {
	at := p.at()
	switch {
	case p.Holder != "" && p.Checkpoint != "":
		return fmt.Sprintf("training now by %s, checkpoint at %s", p.Holder, at)
	case p.Holder != "":
		return fmt.Sprintf("training now by %s, no checkpoint yet", p.Holder)
	case p.Checkpoint != "":
		return fmt.Sprintf("stopped at %s (%s): the same command resumes it", at, filepath.Base(p.Checkpoint))
	}
	return "not started"
}

// at is where the newest checkpoint stands: "step 7000 of 70000 after 40m12s of training".
func (p Progress) at() string {
	at := fmt.Sprintf("step %d of %d", p.Step, p.Steps)
	if p.Seconds > 0 {
		at += fmt.Sprintf(" after %s of training", trainingTime(p.Seconds))
	}
	return at
}

// Progress reads how far name's training has got: its newest checkpoint, unless the folder holds
// another configuration (Build moves such a folder aside instead of resuming it), and its lock's
// holder. It is meant for a model Card says is not trained;
// the action net and g_φ train in one go and never have a checkpoint.
func (z *Zoo) Progress(name string) (Progress, error) {
	s, err := SpecByName(name)
	if err != nil {
		return Progress{}, err
	}
	p := Progress{Steps: z.Recipe.stepsFor(s)}
	if lockHeld(z.lockPath(name)) {
		p.Holder = z.holder(name)
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
