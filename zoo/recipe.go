// Package zoo trains, caches and loads the models that experiments and notebooks start from:
// on the maze world, the backbones of the paper's objectives (FM, EqF — also used as NU-FM —,
// EqM, Diffusion), the readout h_ω on the EqF and EqM backbones, the framewise predictor g_φ,
// the FM → EqF equilibrium finetune (App. E) and the action net whose features are "maze-I3D".
// A zoo is a folder (out/models for the paper recipe, out/models-<recipe> for others) with one sub-folder
// per model: its checkpoints, config.json, history, loss figure and card.json. Building skips
// a model whose card matches its configuration and resumes one that was interrupted; loading
// takes well under a second.
package zoo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// Recipe is how a zoo's models are trained: the world, the backbone, the optimiser and the
// budget of every model. The paper's own settings (App. D, Table training_details: 580k steps
// on an H200) are far beyond a laptop; the "paper" recipe scales them to 7,000 steps on the
// maze (eqflib.ScalePaperPreset), and the "cpu" recipe is what we found makes guided rollouts
// follow the actions best on two cores (docs/zoo.md has the table of what was tried).
type Recipe struct {
	Name   string          `json:"name"`
	World  data.MazeConfig `json:"world"`
	Size   int             `json:"size"`   // frame side in pixels
	Frames int             `json:"frames"` // frames per training window, T
	// Context is the clean context of a rollout window (C); its horizon is Frames − Context.
	Context int              `json:"context"`
	DiT     eqflib.DiTConfig `json:"dit"`

	// Train is the optimiser, schedule, EMA and noise strategy: a named eqflib training preset.
	Train    eqflib.TrainPreset `json:"train"`
	Steps    int                `json:"steps"`          // backbone steps
	Finetune int                `json:"finetune_steps"` // FM → EqF equilibrium finetune steps

	ReadoutSteps int `json:"readout_steps"` // h_ω
	GPhiSteps    int `json:"gphi_steps"`
	ActionSteps  int `json:"action_steps"` // the action net
	// Seed draws the data (training and validation worlds) and the action net, which every
	// training seed shares (the features its metrics are computed in).
	Seed uint64 `json:"seed"`
	// TrainSeed numbers an independent training run of every model but the action net:
	// another initialisation and other batches on the same data (0 and 1: the first run).
	// WithTrainSeed sets it; it is part of each model's hash from 2 on.
	TrainSeed int `json:"train_seed,omitempty"`
	// Eval is the rollout evaluation every DiT's card records (zero Clips: none). Each of the
	// model's samplers (Samplers) is scored without guidance and, when Eval.Guidance > 0, again
	// with classifier-free guidance of that weight.
	Eval EvalConfig `json:"eval"`
}

