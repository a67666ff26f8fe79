package zoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// One writer per model. Two processes building the same zoo folder — `make models` beside a
// notebook that trains the quick zoo on demand, or two notebooks — would otherwise both train a
// model and resume from each other's checkpoints. Build therefore takes an advisory lock on
// <zoo>/<model>.lock (flock(2), so a process that dies, however it dies, releases it) before it
// trains a model, and writes who holds it into the file. A second builder waits, saying who it
// waits for, then finds the card the first one wrote and moves on; with Zoo.NoWait it fails at
// once with an error naming the holder (ErrLocked). A lock file left by a killed process holds
// no lock, and the next builder takes it over.

// ErrLocked is returned (wrapped, with the holder named) when Zoo.NoWait is set and another
// process is building the model.
var ErrLocked = errors.New("zoo: another process is building this model")

// ErrStoppedWaiting is returned (wrapped, with the holder named) when Zoo.Stop ends Build while
// it waits for another process's lock: this process trained and wrote nothing of that model, and
// the other goes on training it. It is not eqflib.ErrStopped, which says that a model in training
// saved its checkpoint.
var ErrStoppedWaiting = errors.New("zoo: stopped while waiting for another process to build this model")

// lockPoll is how often a waiting builder retries the lock (and checks Stop).
var lockPoll = 2 * time.Second

// lockHolder is what a builder writes into the lock file it holds.
type lockHolder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Model   string    `json:"model"`
	Recipe  string    `json:"recipe"`
	Started time.Time `json:"started"`
}

func (z *Zoo) lockPath(name string) string {
	return filepath.Join(filepath.Dir(z.dir(name)), name+".lock")
}

// holderWrite is how long a builder that finds a lock held gives its holder to write its name:
// a holder takes the lock before it writes who it is, so in between the file names no one.
var holderWrite = time.Second

// describeHolder names who holds name's lock and how far it has got, from Progress: "PID 4242
// on vm since 05:43:38 (checkpoint at step 32480 of 70000 after 1h2m14s of training)".
func (z *Zoo) describeHolder(name string) string {
	p, err := z.Progress(name)
	if p.Holder == "" { // released since, or lockHeld cannot tell on this system
		p.Holder = z.holder(name)
	}
	if err == nil && p.Checkpoint != "" {
		return p.Holder + " (checkpoint at " + p.at() + ")"
	}
	return p.Holder
}

// holder names who name's lock file says holds it: "PID 4242 on vm since 05:43:38". It waits up
// to holderWrite for a holder that has just taken the lock to write its name.
func (z *Zoo) holder(name string) string { return holderName(z.readHolder(name)) }

// holderName says who a lock file names (readHolder's answer).
func holderName(h lockHolder, ok bool) string {
	if !ok {
		return "another process (its lock file names none)"
	}
	return fmt.Sprintf("PID %d on %s since %s", h.PID, h.Host, h.Started.Local().Format("15:04:05"))
}

// readHolder reads who name's lock file says holds it, waiting up to holderWrite for a holder
// that has just taken the lock to write its name; ok is false when it names no one.
func (z *Zoo) readHolder(name string) (h lockHolder, ok bool) {
	for deadline := time.Now().Add(holderWrite); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(z.lockPath(name))
		if json.Unmarshal(b, &h) == nil && h.PID != 0 {
			return h, true
		}
		if time.Now().After(deadline) {
			return lockHolder{}, false
		}
	}
}

// lockModel takes name's lock, waiting (or failing, with NoWait) while another process holds
// it. It returns the function that releases it.
func (z *Zoo) lockModel(name string) (unlock func(), err error) {
	path := z.lockPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("zoo: lock %s: %w", path, err)
	}
	waiting := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("zoo: lock %s: %w", path, err)
		}
		if ok {
			break
		}
		if z.NoWait {
			f.Close()
			return nil, fmt.Errorf("%w: %s is held by %s (%s)", ErrLocked, name, z.describeHolder(name), path)
		}
		if !waiting {
			z.logf("%-10s waiting: %s is training it (%s)\n", name, z.describeHolder(name), path)
			waiting = true
		}
		select {
		case <-z.Stop:
			f.Close()
			return nil, fmt.Errorf("%w: %s is held by %s (%s); nothing of it was trained or written here", ErrStoppedWaiting, name, z.describeHolder(name), path)
		case <-time.After(lockPoll):
		}
	}
	if b, _ := os.ReadFile(path); len(strings.TrimSpace(string(b))) > 0 {
		var old lockHolder
		if json.Unmarshal(b, &old) == nil && old.PID != 0 && old.PID != os.Getpid() {
			z.logf("%-10s taking over the lock PID %d left (%s)\n", name, old.PID, path)
		}
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(lockHolder{PID: os.Getpid(), Host: host, Model: name, Recipe: z.Recipe.Name, Started: time.Now()})
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(b, '\n'), 0)
	}
	return func() {
		f.Truncate(0) // a released lock names no one
		unlockFile(f)
		f.Close()
	}, nil
}
