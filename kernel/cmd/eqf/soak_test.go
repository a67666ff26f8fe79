package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// trainProc is a running `eqf train` whose output is collected.
type trainProc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *trainProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *trainProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

var progressStep = regexp.MustCompile(`\] (\d+)/\d+ `)

// lastStep is the last step the progress line reported (−1 before the first).
func (p *trainProc) lastStep() int {
	m := progressStep.FindAllStringSubmatch(p.output(), -1)
	if len(m) == 0 {
		return -1
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

func startTrain(t *testing.T, dir string, ckptEvery int) *trainProc {
	t.Helper()
	p := &trainProc{}
	p.cmd = exec.Command(eqfBinary(t), "train", "-preset", "tiny", "-steps", "1000000", "-out", dir, "-resume",
		"-ckpt-every", strconv.Itoa(ckptEvery), "-eval-every", "0")
	p.cmd.Stdout, p.cmd.Stderr = p, p
	// The live bar reports every step (outside a terminal eqf train writes a line every few
	// percent, too seldom for these tests).
	p.cmd.Env = append(os.Environ(), "EQF_PROGRESS=live")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitSteps waits until the run has reported at least n steps.
func (p *trainProc) waitSteps(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for p.lastStep() < n {
		if time.Now().After(deadline) {
			p.cmd.Process.Kill()
			t.Fatalf("no progress to step %d within 3 minutes:\n%s", n, p.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Ctrl-C (SIGINT) in eqf train saves a final checkpoint at the step it reached and exits 0.
func TestTrainSIGINT(t *testing.T) {
	dir := t.TempDir()
	p := startTrain(t, dir, 1000)
	p.waitSteps(t, 5)
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("eqf train after SIGINT: %v\n%s", err, p.output())
	}
	if !strings.Contains(p.output(), "stopped at step") {
		t.Errorf("no stop message:\n%s", p.output())
	}
	info, err := eqflib.CheckpointInfo(eqflib.LatestCheckpoint(dir))
	if err != nil {
		t.Fatal(err)
	}
	step, hist := info.Step, info.History
	if reached := p.lastStep(); step < reached || len(hist) != step {
		t.Errorf("checkpoint at step %d with %d history points; the run had reached step %d", step, len(hist), reached)
	}
	if info.Seconds <= 0 {
		t.Errorf("checkpoint holds %g s of training, want > 0", info.Seconds)
	}
	if _, err := os.Stat(filepath.Join(dir, "history.json")); err != nil {
		t.Errorf("history not written: %v", err)
	}
}

// TestSoak is `make soak`: $EQF_SOAK trials (≥ 20) of eqf train (tiny preset, a checkpoint every
// 2 steps) killed with SIGKILL and resumed: half at a random moment, half as soon as a
// checkpoint's temporary file appears (inside a write). After every kill the latest checkpoint must load whole, its history must continue
// the previous one exactly, and at most one checkpoint interval of reported steps may be lost.
func TestSoak(t *testing.T) {
	trials, _ := strconv.Atoi(os.Getenv("EQF_SOAK"))
	if trials == 0 {
		t.Skip("set EQF_SOAK=<trials> (make soak) to run the kill -9 soak test")
	}
	const every = 2
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var prev []eqflib.LossPoint
	corrupt, maxLost, midWrite := 0, 0, 0
	seconds := 0.0 // the latest checkpoint's training time: it never goes back
	for i := 0; i < trials; i++ {
		p := startTrain(t, dir, every)
		p.waitSteps(t, len(prev)+1) // past start-up: the graph compiled, training under way
		var reached int
		if i%2 == 0 {
			// Even trials: a random moment.
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
			reached = p.lastStep()
		} else {
			// Odd trials: the moment a checkpoint's temporary file appears, i.e. inside a write.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				if tmp, _ := filepath.Glob(filepath.Join(dir, ".ckpt-*.tmp-*")); len(tmp) > 0 {
					break
				}
			}
			reached = p.lastStep()
		}
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".ckpt-*.tmp-*")); len(tmp) > 0 {
			midWrite++
		}
		files, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.eqf"))
		for _, f := range files {
			if _, err := eqflib.CheckpointInfo(f); err != nil {
				corrupt++
				t.Errorf("trial %d: %s: %v", i, filepath.Base(f), err)
			}
		}
		last := eqflib.LatestCheckpoint(dir)
		info, err := eqflib.CheckpointInfo(last)
		if err != nil {
			t.Fatalf("trial %d: latest checkpoint: %v", i, err)
		}
		step, hist := info.Step, info.History
		if len(hist) != step {
			t.Errorf("trial %d: checkpoint at step %d holds %d history points", i, step, len(hist))
		}
		for j := range min(len(prev), len(hist)) {
			if hist[j] != prev[j] {
				t.Fatalf("trial %d: history point %d changed after resuming: %+v, was %+v", i, j, hist[j], prev[j])
			}
		}
		if len(hist) < len(prev) {
			t.Fatalf("trial %d: history shrank from %d to %d points", i, len(prev), len(hist))
		}
		if info.Seconds < seconds {
			t.Errorf("trial %d: the checkpoint's training time went back from %g s to %g s", i, seconds, info.Seconds)
		}
		seconds = info.Seconds
		// Steps reported (reached) but not in a checkpoint are lost; one interval at most, plus
		// the step whose write the kill interrupted.
		lost := reached - step
		maxLost = max(maxLost, lost)
		if lost > every {
			t.Errorf("trial %d: reached step %d, latest checkpoint %d: %d steps lost (> %d)", i, reached, step, lost, every)
		}
		prev = hist
	}
	fmt.Printf("%d trials, %d corrupt, max steps lost %d (%d kills left a checkpoint write unfinished; history at step %d)\n",
		trials, corrupt, maxLost, midWrite, len(prev))
}
