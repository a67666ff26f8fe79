package paper

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// The rollout cache's key covers every field of a sampler: a new field in eqflib.Options or
// FrameSampler must be added to it (rolloutKey) before this passes again.
func TestRolloutKeyCoversTheSampler(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeOf(eqflib.Options{}):      {"Steps", "Warp", "ClosedLoop", "Momentum", "StepSize", "Estimator", "SigmaThresh", "Cleanup", "MaxSteps", "Schedule", "Callback"},
		reflect.TypeOf(eqflib.FrameSampler{}): {"Sampler", "Depth", "Options", "Probe"},
	}
	for typ, names := range known {
		for i := range typ.NumField() {
			if f := typ.Field(i).Name; !slices.Contains(names, f) {
				t.Errorf("%s.%s is new: make the rollout cache's key (rolloutKey) tell its values apart, then list it here", typ.Name(), f)
			}
		}
	}
}

// A rollout an earlier experiment computed is reused, and equals the one computed afresh; a
// method that differs in one setting is not.
func TestRolloutCache(t *testing.T) {
	l, log, m, first := rollFMEuler(t, quick(), "fm", "eqf")
	again, err := l.rollout(m, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "computed earlier") || again.FVD != first.FVD {
		t.Errorf("the same rollout again was not reused (FVD %g then %g):\n%s", first.FVD, again.FVD, log.String())
	}
	l.cfg.NoCache = true
	fresh, err := l.rollout(m, 7)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.FVD != first.FVD || fresh.Agreement != first.Agreement || fresh.Flicker != first.Flicker {
		t.Errorf("cached scores %+v differ from a fresh rollout's %+v", *again, *fresh)
	}
	// A rollout keeps the strip's clip only, computed or cached alike: an experiment holds every
	// method's scores to the end, and all clips of 72 rollouts once filled 24 GB.
	if l.p.Clips < 2 {
		t.Fatalf("quick protocol: %d clips, want several to check that one is kept", l.p.Clips)
	}
	for name, s := range map[string]*scores{"computed": fresh, "cached": again, "first": first} {
		if s.Frames == nil || s.Frames.Batch() != 1 || s.Frames.Frames() != first.Frames.Frames() || !slices.Equal(s.Frames.Data, first.Frames.Data) {
			t.Errorf("%s rollout: frames %v, want the first clip only, the same for all", name, s.Frames.Shape)
		}
	}
	l.cfg.NoCache = false
	key := func(m method, seed uint64) string {
		k, ok := l.rolloutKey(m, m.Sampler, l.geometry(m.Depth), seed, false)
		if !ok {
			t.Fatal("not cacheable")
		}
		return k
	}
	base := key(m, 7)
	other := m
	other.Sampler.Options.Warp = warp(warpSD3)
	nag := m
	nag.Model, nag.Sampler.Sampler, nag.Sampler.Options.Momentum = "eqf", eqflib.NAG, 0.3
	nag2 := nag
	nag2.Sampler.Options.Momentum = 0.5
	deeper := m
	deeper.Sampler.Depth = 8
	for name, k := range map[string]string{"warp": key(other, 7), "seed": key(m, 8), "model": key(nag, 7), "momentum": key(nag2, 7), "depth": key(deeper, 7)} {
		if k == base {
			t.Errorf("a different %s gives the same key", name)
		}
	}
	if key(nag, 7) == key(nag2, 7) {
		t.Error("μ = 0.3 and 0.5 share a key")
	}
}