// Recipes are the named recipes: "paper" (the zoo the paper's experiments read, about half an
// hour per training seed on two cores), "paper-8" (the same on 8-frame windows, C = H = 4),
// "paper-3.5k", "paper-14k" and "paper-70k" (its backbones trained half, twice and 10× as
// long), "cpu"
// (the same backbone trained for guided rollouts), "demo" (make demo: the cpu recipe's backbone
// with overlapping patches, the "cpu" training preset with its EMA decay 0.999 and condition
// dropout 0.1, so that the demo's rollouts can be guided, for 3,000 steps) and "quick" (tiny
// models in minutes, for tests and CI).
//
// The paper recipe follows the paper's Minecraft training wherever it scales to the maze
// (eqflib.ScalePaperPreset: no condition dropout, independent per-frame levels, the paper's
// optimiser, warm-up and EMA horizon as shares of the run) and samples without guidance, as
// the paper does.
//
// The cpu recipe trains every backbone with the actions dropped from a tenth of the windows
// ("cpu-guided" preset), so that its models can be sampled with classifier-free guidance on the
// actions (eqflib.Guide); its cards score each sampler without guidance and with w = 3. With
// guidance EqF and FM follow the actions far better over 100 frames (docs/zoo.md has the
// agreements); the paper's experiments compare their samplers without guidance, as the paper
// does.
var Recipes = map[string]Recipe{
	"paper": paperRecipe,
	// paper-8: the paper recipe on 8-frame windows, C = H = 4, for the paper's rolling staircase
	// with a deeper horizon (S = 1 keeps four frames at four levels; D a multiple of 4).
	"paper-8": {
		Name: "paper-8", World: data.DefaultMazeConfig(), Size: 32, Frames: 8, Context: 4, DiT: cpuDiT,
		Train: eqflib.TrainPresets["paper-maze"], Steps: eqflib.PaperMazeSteps, Finetune: 500,
		ReadoutSteps: 600, GPhiSteps: 800, ActionSteps: 600, Seed: 1, Eval: EvalConfig{Clips: 8, Frames: 100},
	},
	// paper-3.5k, paper-14k and paper-70k: the paper recipe's backbones trained for half, twice
	// and 10× its 7,000 steps, warm-up and EMA horizon scaled with the run
	// (eqflib.ScalePaperPreset), everything else the paper recipe's (its action net and g_φ are
	// the same models): does the methods' ranking move with training length? Two cores train
	// 3,500 steps in minutes and 14,000 in about 40 minutes per training seed (FM and EqF);
	// 70k steps are for a GPU (docs/gpu.md).
	"paper-3.5k": paperSteps("paper-3.5k", eqflib.PaperMazeSteps/2),
	"paper-14k":  paperSteps("paper-14k", 2*eqflib.PaperMazeSteps),
	"paper-70k":  paperSteps("paper-70k", 10*eqflib.PaperMazeSteps),
	"cpu": {
		Name: "cpu", World: data.DefaultMazeConfig(), Size: 32, Frames: 4, Context: 2, DiT: cpuDiT,
		Train: eqflib.TrainPresets["cpu-guided"], Steps: 7000, Finetune: 500,
		ReadoutSteps: 600, GPhiSteps: 800, ActionSteps: 600, Seed: 1, Eval: EvalConfig{Clips: 8, Frames: 100, Guidance: 3},
	},
	"demo": { // make demo: the CPU recipe on a ten-minute budget (compile included)
		Name: "demo", World: data.DefaultMazeConfig(), Size: 32, Frames: 4, Context: 2, DiT: demoDiT,
		Train: withCondDropout(eqflib.TrainPresets["cpu"], 0.1), Steps: 3000, Finetune: 200,
		ReadoutSteps: 300, GPhiSteps: 300, ActionSteps: 250, Seed: 1,
	},
	"quick": {
		Name: "quick", World: data.DefaultMazeConfig(), Size: 16, Frames: 4, Context: 2,
		DiT:   eqflib.DiTConfig{Channels: 3, Height: 16, Width: 16, Patch: 4, Hidden: 48, Depth: 2, Heads: 4, MLPRatio: 4, CondDim: 3, LevelFreqs: 64},
		Train: withCondDropout(eqflib.TrainPresets["quick"], 0.1), Steps: 150, Finetune: 50,
		ReadoutSteps: 100, GPhiSteps: 100, ActionSteps: 150, Seed: 1, Eval: EvalConfig{Clips: 2, Frames: 30, Chunk: 10, Depth: 4, Guidance: 2},
	},
}

// paperRecipe is the "paper" recipe.
var paperRecipe = Recipe{
	Name: "paper", World: data.DefaultMazeConfig(), Size: 32, Frames: 4, Context: 2, DiT: cpuDiT,
	Train: eqflib.TrainPresets["paper-maze"], Steps: eqflib.PaperMazeSteps, Finetune: 500,
	ReadoutSteps: 600, GPhiSteps: 800, ActionSteps: 600, Seed: 1, Eval: EvalConfig{Clips: 8, Frames: 100},
}

// paperSteps is the paper recipe with its backbones trained for `steps` steps.
func paperSteps(name string, steps int) Recipe {
	r := paperRecipe
	r.Name, r.Train, r.Steps = name, eqflib.ScalePaperPreset(steps), steps
	return r
}

