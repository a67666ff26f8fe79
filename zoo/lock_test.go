package zoo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// A held lock: a second builder with NoWait fails at once naming the holder's PID and model; once
// released the lock is free; a lock file a killed process left behind is taken over.
func TestModelLock(t *testing.T) {
	dir := t.TempDir()
	first := &Zoo{Dir: dir, Recipe: Recipes["quick"]}
	unlock, err := first.lockModel("eqf")
	if err != nil {
		t.Fatal(err)
	}
	second := &Zoo{Dir: dir, Recipe: Recipes["quick"], NoWait: true}
	_, err = second.lockModel("eqf")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("PID %d", os.Getpid())) || !strings.Contains(err.Error(), "eqf") {
		t.Fatalf("second writer: %v, want ErrLocked naming PID %d and eqf", err, os.Getpid())
	}
	if err := second.Build("eqf"); !errors.Is(err, ErrLocked) {
		t.Errorf("Build with NoWait on a held model: %v, want ErrLocked", err)
	}
	// Stopped while it waits: it says so, naming the holder, and has written nothing of the model.
	stop := make(chan struct{})
	var waitLog bytes.Buffer
	waiter := &Zoo{Dir: dir, Recipe: Recipes["quick"], Log: &waitLog, Stop: stop}
	time.AfterFunc(100*time.Millisecond, func() { close(stop) })
	err = waiter.Build("eqf")
	if !errors.Is(err, ErrStoppedWaiting) || errors.Is(err, eqflib.ErrStopped) || !strings.Contains(err.Error(), fmt.Sprintf("eqf is held by PID %d", os.Getpid())) {
		t.Errorf("Build stopped while waiting: %v; want ErrStoppedWaiting (not eqflib.ErrStopped) naming the holder, PID %d", err, os.Getpid())
	}
	if !strings.Contains(waitLog.String(), "waiting: PID") {
		t.Errorf("the waiting builder did not say whom it waits for: %q", waitLog.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "eqf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a builder stopped while waiting wrote the model's folder: %v", err)
	}
	unlock()
	unlock2, err := second.lockModel("eqf")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	unlock2()

	// A killed process's lock file: it names a PID but no one holds the flock.
	stale := `{"pid": 999999, "host": "gone", "model": "fm", "recipe": "quick"}`
	if err := os.WriteFile(filepath.Join(dir, "fm.lock"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	third := &Zoo{Dir: dir, Recipe: Recipes["quick"], Log: &log, NoWait: true}
	unlock3, err := third.lockModel("fm")
	if err != nil {
		t.Fatalf("stale lock: %v", err)
	}
	unlock3()
	if !strings.Contains(log.String(), "taking over the lock PID 999999 left") {
		t.Errorf("stale lock taken over silently: %q", log.String())
	}
}

// Two processes building the same quick zoo folder at once: the action net is trained once, by
// one of them; the other waits, says whom for, and finds its card.
func TestTwoWriters(t *testing.T) {
	if dir := os.Getenv("EQF_TWO_WRITERS_DIR"); dir != "" { // the child: build and report
		z := &Zoo{Dir: dir, Recipe: Recipes["quick"], Log: os.Stdout}
		if err := z.Build("action-net"); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		return
	}
	if testing.Short() {
		t.Skip("trains the quick action net")
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		c := exec.Command(os.Args[0], "-test.run", "^TestTwoWriters$", "-test.count=1")
		c.Env = append(os.Environ(), "EQF_TWO_WRITERS_DIR="+dir)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, c), append(outs, &out)
	}
	trained, waited, found := 0, 0, 0
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("builder %d: %v\n%s", i, err, outs[i])
		}
		o := outs[i].String()
		t.Logf("builder %d:\n%s", i, o)
		trained += strings.Count(o, "action-net done in")
		if strings.Contains(o, "waiting: PID ") && strings.Contains(o, "trained by the process we waited for") {
			waited++
		} else if strings.Contains(o, "action-net trained (card.json matches") {
			found++ // started after the other had finished: nothing to wait for
		}
	}
	if trained != 1 || waited+found != 1 {
		t.Errorf("action net trained %d times, %d builders waited, %d found it trained; want 1 and 1", trained, waited, found)
	}
	z := &Zoo{Dir: dir, Recipe: Recipes["quick"]}
	c, err := z.Card("action-net")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.LoadActionNet(); err != nil || c.Steps != Recipes["quick"].ActionSteps {
		t.Errorf("card %+v does not match its checkpoint (load: %v)", c, err)
	}
}

// A holder takes the lock before it writes its name: a builder that finds the lock held in
// between waits a moment for the name instead of reporting that the file names no one (the
// race TestTwoWriters once lost on a fresh machine).
func TestHolderNamedLate(t *testing.T) {
	dir := t.TempDir()
	z := &Zoo{Dir: dir, Recipe: Recipes["quick"]}
	f, err := os.OpenFile(z.lockPath("eqf"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ok, err := tryLock(f); !ok || err != nil {
		t.Fatalf("tryLock: %v %v", ok, err)
	}
	defer unlockFile(f)
	saved := holderWrite
	defer func() { holderWrite = saved }()
	holderWrite = 0
	if d := z.describeHolder("eqf"); !strings.Contains(d, "names none") {
		t.Errorf("no wait, empty lock file: %q, want it to name no one", d)
	}
	holderWrite = 5 * time.Second
	go func() {
		time.Sleep(100 * time.Millisecond)
		f.WriteAt([]byte(`{"pid": 4242, "host": "h", "model": "eqf", "recipe": "quick"}`+"\n"), 0)
	}()
	if d := z.describeHolder("eqf"); !strings.Contains(d, "PID 4242") {
		t.Errorf("holder named 100 ms after taking the lock: %q, want PID 4242", d)
	}
}
