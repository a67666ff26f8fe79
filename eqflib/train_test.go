package eqflib_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/gomlx/compute/dtypes"
)

func tinyMaze(t testing.TB, frames int) (train, val *data.WorldDataset) {
	return tinyWorld(t, data.DefaultMazeConfig(), frames)
}

func tinyWorld(t testing.TB, cfg data.MazeConfig, frames int) (train, val *data.WorldDataset) {
	t.Helper()
	train, val, err := data.NewWorldSplits(data.NewMaze(cfg), frames, 16, 16, 256, 32, 1)
	if err != nil {
		t.Fatal(err)
	}
	return train, val
}

func TestTrainSmoke(t *testing.T) {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	m, err := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch, cfg.LR, cfg.Warmup, cfg.EMADecay = 4, 2e-3, 10, 0.9
	tr, err := eqflib.NewTrainer(m, train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := 0; i < 30; i++ {
		l, err := tr.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 || i == 29 {
			t.Logf("step %d loss %.4f grad norm %.3f", tr.Step, l, tr.History[len(tr.History)-1].GradNorm)
		}
	}
	t.Logf("%.1f ms/step", float64(time.Since(start).Milliseconds())/30)
	x, cond, _ := eqflib.LoadBatch(train, []int{0})
	eps, _ := eqflib.Randn(eqflib.NewRNG(1), 1, 4, 3, 16, 16)
	if _, err := tr.TrainStepOn(x, eps, make([]float64, 4), nil, cond[:5]); err == nil || !strings.Contains(err.Error(), "cond") {
		t.Errorf("conditions of the wrong length: %v", err)
	}
	vl, err := tr.ValLoss(2, true)
	vlive, _ := tr.ValLoss(2, false)
	t.Logf("val loss EMA %.4f live %.4f (%v)", vl, vlive, err)
}

// A tiny model overfits one fixed batch (x, ε, levels) with every objective.
func TestOverfitFixedBatch(t *testing.T) {
	train, _ := tinyMaze(t, 4)
	x, cond, err := eqflib.LoadBatch(train, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := eqflib.NewRNG(3)
	eps, _ := eqflib.Randn(rng, 2, 4, 3, 16, 16)
	for _, name := range []string{"eqf", "fm", "eqm", "nufm", "diffusion"} {
		obj, _ := eqflib.ParseObjective(name)
		level, _ := obj.SampleLevels(rng, 2, 4)
		m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], obj.NoiseConditional(), 1, dtypes.Float32)
		cfg := eqflib.DefaultTrainConfig(obj)
		cfg.Batch, cfg.LR, cfg.Warmup, cfg.WeightDecay = 2, 3e-3, 1, 0
		tr, err := eqflib.NewTrainer(m, train, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var first, last float64
		for i := 0; i < 200; i++ {
			l, err := tr.TrainStepOn(x, eps, level, nil, cond)
			if err != nil {
				t.Fatal(name, err)
			}
			if i == 0 {
				first = l
			}
			last = l
		}
		t.Logf("%-9s loss %.4f → %.5f (%.0f×)", name, first, last, first/last)
		if first/last < 10 {
			t.Errorf("%s: loss fell only %.1f× (%.4f → %.4f)", name, first/last, first, last)
		}
	}
}

// Training 6 steps straight equals 3 steps, a checkpoint, a fresh trainer restored from it and
// 3 more steps: the loss history continues exactly.
func TestResumeIsExact(t *testing.T) {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch, cfg.LR, cfg.Warmup, cfg.Seed = 2, 1e-3, 2, 7
	newTrainer := func() *eqflib.Trainer {
		m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
		tr, err := eqflib.NewTrainer(m, train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	straight := newTrainer()
	if err := straight.Run(6, eqflib.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := newTrainer()
	if err := first.Run(3, eqflib.RunOptions{CheckpointDir: dir, CheckpointEvery: 1, KeepCheckpoints: 2}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.eqf"))
	if len(files) != 2 {
		t.Errorf("kept %d checkpoints, want 2: %v", len(files), files)
	}
	resumed := newTrainer()
	if err := resumed.RestoreCheckpoint(eqflib.LatestCheckpoint(dir)); err != nil {
		t.Fatal(err)
	}
	if resumed.Step != 3 {
		t.Fatalf("resumed at step %d", resumed.Step)
	}
	// The training time travels with the checkpoint and grows with the steps run after it.
	carried := resumed.Seconds
	if carried <= 0 || carried > first.Seconds {
		t.Errorf("restored training time %g s, want in (0, %g] (the first run's)", carried, first.Seconds)
	}
	if err := resumed.Run(6, eqflib.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if resumed.Seconds <= carried {
		t.Errorf("training time %g s after 3 more steps, want more than the %g s restored", resumed.Seconds, carried)
	}
	for i, p := range straight.History {
		if math.Abs(p.Loss-resumed.History[i].Loss) > 1e-6*math.Abs(p.Loss) {
			t.Errorf("step %d: loss %.8f straight, %.8f resumed", p.Step, p.Loss, resumed.History[i].Loss)
		}
	}
	a, _ := straight.ValLoss(1, true)
	b, _ := resumed.ValLoss(1, true)
	if math.Abs(a-b) > 1e-6*math.Abs(a) {
		t.Errorf("EMA validation loss %.8f straight, %.8f resumed", a, b)
	}
	// The saved model loads for sampling.
	d, err := eqflib.LoadDiT(eqflib.LatestCheckpoint(dir))
	if err != nil || d.NumParams() != eqflib.DiTPresets["tiny"].NumParams() {
		t.Errorf("LoadDiT: %v", err)
	}
}

// LoadEMA attaches h_ω when the checkpoint holds one, whether or not it is asked for; asked for
// from a checkpoint without one, it is an error.
func TestLoadEMAReadout(t *testing.T) {
	tr := tinyEqFTrainers(t)()
	tr.TrainStep()
	dir := t.TempDir()
	if _, err := tr.SaveCheckpoint(dir, 3); err != nil {
		t.Fatal(err)
	}
	if ema, _, err := eqflib.LoadEMA(dir, false); err != nil || ema.HasReadout() {
		t.Errorf("without h_ω: %v, readout attached %v", err, err == nil && ema.HasReadout())
	}
	if _, _, err := eqflib.LoadEMA(dir, true); err == nil || !strings.Contains(err.Error(), "closed-loop sampling needs h_ω") {
		t.Errorf("h_ω asked of a checkpoint without one: %v", err)
	}
	pc := eqflib.DefaultProbeConfig()
	pc.Batch = 2
	rt, err := eqflib.NewReadoutTrainer(tr.Model, tr.Train, pc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Train(1); err != nil {
		t.Fatal(err)
	}
	tr.TrainStep() // a newer checkpoint, holding h_ω
	if _, err := tr.SaveCheckpoint(dir, 3); err != nil {
		t.Fatal(err)
	}
	for _, readout := range []bool{false, true} {
		if ema, _, err := eqflib.LoadEMA(dir, readout); err != nil || !ema.HasReadout() {
			t.Errorf("LoadEMA(readout %v) of a checkpoint with h_ω: %v, attached %v", readout, err, err == nil && ema.HasReadout())
		}
	}
}

func TestCorruptCheckpointIsRefused(t *testing.T) {
	train, _ := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.FM)
	m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], true, 1, dtypes.Float32)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch = 2
	tr, _ := eqflib.NewTrainer(m, train, nil, cfg)
	tr.TrainStep()
	dir := t.TempDir()
	path, err := tr.SaveCheckpoint(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"truncated": raw[:len(raw)/2],
		"flipped":   append(append(append([]byte(nil), raw[:len(raw)/3]...), raw[len(raw)/3]^0xff), raw[len(raw)/3+1:]...),
		"empty":     {},
	} {
		p := filepath.Join(dir, name+".eqf")
		os.WriteFile(p, bad, 0o644)
		err := tr.RestoreCheckpoint(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "corrupt or truncated") {
			t.Errorf("%s checkpoint: %v", name, err)
		}
		if _, err := eqflib.LoadDiT(p); err == nil {
			t.Errorf("%s checkpoint loaded by LoadDiT", name)
		}
	}
	if tr.Step != 1 {
		t.Errorf("a refused checkpoint changed the trainer (step %d)", tr.Step)
	}
}

// EqF and FM trained alike reach validation v-losses within 10% of each other; equilibrium
// finetuning of the FM checkpoint starts from its EMA weights and lowers the EqF loss.
func TestEqFMatchesFMAndFinetunes(t *testing.T) {
	train, val := tinyMaze(t, 4)
	const steps = 300
	trainObj := func(kind eqflib.ObjectiveKind, dir string) *eqflib.Trainer {
		obj, _ := eqflib.NewObjective(kind)
		m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], obj.NoiseConditional(), 1, dtypes.Float32)
		cfg := eqflib.DefaultTrainConfig(obj)
		cfg.Batch, cfg.LR, cfg.Warmup, cfg.EMADecay, cfg.Seed = 8, 2e-3, 20, 0.98, 5
		tr, err := eqflib.NewTrainer(m, train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Run(steps, eqflib.RunOptions{CheckpointDir: dir}); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	fmDir := t.TempDir()
	fm := trainObj(eqflib.FM, fmDir)
	eqf := trainObj(eqflib.EqF, "")
	lf, _ := fm.ValLoss(8, true)
	le, _ := eqf.ValLoss(8, true)
	t.Logf("validation v-loss after %d steps: FM %.4f, EqF %.4f (ratio %.3f)", steps, lf, le, le/lf)
	if math.Abs(le/lf-1) > 0.10 {
		t.Errorf("EqF %.4f and FM %.4f validation losses differ by more than 10%%", le, lf)
	}

	d, err := eqflib.EquilibriumFinetune(eqflib.LatestCheckpoint(fmDir))
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch, cfg.LR, cfg.Warmup, cfg.EMADecay, cfg.Seed = 8, 1e-3, 10, 0.9, 6
	ft, err := eqflib.NewTrainer(d, train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := ft.ValLoss(8, false)
	if err := ft.Run(100, eqflib.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	after, _ := ft.ValLoss(8, false)
	t.Logf("equilibrium finetuning: EqF validation loss %.4f at the FM EMA weights with σ input off, %.4f after 100 steps", before, after)
	if !(after < before) {
		t.Errorf("finetuning did not lower the EqF loss: %.4f → %.4f", before, after)
	}
	if _, err := eqflib.EquilibriumFinetune(filepath.Join(fmDir, "missing.eqf")); err == nil {
		t.Error("a missing checkpoint was accepted")
	}
}

// Closing RunOptions.Stop ends Run after the current step with a checkpoint of that step, and
// Run says so with ErrStopped; resuming from it continues the same history.
func TestRunStop(t *testing.T) {
	t.Setenv("EQF_PROGRESS", "live") // a progress write every step: stopAfter counts them
	newTrainer := tinyEqFTrainers(t)
	tr := newTrainer()
	dir := t.TempDir()
	stop := make(chan struct{})
	var progress stopAfter
	progress.n, progress.stop = 3, stop
	var after []int // AfterStep's steps
	var clock []float64
	err := tr.Run(1000, eqflib.RunOptions{Progress: &progress, CheckpointDir: dir, CheckpointEvery: 100, Stop: stop,
		AfterStep: func(step int, seconds float64) { after, clock = append(after, step), append(clock, seconds) }})
	if err != eqflib.ErrStopped {
		t.Fatalf("Run returned %v, want ErrStopped", err)
	}
	if tr.Step < 3 || tr.Step > 4 {
		t.Fatalf("stopped at step %d, want right after step 3", tr.Step)
	}
	// AfterStep saw every step in order, with a training time that grows to the checkpoint's.
	if len(after) != tr.Step || after[0] != 1 || after[len(after)-1] != tr.Step || !slices.IsSorted(after) ||
		!slices.IsSorted(clock) || clock[0] <= 0 || clock[len(clock)-1] > tr.Seconds {
		t.Errorf("AfterStep saw steps %v at %v s; want 1…%d, growing, the last at most the checkpoint's %g s", after, clock, tr.Step, tr.Seconds)
	}
	last := eqflib.LatestCheckpoint(dir)
	if want := filepath.Join(dir, fmt.Sprintf(eqflib.CheckpointPattern, tr.Step)); last != want {
		t.Fatalf("latest checkpoint %q, want %q", last, want)
	}
	again := newTrainer()
	if err := again.RestoreCheckpoint(last); err != nil {
		t.Fatal(err)
	}
	if again.Step != tr.Step || len(again.History) != tr.Step {
		t.Errorf("resumed at step %d with %d history points, want %d", again.Step, len(again.History), tr.Step)
	}
}

// tinyEqFTrainers makes trainers of one tiny EqF DiT on tinyMaze (the quick preset, batch 2):
// each call a fresh trainer of the same model.
func tinyEqFTrainers(t *testing.T) func() *eqflib.Trainer {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	m, err := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
	if err != nil {
		t.Fatal(err)
	}
	cfg := eqflib.TrainPresets["quick"].Config(obj, 0)
	cfg.Batch = 2
	return func() *eqflib.Trainer {
		tr, err := eqflib.NewTrainer(m, train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
}

// CheckpointAfter saves a checkpoint once that much wall time has passed since the last one, on
// top of CheckpointEvery's, and not before.
func TestRunCheckpointAfter(t *testing.T) {
	newTrainer := tinyEqFTrainers(t)
	checkpoints := func(o eqflib.RunOptions) (steps []int) { // 5 steps; the steps that saved one
		o.CheckpointDir, o.KeepCheckpoints = t.TempDir(), 10
		if err := newTrainer().Run(5, o); err != nil {
			t.Fatal(err)
		}
		for step := 1; step <= 5; step++ {
			if _, err := os.Stat(filepath.Join(o.CheckpointDir, fmt.Sprintf(eqflib.CheckpointPattern, step))); err == nil {
				steps = append(steps, step)
			}
		}
		return steps
	}
	for _, c := range []struct {
		after time.Duration
		want  []int // the checkpoints' steps
	}{
		{0, []int{2, 4, 5}},                     // every 2nd step and the last
		{time.Hour, []int{2, 4, 5}},             // an hour never passes here
		{time.Nanosecond, []int{1, 2, 3, 4, 5}}, // after every step
	} {
		if got := checkpoints(eqflib.RunOptions{CheckpointEvery: 2, CheckpointAfter: c.after}); !slices.Equal(got, c.want) {
			t.Errorf("CheckpointAfter %v: checkpoints at steps %v, want %v", c.after, got, c.want)
		}
	}
	// The wall time counts from the last checkpoint: after a 1.2 s pause at step 2, step 3 saves
	// one and step 4, a tiny step later, does not.
	pause := func(step int, _ float64) {
		if step == 2 {
			time.Sleep(1200 * time.Millisecond)
		}
	}
	got := checkpoints(eqflib.RunOptions{CheckpointAfter: time.Second, AfterStep: pause})
	for step, want := range map[int]bool{3: true, 4: false, 5: true} {
		if slices.Contains(got, step) != want {
			t.Errorf("after a pause at step 2: checkpoints at steps %v; one at step %d should be %v", got, step, want)
		}
	}
}

// stopAfter closes stop once n progress lines have been written.
type stopAfter struct {
	n, seen int
	stop    chan struct{}
}

func (s *stopAfter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "loss") {
		s.seen++
		if s.seen == s.n {
			close(s.stop)
		}
	}
	return len(p), nil
}

// poisonedDataset serves its windows unchanged until `after` windows were read, then frames of
// 1e30 (their squares overflow float32): the loss turns infinite mid-run.
type poisonedDataset struct {
	eqflib.Dataset
	after, read int
}

func (p *poisonedDataset) Window(i int, pixels, cond []float64) error {
	if err := p.Dataset.Window(i, pixels, cond); err != nil {
		return err
	}
	if p.read++; p.read > p.after {
		for j := range pixels {
			pixels[j] = 1e30
		}
	}
	return nil
}

// A loss that turns non-finite stops training with an error naming the step, and the newest
// checkpoint on disk stays the last good one (it loads, and is from before that step).
func TestTrainStopsOnNonFiniteLoss(t *testing.T) {
	train, val := tinyMaze(t, 4)
	obj, _ := eqflib.NewObjective(eqflib.EqF)
	m, _ := eqflib.NewDiT(eqflib.DiTPresets["tiny"], false, 1, dtypes.Float32)
	cfg := eqflib.DefaultTrainConfig(obj)
	cfg.Batch = 2
	tr, err := eqflib.NewTrainer(m, &poisonedDataset{Dataset: train, after: 2 * 5}, val, cfg) // steps 1–5 are clean
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = tr.Run(20, eqflib.RunOptions{CheckpointDir: dir, CheckpointEvery: 2})
	if err == nil || !strings.Contains(err.Error(), "step 6") {
		t.Fatalf("Run: %v, want an error naming step 6", err)
	}
	last := eqflib.LatestCheckpoint(dir)
	info, err := eqflib.CheckpointInfo(last)
	if err != nil || info.Step != 4 {
		t.Fatalf("latest checkpoint %s: step %d, %v; want the step-4 one", last, info.Step, err)
	}
	if _, err := eqflib.LoadDiT(last); err != nil {
		t.Fatalf("the last good checkpoint does not load: %v", err)
	}
}