// cpuDiT is the backbone of the CPU recipes: the "small" preset (8×8 patches, width 256, depth
// 4). At equal wall time on two cores it matched patch 4 / width 128 (twice the tokens, half the
// steps per second) and beat width 128 at patch 8; docs/zoo.md has the measurements.
var cpuDiT = eqflib.DiTPresets["small"]

// demoDiT is cpuDiT with overlapping patches on the way in and out (OverlapEmbed, OverlapHead):
// at the demo's 3,000 steps the plain 8×8 patches of a flat wall settle on different shades, a
// visible grid (patch seams 2.40 against the real clips' 0.84, three training seeds), which the
// overlapping windows cut to 1.27, the action agreement moving within its interval; docs/zoo.md
// has the measurements.
var demoDiT = func() eqflib.DiTConfig {
	c := cpuDiT
	c.OverlapEmbed, c.OverlapHead = true, true
	return c
}()

// withCondDropout is a training preset that drops a window's actions with probability p.
func withCondDropout(p eqflib.TrainPreset, dropout float64) eqflib.TrainPreset {
	p.CondDropout = dropout
	return p
}

// PaperRecipes are the recipes that follow the paper's training (App. D, scaled to the maze),
// the only ones the paper's experiments read: the paper recipe, its 8-frame windows and its
// other run lengths. The guided recipes ("cpu", "demo") were chosen for another goal.
var PaperRecipes = []string{DefaultRecipe, "paper-8", "paper-3.5k", "paper-14k", "paper-70k"}

// PaperLengths are the paper recipe trained for 3,500, 7,000, 14,000 and 70,000 steps, shortest
// first: recipes that differ only in their run length.
var PaperLengths = []string{"paper-3.5k", DefaultRecipe, "paper-14k", "paper-70k"}

// IsPaperRecipe says whether a recipe is one of PaperRecipes.
func IsPaperRecipe(name string) bool { return slices.Contains(PaperRecipes, name) }

// RecipeByName returns a named recipe.
func RecipeByName(name string) (Recipe, error) {
	r, ok := Recipes[name]
	if !ok {
		names := make([]string, 0, len(Recipes))
		for n := range Recipes {
			names = append(names, fmt.Sprintf("%q", n))
		}
		sort.Strings(names)
		hint := ""
		bare := func(n string) string {
			return strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(n))
		}
		for n := range Recipes {
			if bare(n) == bare(name) {
				hint = fmt.Sprintf(" (did you mean %q?)", n) // paper70k, Paper-70K
			}
		}
		return Recipe{}, fmt.Errorf("zoo: recipe %q unknown%s: must be one of %s", name, hint, strings.Join(names, ", "))
	}
	return r, nil
}

// MaxTrainSeeds bounds Recipe.TrainSeed.
const MaxTrainSeeds = 100

// WithTrainSeed is the recipe of training run k (1 is the recipe itself).
func (r Recipe) WithTrainSeed(k int) Recipe {
	r.TrainSeed = k
	return r
}

// trainSeed is the run's number, 1 for the first.
func (r Recipe) trainSeed() int { return max(r.TrainSeed, 1) }

// modelSeed seeds a model's initialisation and batches: Seed for the first training run, a
// value apart for each further one.
func (r Recipe) modelSeed() uint64 { return r.Seed + 1000*uint64(r.trainSeed()-1) }

