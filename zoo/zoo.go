package zoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/gomlx/compute/dtypes"
)

// Spec is one model of the zoo.
type Spec struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`                // "dit", "gphi" or "action-net"
	Objective string `json:"objective,omitempty"` // the DiT's objective
	Readout   bool   `json:"readout,omitempty"`   // train h_ω on the backbone
	From      string `json:"from,omitempty"`      // equilibrium finetune from this zoo model (FM)
}

// Specs lists the zoo in build order (a model's dependencies come first).
var Specs = []Spec{
	{Name: "action-net", Kind: "action-net"},
	{Name: "eqf", Kind: "dit", Objective: "eqf", Readout: true},
	{Name: "fm", Kind: "dit", Objective: "fm"},
	{Name: "gphi", Kind: "gphi"},
	{Name: "eqm", Kind: "dit", Objective: "eqm", Readout: true},
	{Name: "diffusion", Kind: "dit", Objective: "diffusion"},
	{Name: "fm-eqf", Kind: "dit", Objective: "eqf", Readout: true, From: "fm"},
}

// Backbones are the zoo's DiTs, in build order: the models samplers roll out.
func Backbones() []string {
	var names []string
	for _, s := range Specs {
		if s.Kind == "dit" {
			names = append(names, s.Name)
		}
	}
	return names
}

// SpecByName returns a zoo model's spec.
func SpecByName(name string) (Spec, error) {
	var names []string
	for _, s := range Specs {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("zoo: model %q unknown: must be one of %s", name, strings.Join(names, ", "))
}

// Card summarises a trained model (card.json).
type Card struct {
	Name   string `json:"name"`
	Recipe string `json:"recipe"`
	Hash   string `json:"config_hash"`
	Steps  int    `json:"steps"`
	// TrainSeed is the training run (Recipe.TrainSeed; 0 for the shared action net).
	TrainSeed int `json:"train_seed,omitempty"`
	// Seconds is the wall-clock time that built it: a training stopped and resumed counts the
	// training of its earlier runs (as far as their last checkpoint) with the run that finished.
	Seconds  float64            `json:"wall_seconds"`
	Backend  string             `json:"backend"`
	Metrics  map[string]float64 `json:"metrics"`
	Finished time.Time          `json:"finished"`
}

// BestSampler is the card's sampler with the highest action agreement (its metric key without
// the "agreement_" prefix, e.g. "gd_open_w3") and that agreement; ok is false for a card
// without rollout scores (the action net, g_φ, a recipe without Eval).
func (c *Card) BestSampler() (key string, agreement float64, ok bool) {
	for k, v := range c.Metrics {
		name, found := strings.CutPrefix(k, "agreement_")
		if found && (!ok || v > agreement || v == agreement && name < key) {
			key, agreement, ok = name, v, true
		}
	}
	return key, agreement, ok
}

// Zoo is a folder of models trained with one recipe.
type Zoo struct {
	Dir    string
	Recipe Recipe
	Log    io.Writer // progress (nil: quiet)
	// Stop, when closed, ends a backbone's training after its current step with a checkpoint
	// (Build then returns eqflib.ErrStopped; building again resumes).
	Stop <-chan struct{}
	// NoWait makes Build fail at once (ErrLocked, naming the holder) when another process is
	// building a model it needs, instead of waiting for it (see lock.go).
	NoWait bool
}

// EnvZoo names the recipe Default uses (DefaultRecipe unless set, e.g. EQF_ZOO=quick).
const EnvZoo = "EQF_ZOO"

// DefaultRecipe is the zoo that `make models` builds, the paper's experiments read and Default
// opens: the paper recipe.
const DefaultRecipe = "paper"

// EnvRoot is the repository root the kernel sets for notebooks; zoo folders live under
// $EQF_ROOT/out. Without it the root is found by walking up to eqf's go.mod.
const EnvRoot = "EQF_ROOT"

// Open returns the zoo of a recipe in its default folder: <root>/out/models for DefaultRecipe,
// <root>/out/models-<name> for any other.
func Open(recipe string) (*Zoo, error) {
	r, err := RecipeByName(recipe)
	if err != nil {
		return nil, err
	}
	dir := "models"
	if recipe != DefaultRecipe {
		dir += "-" + recipe
	}
	return &Zoo{Dir: filepath.Join(root(), "out", dir), Recipe: r}, nil
}

// Default is the zoo of $EQF_ZOO (default DefaultRecipe).
func Default() (*Zoo, error) {
	name := os.Getenv(EnvZoo)
	if name == "" {
		name = DefaultRecipe
	}
	return Open(name)
}

// Root is the repository root that zoo folders (and other outputs) live under: $EQF_ROOT, or
// the nearest parent folder of the working directory holding eqf's go.mod, or the working
// directory.
func Root() string { return root() }

// root is $EQF_ROOT, or the nearest parent folder of the working directory holding eqf's
// go.mod, or the working directory.
func root() string {
	if r := os.Getenv(EnvRoot); r != "" {
		return r
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/equilibriumforcing/eqf\n") {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

func (z *Zoo) logf(format string, a ...any) {
	if z.Log != nil {
		fmt.Fprintf(z.Log, format, a...)
	}
}

// dir is a model's folder: <Dir>/<name> for the first training seed and the shared action net,
// <Dir>/seed-<k>/<name> for training seed k ≥ 2.
func (z *Zoo) dir(name string) string {
	if k := z.Recipe.trainSeed(); k > 1 && name != "action-net" {
		return filepath.Join(z.Dir, fmt.Sprintf("seed-%d", k), name)
	}
	return filepath.Join(z.Dir, name)
}

// WithTrainSeed is the same zoo's training run k (1: the first): its models live in
// <Dir>/seed-<k> from 2 on, and share the first run's action net.
func (z *Zoo) WithTrainSeed(k int) *Zoo {
	c := *z
	c.Recipe = z.Recipe.WithTrainSeed(k)
	return &c
}

// ModelDir is the folder of a model of this zoo's training run.
func (z *Zoo) ModelDir(name string) string { return z.dir(name) }

// TrainSeed is the zoo's training run (1 for the first).
func (z *Zoo) TrainSeed() int { return z.Recipe.trainSeed() }

// configHash is what a model's card must carry to count as trained with this recipe: a hash of
// the spec and of the recipe settings the model depends on (a longer backbone run does not
// retrain the action net), including those of the model it is finetuned from.
func (z *Zoo) configHash(s Spec) string { return hash(z.Recipe.settingsFor(s), s) }

// Card reads a model's card; an error if the model is not trained with this zoo's recipe.
func (z *Zoo) Card(name string) (*Card, error) {
	s, err := SpecByName(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(z.dir(name), "card.json"))
	if err != nil {
		return nil, z.missing(name)
	}
	var c Card
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("zoo: %s: card.json is not valid JSON (%v): rebuild with `make models`", z.dir(name), err)
	}
	if c.Hash != z.configHash(s) {
		return nil, notTrained(fmt.Sprintf("zoo: model %q in %s was trained with another configuration (hash %s, recipe %q has %s): run `%s` to retrain it",
			name, z.Dir, c.Hash, z.Recipe.Name, z.configHash(s), z.makeCommand()))
	}
	return &c, nil
}

func (z *Zoo) makeCommand() string {
	cmd := "make models"
	switch z.Recipe.Name {
	case "quick":
		cmd = "QUICK=1 make models"
	case DefaultRecipe:
	default:
		cmd += " ZOO_RECIPE=" + z.Recipe.Name
	}
	if k := z.TrainSeed(); k > 1 {
		cmd += fmt.Sprintf(" SEEDS=%d", k)
	}
	return cmd
}

func (z *Zoo) missing(name string) error {
	return notTrained(fmt.Sprintf("zoo: model %q is not trained in %s: run `%s` first", name, z.Dir, z.makeCommand()))
}

// ErrNotTrained is what errors.Is finds in the error of loading a model that is not trained in
// the zoo, or was trained with another configuration: `make models` (re)trains it.
var ErrNotTrained = errors.New("zoo: model not trained")

// notTrained is an error that says which model is missing and how to train it, and is
// ErrNotTrained.
type notTrained string

func (e notTrained) Error() string        { return string(e) }
func (e notTrained) Is(target error) bool { return target == ErrNotTrained }

// Model is a loaded zoo DiT: its EMA weights (with h_ω attached when trained), the data
// statistics it was trained on and its card.
type Model struct {
	Spec  Spec
	DiT   *eqflib.DiT
	Stats data.Stats
	Card  *Card
}

// LoadModel loads a DiT of the default zoo ($EQF_ZOO, DefaultRecipe unless set): the one-liner for
// notebooks and the REPL, e.g. m, err := zoo.LoadModel("eqf"); m.DiT is a Field for every
// sampler and rollout. A model that is not trained is an error naming `make models`.
func LoadModel(name string) (*Model, error) {
	z, err := Default()
	if err != nil {
		return nil, err
	}
	return z.Load(name)
}

// Load loads a DiT of the zoo (EMA weights, h_ω attached if it has one).
func (z *Zoo) Load(name string) (*Model, error) {
	s, err := SpecByName(name)
	if err != nil {
		return nil, err
	}
	if s.Kind != "dit" {
		return nil, fmt.Errorf("zoo: %q is a %s: use LoadActionNet or LoadGPhi", name, s.Kind)
	}
	card, err := z.Card(name)
	if err != nil {
		return nil, err
	}
	m, err := z.loadUnchecked(s)
	if err != nil {
		return nil, err
	}
	m.Card = card
	return m, nil
}

// loadUnchecked loads a DiT's newest checkpoint without looking at its card.
func (z *Zoo) loadUnchecked(s Spec) (*Model, error) {
	name := s.Name
	path := eqflib.LatestCheckpoint(z.dir(name))
	if path == "" {
		return nil, z.missing(name)
	}
	live, err := eqflib.LoadDiT(path)
	if err != nil {
		return nil, err
	}
	m, err := live.EMA()
	if err != nil {
		return nil, err
	}
	if s.Readout {
		if err := m.AttachReadout(0); err != nil {
			return nil, err
		}
	}
	st, err := data.LoadStats(filepath.Join(z.dir(name), "stats.json"))
	if err != nil {
		return nil, err
	}
	return &Model{Spec: s, DiT: m, Stats: st}, nil
}

// History is a trained DiT's loss history (history.json: training loss per step, validation
// loss where evaluated).
func (z *Zoo) History(name string) ([]eqflib.LossPoint, error) {
	if _, err := z.Card(name); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(z.dir(name), "history.json"))
	if err != nil {
		return nil, err
	}
	var h []eqflib.LossPoint
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("zoo: %s/history.json: %w", z.dir(name), err)
	}
	return h, nil
}

// LoadActionNet loads the zoo's action net (the maze-I3D feature network).
func (z *Zoo) LoadActionNet() (*eqflib.ActionNet, error) {
	if _, err := z.Card("action-net"); err != nil {
		return nil, err
	}
	return eqflib.LoadActionNet(filepath.Join(z.dir("action-net"), "action-net.eqf"))
}

// LoadGPhi loads the zoo's framewise noise-level predictor g_φ.
func (z *Zoo) LoadGPhi() (*eqflib.NoisePredictor, error) {
	if _, err := z.Card("gphi"); err != nil {
		return nil, err
	}
	return eqflib.LoadNoisePredictor(filepath.Join(z.dir("gphi"), "gphi.eqf"))
}

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
		want[n] = true
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
		if err = z.buildDiT(s, card); err == nil {
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

func (z *Zoo) buildActionNet(card *Card) error {
	r := z.Recipe
	train, val, err := data.NewWorldSplits(data.NewMaze(r.World), 8, r.Size, r.Size, 1_000_000, 256, r.Seed)
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
	acc, err := n.Accuracy(val, 128)
	if err != nil {
		return err
	}
	idx := make([]int, 128)
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
	return n.Save(filepath.Join(z.dir("action-net"), "action-net.eqf"))
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
	} else if m, err = eqflib.NewDiT(r.DiT, obj.NoiseConditional(), r.modelSeed(), dtypes.Float32); err != nil {
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
	if err := tr.Run(steps, eqflib.RunOptions{EvalEvery: max(steps/10, 1), Progress: z.Log, CheckpointDir: dir, Stop: z.Stop,
		CheckpointEvery: max(steps/10, 50), KeepCheckpoints: 2}); err != nil {
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

func writeHistory(dir, name string, h []eqflib.LossPoint) error {
	js, err := json.MarshalIndent(h, "", " ")
	if err != nil {
		return err
	}
	if err := data.WriteFileAtomic(filepath.Join(dir, "history.json"), js); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("step,loss,grad_norm,val_loss\n")
	for _, p := range h {
		fmt.Fprintf(&b, "%d,%g,%g,%g\n", p.Step, p.Loss, p.GradNorm, p.ValLoss)
	}
	if err := data.WriteFileAtomic(filepath.Join(dir, "history.csv"), []byte(b.String())); err != nil {
		return err
	}
	return plots.LossCurves(filepath.Join(dir, "loss.png"), []plots.Run{{Name: name, History: h}}, plots.LossOptions{Title: "zoo model " + name, LogScale: true})
}
