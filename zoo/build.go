package zoo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// Training the zoo: Build trains what a recipe lists and is not trained yet (dependencies
// first, interrupted backbones resumed from their checkpoints, one builder per model through
// lock.go), then evaluates each new backbone's samplers into its card (eval.go).

// Build trains every named model (all of Specs when names is empty) that is not trained yet
// with this recipe, dependencies first, resuming interrupted backbones from their checkpoints.
func (z *Zoo) Build(names ...string) error {
	if err := z.Recipe.Validate(); err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range names {
		s, err := SpecByName(n)
		if err != nil {
			return err
		}
		want[s.Name] = true
		if s.From != "" {
			want[s.From] = true
		}
	}
	for _, s := range Specs {
		if len(names) > 0 && !want[s.Name] {
			continue
		}
		if _, err := z.Card(s.Name); err == nil {
			z.logf("%-10s trained (card.json matches the %s recipe)\n", s.Name, z.Recipe.Name)
			continue
		}
		unlock, err := z.lockModel(s.Name)
		if err != nil {
			return fmt.Errorf("zoo: building %q: %w", s.Name, err)
		}
		if _, err := z.Card(s.Name); err == nil { // another process trained it while we waited
			unlock()
			z.logf("%-10s trained by the process we waited for\n", s.Name)
			continue
		}
		err = z.build(s)
		unlock()
		if err != nil {
			return fmt.Errorf("zoo: building %q: %w", s.Name, err)
		}
	}
	return nil
}

// holdsOtherConfiguration says whether s's folder was written with another configuration: its
// config.json is unreadable or carries another hash. Build moves such a folder aside instead of
// resuming from its checkpoints; a folder without config.json is resumed.
func (z *Zoo) holdsOtherConfiguration(s Spec) bool {
	b, err := os.ReadFile(filepath.Join(z.dir(s.Name), "config.json"))
	if err != nil {
		return false
	}
	var old struct {
		Hash string `json:"config_hash"`
	}
	return json.Unmarshal(b, &old) != nil || old.Hash != z.configHash(s)
}