// Validate checks the recipe.
func (r Recipe) Validate() error {
	switch {
	case r.TrainSeed < 0 || r.TrainSeed > MaxTrainSeeds:
		return fmt.Errorf("zoo: Recipe.TrainSeed = %d out of range: must be in [0, %d]", r.TrainSeed, MaxTrainSeeds)
	case r.Size < 8:
		return fmt.Errorf("zoo: Recipe.Size = %d out of range: must be ≥ 8", r.Size)
	case r.DiT.Height != r.Size || r.DiT.Width != r.Size:
		return fmt.Errorf("zoo: Recipe.DiT is %d×%d: must be Size×Size = %d×%d", r.DiT.Height, r.DiT.Width, r.Size, r.Size)
	case r.Frames < 2:
		return fmt.Errorf("zoo: Recipe.Frames = %d out of range: must be ≥ 2", r.Frames)
	case r.Context < 1 || r.Context >= r.Frames:
		return fmt.Errorf("zoo: Recipe.Context = %d out of range: must be in [1, Frames = %d)", r.Context, r.Frames)
	case r.Steps < 1 || r.ReadoutSteps < 1 || r.GPhiSteps < 1 || r.ActionSteps < 1 || r.Finetune < 1:
		return fmt.Errorf("zoo: Recipe %q: every step count must be ≥ 1", r.Name)
	case r.Eval.Guidance < 0 || r.Eval.Guidance > eqflib.MaxGuidance:
		return fmt.Errorf("zoo: Recipe.Eval.Guidance = %g out of range: must be in [0, %d]", r.Eval.Guidance, eqflib.MaxGuidance)
	case r.Eval.Guidance > 0 && r.Train.CondDropout == 0:
		// Guidance extrapolates from the action-free field, which only condition dropout trains.
		return fmt.Errorf("zoo: Recipe.Eval.Guidance = %g needs Recipe.Train.CondDropout > 0 (a model never trained without its actions has no action-free field to guide from)", r.Eval.Guidance)
	}
	return r.DiT.Validate()
}

// TrainConfig is the trainer's configuration for an objective under this recipe.
func (r Recipe) TrainConfig(obj eqflib.Objective, steps int) eqflib.TrainConfig {
	tc := r.Train.Config(obj, steps)
	tc.Seed = r.modelSeed()
	return tc
}

// Data returns the recipe's train and validation datasets (normalised with train statistics).
func (r Recipe) Data() (train, val *data.WorldDataset, err error) {
	return data.NewWorldSplits(data.NewMaze(r.World), r.Frames, r.Size, r.Size, 1_000_000, 512, r.Seed)
}

// settingsFor is the part of the recipe a model depends on. The training seed enters from 2 on
// (so the first run's hash is the recipe's as before), never for the shared action net.
func (r Recipe) settingsFor(s Spec) any {
	var m map[string]any
	switch s.Kind {
	case "action-net":
		return map[string]any{"world": r.World, "size": r.Size, "steps": r.ActionSteps, "train": r.Train.ActionNet, "seed": r.Seed}
	case "gphi":
		m = map[string]any{"world": r.World, "size": r.Size, "frames": r.Frames, "steps": r.GPhiSteps, "train": r.Train.GPhi, "seed": r.Seed}
	default:
		m = map[string]any{"world": r.World, "size": r.Size, "frames": r.Frames, "context": r.Context, "dit": r.DiT,
			"train": r.Train, "steps": r.Steps, "seed": r.Seed, "eval": r.Eval}
	}
	if r.trainSeed() > 1 {
		m["train_seed"] = r.trainSeed()
	}
	if s.Kind == "gphi" {
		return m
	}
	if s.Readout {
		m["readout_steps"] = r.ReadoutSteps
	}
	if s.From != "" {
		from, _ := SpecByName(s.From)
		m["from"], m["finetune_steps"] = r.settingsFor(from), r.Finetune
	}
	return m
}

// hash identifies a model's configuration: the recipe and the model's spec.
func hash(v ...any) string {
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// readoutConfig is h_ω's training configuration.
func (r Recipe) readoutConfig() eqflib.ProbeConfig {
	c := r.Train.Readout
	c.Seed = r.modelSeed()
	return c
}

// ReadoutConfig and GPhiConfig are how the zoo trains h_ω and g_φ (the recipe's preset, seeded).
func (r Recipe) ReadoutConfig() eqflib.ProbeConfig { return r.readoutConfig() }

// GPhiConfig is how the zoo trains g_φ; see ReadoutConfig.
func (r Recipe) GPhiConfig() eqflib.ProbeConfig {
	c := r.Train.GPhi
	c.Seed = r.modelSeed()
	return c
}
