package zoo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
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

// SpecByName returns a zoo model's spec. Case does not matter ("EqF", as the paper writes it, is
// eqf): the spec's Name is the model's name.
func SpecByName(name string) (Spec, error) {
	var names []string
	for _, s := range Specs {
		if strings.EqualFold(strings.TrimSpace(name), s.Name) {
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
	// (Build then returns eqflib.ErrStopped; building again resumes), or, while Build waits for
	// another process's lock, ends the wait (ErrStoppedWaiting).
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
	rt, _ := root()
	return &Zoo{Dir: filepath.Join(rt, "out", dir), Recipe: r}, nil
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
func Root() string { r, _ := root(); return r }

// root is $EQF_ROOT, or the nearest parent folder of the working directory holding eqf's
// go.mod, or the working directory; found is false in the last case (no root was named or
// found, so a zoo there is most likely not the one the user trained).
func root() (dir string, found bool) {
	if r := os.Getenv(EnvRoot); r != "" {
		return r, true
	}
	wd, err := os.Getwd()
	if err != nil {
		return ".", false
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/equilibriumforcing/eqf\n") {
			return d, true
		}
		if filepath.Dir(d) == d {
			return wd, false
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
func (z *Zoo) ModelDir(name string) string {
	if s, err := SpecByName(name); err == nil {
		name = s.Name
	}
	return z.dir(name)
}

// TrainSeed is the zoo's training run (1 for the first).
func (z *Zoo) TrainSeed() int { return z.Recipe.trainSeed() }

// TrainSeedsFound are the training runs the zoo's folder holds something of, in order: 1 (whose
// models lie in Dir itself) and every k in [2, MaxTrainSeeds] with a folder <Dir>/seed-<k>,
// e.g. a seed trained alone with `eqf models -seed 3`.
func (z *Zoo) TrainSeedsFound() []int {
	seeds := []int{1}
	entries, _ := os.ReadDir(z.Dir) // a zoo not built yet holds no seed folder
	for _, e := range entries {
		var k int
		if _, err := fmt.Sscanf(e.Name(), "seed-%d", &k); err == nil && e.IsDir() && e.Name() == fmt.Sprintf("seed-%d", k) && k >= 2 && k <= MaxTrainSeeds {
			seeds = append(seeds, k)
		}
	}
	slices.Sort(seeds)
	return seeds
}

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
	if k := z.Recipe.TrainSeed; k < 0 || k > MaxTrainSeeds {
		return nil, fmt.Errorf("zoo: training seed %d (WithTrainSeed) out of range: must be in [1, %d]", k, MaxTrainSeeds)
	}
	name = s.Name
	c, err := z.readCard(s)
	var unread *fs.PathError
	switch {
	case errors.As(err, &unread): // no card (or none it can read)
		return nil, z.missing(name)
	case err != nil:
		return nil, fmt.Errorf("zoo: %s: card.json is not valid JSON (%v): rebuild with `make models`", z.dir(name), err)
	case c.Hash != z.configHash(s):
		return nil, notTrained(fmt.Sprintf("zoo: model %q in %s was trained with another configuration (hash %s, recipe %q has %s): run `%s` to retrain it",
			name, z.Dir, c.Hash, z.Recipe.Name, z.configHash(s), z.makeCommand()))
	}
	return c, nil
}

// readCard reads the card.json of model s of this zoo's training run, whatever its hash: a
// *fs.PathError where it cannot read the file, else a JSON error where the file is none.
func (z *Zoo) readCard(s Spec) (*Card, error) {
	b, err := os.ReadFile(filepath.Join(z.dir(s.Name), "card.json"))
	if err != nil {
		return nil, err
	}
	var c Card
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
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

// trainCommand is the command that trains (or resumes) model name of this zoo: `make models`
// for the first training seed, and for a later one `eqf models -seed K NAME`, which trains that
// model of that seed (and what it needs), with also saying that `make models SEEDS=K` trains
// every model of seeds 1…K.
func (z *Zoo) trainCommand(name string) (cmd, also string) {
	k := z.TrainSeed()
	if k <= 1 || name == "action-net" {
		return z.makeCommand(), ""
	}
	return z.modelsCommand("", name), fmt.Sprintf(" (`%s` trains every model of training seeds 1…%d)", z.makeCommand(), k)
}

// listCommand is the command that lists a model of this zoo and how far its training has got.
func (z *Zoo) listCommand(name string) string { return z.modelsCommand(" -list", name) }

// modelsCommand is `eqf models` with flags on model name of this zoo (its recipe and training
// seed).
func (z *Zoo) modelsCommand(flags, name string) string {
	cmd := "eqf models" + flags
	if z.Recipe.Name != DefaultRecipe {
		cmd += " -recipe " + z.Recipe.Name
	}
	if k := z.TrainSeed(); k > 1 {
		cmd += fmt.Sprintf(" -seed %d", k)
	}
	return cmd + " " + name
}

func (z *Zoo) missing(name string) error {
	run := ""
	if k := z.TrainSeed(); k > 1 && name != "action-net" {
		run = fmt.Sprintf(" of training seed %d", k)
	}
	where := fmt.Sprintf("zoo: model %q%s is not trained in %s", name, run, filepath.Dir(z.dir(name)))
	cmd, also := z.trainCommand(name)
	msg := fmt.Sprintf("%s: run `%s` first%s", where, cmd, also)
	// A backbone's training runs for hours: say when it is under way or stopped part-way.
	switch p, err := z.Progress(name); {
	case err != nil:
	case p.Holder != "":
		msg = fmt.Sprintf("%s yet: %s; wait for it to finish (`%s` shows how far it has got)", where, p, z.listCommand(name))
	case p.Checkpoint != "":
		msg = fmt.Sprintf("%s yet: stopped at %s (%s): run `%s` to resume it%s", where, p.at(), filepath.Base(p.Checkpoint), cmd, also)
	}
	if ks := z.trainedInOtherSeeds(name); len(ks) > 0 {
		seeds := fmt.Sprint(ks[0])
		for _, k := range ks[1:] {
			seeds += fmt.Sprintf(", %d", k)
		}
		msg += fmt.Sprintf("; trained in this zoo for training seed %s (`-train-seed %d`, `WithTrainSeed(%d)`)", seeds, ks[0], ks[0])
	}
	if _, found := root(); !found {
		msg += fmt.Sprintf(" (in the eqf repository; outside it, set %s to the folder whose out/ holds the zoo)", EnvRoot)
	}
	return notTrained(msg)
}

// trainedInOtherSeeds are the other training seeds in the zoo's folder whose model name is
// trained with this recipe (its card carries the configuration's hash), for the error that says
// it is not trained in this one.
func (z *Zoo) trainedInOtherSeeds(name string) []int {
	s, err := SpecByName(name)
	if err != nil || s.Kind == "action-net" { // one action net for all seeds
		return nil
	}
	var ks []int
	for _, k := range z.TrainSeedsFound() {
		if k == z.TrainSeed() {
			continue
		}
		other := z.WithTrainSeed(k)
		if c, err := other.readCard(s); err == nil && c.Hash == other.configHash(s) {
			ks = append(ks, k)
		}
	}
	return ks
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

// String says what the model is in one line, as the REPL and notebooks print it: "eqf of the
// paper zoo, training seed 1, 7000 steps (2026-11-27 02:38): DiT 32×32×3, …".
func (m *Model) String() string {
	if m == nil {
		return "<nil model>"
	}
	s := m.Spec.Name
	if c := m.Card; c != nil {
		s += fmt.Sprintf(" of the %s zoo", c.Recipe)
		if c.TrainSeed > 0 {
			s += fmt.Sprintf(", training seed %d", c.TrainSeed)
		}
		s += fmt.Sprintf(", %d steps", c.Steps)
		if !c.Finished.IsZero() {
			s += c.Finished.Format(" (2006-01-02 15:04)")
		}
	}
	return fmt.Sprintf("%s: %v", s, m.DiT)
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
	name = s.Name
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
	s, err := SpecByName(name)
	if err != nil {
		return nil, err
	}
	name = s.Name
	if _, err := z.Card(name); err != nil {
		return nil, err
	}
	return readHistory(z.dir(name))
}

// readHistory reads the history.json eqflib.SaveHistory wrote into dir.
func readHistory(dir string) ([]eqflib.LossPoint, error) {
	b, err := os.ReadFile(filepath.Join(dir, "history.json"))
	if err != nil {
		return nil, err
	}
	var h []eqflib.LossPoint
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("zoo: %s: %w", filepath.Join(dir, "history.json"), err)
	}
	return h, nil
}

// LoadActionNet loads the zoo's action net (the maze-I3D feature network).
func (z *Zoo) LoadActionNet() (*eqflib.ActionNet, error) {
	if _, err := z.Card("action-net"); err != nil {
		return nil, err
	}
	return eqflib.LoadActionNet(z.actionNetFile())
}

// actionNetFile is where the zoo keeps its action net's weights.
func (z *Zoo) actionNetFile() string { return filepath.Join(z.dir("action-net"), "action-net.eqf") }

// ActionNetDigest identifies the zoo's action net by its weights: the first 16 hex digits of the
// SHA-256 of its saved file. FVD is computed in the action net's features and action agreement
// judged by its classifier, so two results compare those numbers on one scale only when their
// action nets have the same digest. Training on the Go backend is deterministic (the same
// configuration gives the same file, byte for byte); XLA on a GPU does not reproduce the weights.
func (z *Zoo) ActionNetDigest() (string, error) {
	if _, err := z.Card("action-net"); err != nil {
		return "", err
	}
	b, err := os.ReadFile(z.actionNetFile())
	if err != nil {
		return "", fmt.Errorf("zoo: the action net's weights: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// LoadGPhi loads the zoo's framewise noise-level predictor g_φ.
func (z *Zoo) LoadGPhi() (*eqflib.NoisePredictor, error) {
	if _, err := z.Card("gphi"); err != nil {
		return nil, err
	}
	return eqflib.LoadNoisePredictor(filepath.Join(z.dir("gphi"), "gphi.eqf"))
}