// With Config.CacheDir a rollout's scores reach the disk as they are computed: a new process (an
// empty in-process cache) reads them back instead of rolling out again, and gets the same
// numbers and strip; a damaged file or one written for another key is a miss, recomputed; a
// retrained model (another finish time on its card) is another key.
func TestRolloutCacheOnDisk(t *testing.T) {
	c, l, log, m, first, key, newProcess := rollFMEulerOnDisk(t)
	files, _ := filepath.Glob(filepath.Join(c.CacheDir, "*.gob"))
	if len(files) != 1 || files[0] != cachedPath(c.CacheDir, l.disk.exe, key) {
		t.Fatalf("cache files after one rollout: %v, want its key's %s alone", files, cachedPath(c.CacheDir, l.disk.exe, key))
	}
	newProcess()
	log.Reset()
	again, err := l.rollout(m, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "computed earlier") || again.FVD != first.FVD || again.Agreement != first.Agreement ||
		!reflect.DeepEqual(again.FVDOverTime, first.FVDOverTime) || !reflect.DeepEqual(again.Frames, firstClip(first.Frames)) {
		t.Errorf("the rollout was not read back from disk as it was computed (FVD %g then %g):\n%s", first.FVD, again.FVD, log.String())
	}
	for name, damage := range map[string]func() error{
		"truncated": func() error { return os.Truncate(files[0], 10) },
		"another key's": func() error { // a valid file of another key, moved over this key's
			if err := writeCached(l.disk, key+" (another)", first); err != nil {
				return err
			}
			return os.Rename(cachedPath(c.CacheDir, l.disk.exe, key+" (another)"), files[0])
		},
	} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		newProcess()
		log.Reset()
		fresh, err := l.rollout(m, 7)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log.String(), "computed earlier") || fresh.FVD != first.FVD {
			t.Errorf("%s file: read as a hit, or the recomputed FVD %g differs from %g:\n%s", name, fresh.FVD, first.FVD, log.String())
		}
	}
	card := *l.models["fm"].Card
	retrained := card
	retrained.Finished = card.Finished.Add(time.Second)
	if cardID(&card) == cardID(&retrained) {
		t.Error("a retrained model (another finish time) has the same cache identity")
	}
}

// Config.RolloutsOf reads another build's rollouts from CacheDir as this build's, and the
// protocol note counts them; without it another build's file is a miss. It needs CacheDir and
// a readable file.
func TestRolloutsOfAnotherBuild(t *testing.T) {
	c, l, log, m, first, key, newProcess := rollFMEulerOnDisk(t)
	// "Another build" wrote this rollout (marked: its FVD 1000 higher); this build's file is gone.
	other := filepath.Join(t.TempDir(), "eqf-other")
	if err := os.WriteFile(other, []byte("another eqf executable"), 0o755); err != nil {
		t.Fatal(err)
	}
	otherDigest, err := fileDigest(other)
	if err != nil {
		t.Fatal(err)
	}
	marked := *first
	marked.FVD += 1000
	if err := writeCached(disk{dir: c.CacheDir, exe: otherDigest}, key, &marked); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cachedPath(c.CacheDir, l.disk.exe, key)); err != nil {
		t.Fatal(err)
	}
	newProcess()
	log.Reset()
	if s, err := l.rollout(m, 7); err != nil || s.FVD != first.FVD || strings.Contains(log.String(), "computed earlier") {
		t.Errorf("without RolloutsOf another build's file was read (FVD %v, %v):\n%s", s.FVD, err, log.String())
	}
	if err := os.Remove(cachedPath(c.CacheDir, l.disk.exe, key)); err != nil { // computed again and saved: remove it again
		t.Fatal(err)
	}
	newProcess()
	c.RolloutsOf = []string{other}
	lo, log2, _, got := rollFMEuler(t, c, "fm")
	if got.FVD != marked.FVD || !strings.Contains(log2.String(), "computed earlier") || lo.borrowed != 1 || lo.rolled != 1 {
		t.Errorf("with RolloutsOf: FVD %g (want the other build's %g), borrowed %d of %d:\n%s", got.FVD, marked.FVD, lo.borrowed, lo.rolled, log2.String())
	}
	if note := lo.protocolNote(); !strings.Contains(note, "1 of the 1 rollouts' scores were read from the disk cache of other eqf builds (executable SHA-256 "+otherDigest[:16]) {
		t.Errorf("protocol note %q does not count the borrowed rollout", note)
	}
	for _, bad := range []Config{{Quick: true, Zoo: quickZoo, RolloutsOf: []string{other}}, {Quick: true, Zoo: quickZoo, CacheDir: c.CacheDir, RolloutsOf: []string{other, other + ".missing"}}} {
		if _, err := newSetup(context.Background(), bad, "fm"); err == nil || !strings.Contains(err.Error(), "Config.RolloutsOf") {
			t.Errorf("%+v: %v, want an error naming Config.RolloutsOf", bad, err)
		}
	}
}