func (z *Zoo) build(s Spec) error {
	dir := z.dir(s.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// A folder trained with another configuration is moved aside, never overwritten.
	h := z.configHash(s)
	cfgPath := filepath.Join(dir, "config.json")
	if z.holdsOtherConfiguration(s) {
		aside := fmt.Sprintf("%s.old-%s", dir, time.Now().Format("20060102-150405"))
		z.logf("%-10s %s holds another configuration: moved to %s\n", s.Name, dir, aside)
		if err := os.Rename(dir, aside); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	cfg, _ := json.MarshalIndent(map[string]any{"config_hash": h, "recipe": z.Recipe, "spec": s}, "", "  ")
	if err := data.WriteFileAtomic(cfgPath, cfg); err != nil {
		return err
	}
	start := time.Now()
	card := &Card{Name: s.Name, Recipe: z.Recipe.Name, Hash: h, Metrics: map[string]float64{}}
	if s.Kind != "action-net" {
		card.TrainSeed = z.TrainSeed()
	}
	if b, err := eqflib.Backend(); err == nil {
		card.Backend = b.Name()
	}
	var err error
	switch s.Kind {
	case "action-net":
		err = z.buildActionNet(card)
	case "gphi":
		err = z.buildGPhi(card)
	default:
		defer os.Remove(filepath.Join(dir, liveFile)) // what it said while training is over
		if err = z.buildDiT(s, card); err == nil {
			z.sayLive(s.Name, PhaseCard, card.Steps, 0, 0)
			err = z.evaluateCard(s, card)
		}
	}
	if err != nil {
		return err
	}
	elapsed, carried := time.Since(start), card.Seconds
	card.Seconds += elapsed.Seconds()
	card.Finished = time.Now().UTC()
	b, _ := json.MarshalIndent(card, "", "  ")
	took := trainingTime(elapsed.Seconds()).String()
	if carried > 0 {
		took += fmt.Sprintf(" (%s with the runs it resumed)", trainingTime(card.Seconds))
	}
	z.logf("%-10s done in %s: %s\n", s.Name, took, metricsLine(card.Metrics))
	return data.WriteFileAtomic(filepath.Join(dir, "card.json"), b)
}

func metricsLine(m map[string]float64) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %.4g", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// actionNetData are the action net's training and validation clips of the recipe's world.
func (r Recipe) actionNetData() (train, val eqflib.Dataset, err error) {
	return data.NewWorldSplits(data.NewMaze(r.World), 8, r.Size, r.Size, 1_000_000, 256, r.Seed)
}

// actionNetValClips are the validation clips the card's accuracy is measured on.
const actionNetValClips = 128

func (z *Zoo) buildActionNet(card *Card) error {
	r := z.Recipe
	train, val, err := r.actionNetData()
	if err != nil {
		return err
	}
	cfg := r.Train.ActionNet
	cfg.Seed = r.Seed
	n, err := eqflib.NewActionNet(3, r.Size, r.Size, 3, cfg, r.Seed)
	if err != nil {
		return err
	}
	if _, err := n.Train(train, r.ActionSteps); err != nil {
		return err
	}
	acc, err := n.Accuracy(val, actionNetValClips)
	if err != nil {
		return err
	}
	idx := make([]int, actionNetValClips)
	for i := range idx {
		idx[i] = i
	}
	x, cond, err := eqflib.LoadBatch(val, idx)
	if err != nil {
		return err
	}
	self, err := eqflib.ActionAgreement(n, x, cond, x, cond)
	if err != nil {
		return err
	}
	card.Steps = r.ActionSteps
	card.Metrics["val_accuracy"], card.Metrics["val_balanced_accuracy"] = acc, self.Real
	return n.Save(z.actionNetFile())
}

func (z *Zoo) buildGPhi(card *Card) error {
	r := z.Recipe
	train, val, err := r.Data()
	if err != nil {
		return err
	}
	g, err := eqflib.NewNoisePredictor(3, r.Size, r.Size, nil, r.GPhiConfig(), r.modelSeed())
	if err != nil {
		return err
	}
	if _, err := g.Train(train, r.GPhiSteps); err != nil {
		return err
	}
	mae, err := eqflib.SigmaMAE(val, 64, 99, func(x *eqflib.Window, _ []float64) ([]float64, error) { return g.EstimateSigma(x) })
	if err != nil {
		return err
	}
	card.Steps, card.Metrics["sigma_mae"] = r.GPhiSteps, mae
	return g.Save(filepath.Join(z.dir("gphi"), "gphi.eqf"))
}

func (z *Zoo) buildDiT(s Spec, card *Card) error {
	r := z.Recipe
	dir := z.dir(s.Name)
	train, val, err := r.Data()
	if err != nil {
		return err
	}
	if err := train.Stats.Save(filepath.Join(dir, "stats.json")); err != nil {
		return err
	}
	obj, err := eqflib.ParseObjective(s.Objective)
	if err != nil {
		return err
	}
	steps := r.stepsFor(s)
	var m *eqflib.DiT
	if s.From != "" {
		from := eqflib.LatestCheckpoint(z.dir(s.From))
		if from == "" {
			return z.missing(s.From)
		}
		if m, err = eqflib.EquilibriumFinetune(from); err != nil {
			return err
		}
	} else if m, err = eqflib.NewDiT(r.DiT, obj.NoiseConditional(), r.modelSeed(), eqflib.DefaultDType); err != nil {
		return err
	}
	tr, err := eqflib.NewTrainer(m, train, val, r.TrainConfig(obj, steps))
	if err != nil {
		return err
	}
	if last := eqflib.LatestCheckpoint(dir); last != "" {
		if err := tr.RestoreCheckpoint(last); err != nil {
			return fmt.Errorf("resuming from %s: %w", last, err)
		}
		z.logf("%-10s resumed from %s at step %d\n", s.Name, filepath.Base(last), tr.Step)
		card.Seconds = tr.Seconds // the runs before this one trained that long; build adds this one
	}
	z.logf("%-10s %s on %s %d×%d, %d parameters, %d steps\n", s.Name, obj.Kind, r.World.Policy+" maze", r.Size, r.Size, r.DiT.NumParams(), steps)
	var said time.Time // the last progress.json
	var pace stepRate
	sayStep := func(step int, seconds float64) { // progress.json every liveEvery and at the end
		if now := time.Now(); now.Sub(said) >= liveEvery || step == steps {
			said = now
			z.sayLive(s.Name, PhaseBackbone, step, seconds, pace.add(now, step))
		}
	}
	if err := tr.Run(steps, eqflib.RunOptions{EvalEvery: max(steps/10, 1), Progress: z.Log, CheckpointDir: dir, Stop: z.Stop,
		CheckpointEvery: max(steps/10, 50), CheckpointAfter: checkpointAfter, KeepCheckpoints: 2, AfterStep: sayStep}); err != nil {
		return err
	}
	if err := writeHistory(dir, s.Name, tr.History); err != nil {
		return err
	}
	card.Steps = tr.Step
	card.Metrics["final_loss"] = MeanTail(tr.History, 50)
	if vl, err := tr.ValLoss(8, true); err == nil {
		card.Metrics["val_loss_ema"] = vl
	}
	if !s.Readout {
		return nil
	}
	z.sayLive(s.Name, PhaseReadout, tr.Step, tr.Seconds, 0)
	rt, err := eqflib.NewReadoutTrainer(m, train, r.readoutConfig())
	if err != nil {
		return err
	}
	if _, err := rt.Train(r.ReadoutSteps); err != nil {
		return err
	}
	if _, err := tr.SaveCheckpoint(dir, 2); err != nil { // the readout's variables join the checkpoint
		return err
	}
	ema, err := m.EMA()
	if err != nil {
		return err
	}
	if err := ema.AttachReadout(r.Train.Readout.Proj); err != nil {
		return err
	}
	mae, err := eqflib.SigmaMAE(val, 64, 99, func(x *eqflib.Window, cond []float64) ([]float64, error) {
		out, err := ema.WithConditions(cond).Eval(x, nil, eqflib.EvalOptions{Readout: true})
		if err != nil {
			return nil, err
		}
		return out.SigmaHat, nil
	})
	if err != nil {
		return err
	}
	card.Metrics["readout_sigma_mae"] = mae
	return nil
}

// evaluateCard rolls a freshly trained DiT out with each of its samplers (Samplers) over the
// validation clips and records the scores in its card, with a strip of the first rollout.
func (z *Zoo) evaluateCard(s Spec, card *Card) error {
	if z.Recipe.Eval.Clips == 0 {
		return nil // this recipe records no rollout evaluation
	}
	if _, err := z.Card("action-net"); err != nil {
		return nil // no action net in this zoo (e.g. a partial build): the card goes without
	}
	net, err := z.LoadActionNet()
	if err != nil {
		return err
	}
	m, err := z.loadUnchecked(s)
	if err != nil {
		return err
	}
	for _, es := range Samplers(m, z.Recipe.Eval.Guidance) {
		fs := es.Sampler
		ec := z.Recipe.Eval
		ec.Sampler, ec.Name, ec.Guidance = &fs, es.Name, es.Guidance
		q, err := z.Evaluate(m, net, ec)
		if err != nil {
			return err
		}
		z.logf("%-10s %s\n", s.Name, q)
		card.Metrics["agreement_"+es.Key] = q.Agreement.Ratio
		card.Metrics["drift_ratio_"+es.Key] = q.DriftRatio
		card.Metrics["next_chunk_psnr_"+es.Key] = q.NextChunk.PSNR
		card.Metrics["fvd_"+es.Key] = q.FVD
		vo := plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std, Scale: 2, Every: 4}
		first := func(x *eqflib.Window) *eqflib.Window {
			return &eqflib.Window{Shape: [5]int{1, x.Shape[1], x.Shape[2], x.Shape[3], x.Shape[4]}, Data: x.Data[:x.Frames()*x.FrameSize()]}
		}
		if err := plots.Strip(filepath.Join(z.dir(s.Name), "rollout-"+es.Key+".png"),
			[]plots.Video{{Name: "truth", Frames: first(q.Truth)}, {Name: stripLabel(es), Frames: first(q.Rollout)}}, vo); err != nil {
			return err
		}
	}
	return nil
}

// stripLabel names a card sampler in the ≤ 16 characters a strip's row label shows, e.g.
// "nag closed w=3" (the full name, "NAG μ=0.3 closed loop, guidance 3", would be cut).
func stripLabel(es EvalSampler) string {
	l := strings.ReplaceAll(es.Key, "_", " ")
	if es.Guidance > 0 {
		l = strings.TrimSuffix(l, fmt.Sprintf(" w%g", es.Guidance)) + fmt.Sprintf(" w=%g", es.Guidance)
	}
	return l
}

// MeanTail is the mean training loss of a history's last n steps (a card's final_loss).
func MeanTail(h []eqflib.LossPoint, n int) float64 {
	n = min(n, len(h))
	var s float64
	for _, p := range h[len(h)-n:] {
		s += p.Loss / float64(n)
	}
	return s
}

// writeHistory saves a zoo model's loss history (eqflib.SaveHistory) and draws it as loss.png.
func writeHistory(dir, name string, h []eqflib.LossPoint) error {
	if err := eqflib.SaveHistory(dir, h); err != nil {
		return err
	}
	return plots.LossCurves(filepath.Join(dir, "loss.png"), []plots.Run{{Name: name, History: h}}, plots.LossOptions{Title: "zoo model " + name, LogScale: true})
}