// rollFMEulerOnDisk is rollFMEuler with its scores cached in a fresh folder (c.CacheDir) and a
// fresh in-process cache, which newProcess empties again (the shared one is restored when the
// test ends); key is the rollout's cache key.
func rollFMEulerOnDisk(t *testing.T) (c Config, l *setup, log *bytes.Buffer, m method, first *scores, key string, newProcess func()) {
	t.Helper()
	saved := rollouts
	t.Cleanup(func() { rollouts = saved })
	newProcess = func() { rollouts = &rolloutCache{entries: map[string]*scores{}} }
	newProcess()
	c = quick()
	c.CacheDir = t.TempDir()
	l, log, m, first = rollFMEuler(t, c, "fm")
	key, _ = l.rolloutKey(m, m.Sampler, l.geometry(m.Depth), 7, false)
	return c, l, log, m, first, key, newProcess
}

// rollFMEuler rolls FM Euler (c-function) out on the quick zoo's evaluation seed 7 with c, its
// progress lines in log.
func rollFMEuler(t *testing.T, c Config, models ...string) (l *setup, log *bytes.Buffer, m method, first *scores) {
	t.Helper()
	l, err := newSetup(context.Background(), c, models...)
	if err != nil {
		t.Fatal(err)
	}
	log = &bytes.Buffer{}
	l.cfg.Log = log
	m = method{Name: "FM Euler", Model: "fm", Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler, Options: eqflib.Options{Warp: warp(warpC)}}}
	if first, err = l.rollout(m, 7); err != nil {
		t.Fatal(err)
	}
	return l, log, m, first
}

// Replanning goes through the disk cache too: a planning_threshold run started again with the
// same executable and flags reads every replan back (the τ = 0 calibration included) and gives
// the same numbers.
func TestReplansResumeFromDisk(t *testing.T) {
	saved := rollouts
	t.Cleanup(func() { rollouts = saved })
	e, err := ByName("planning_threshold")
	if err != nil {
		t.Fatal(err)
	}
	c := quick()
	c.CacheDir = t.TempDir()
	var logs [2]bytes.Buffer
	var rs [2]*Result
	for i := range rs {
		rollouts = &rolloutCache{entries: map[string]*scores{}} // a new process
		c.Log = &logs[i]
		if rs[i], err = e.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(b *bytes.Buffer) (replans, earlier int) {
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.Contains(line, "τ=") && strings.Contains(line, "NFE/frame") {
				replans++
				if strings.Contains(line, "computed earlier") {
					earlier++
				}
			}
		}
		return
	}
	n0, earlier0 := lines(&logs[0])
	if n0 == 0 || earlier0 != 0 {
		t.Fatalf("first run: %d replans, %d read back, want some, none:\n%s", n0, earlier0, logs[0].String())
	}
	files, _ := filepath.Glob(filepath.Join(c.CacheDir, "*.gob"))
	if n, earlier := lines(&logs[1]); n != n0 || earlier != n {
		t.Errorf("second run: %d of %d replans read back, want all %d:\n%s", earlier, n, n0, logs[1].String())
	}
	if len(files) != n0 {
		t.Errorf("%d cache files after %d replans", len(files), n0)
	}
	if !reflect.DeepEqual(rs[0].Numbers, rs[1].Numbers) {
		t.Errorf("numbers differ when read back:\n%+v\n%+v", rs[0].Numbers, rs[1].Numbers)
	}
}
