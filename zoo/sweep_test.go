package zoo

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
)

// sweepVariants are the recipe changes TestRecipeSweep can try, each against the "cpu" recipe.
var sweepVariants = map[string]func(r *Recipe){
	"base":       func(r *Recipe) {},
	"wide":       func(r *Recipe) { r.DiT.Hidden, r.DiT.Heads = 192, 6 },
	"deep":       func(r *Recipe) { r.DiT.Depth = 6 },
	"patch8":     func(r *Recipe) { r.DiT.Patch, r.DiT.Hidden = 8, 256 },
	"patch8w128": func(r *Recipe) { r.DiT.Patch, r.DiT.Hidden = 8, 128 },
	"slow":       func(r *Recipe) { r.World.Turn, r.World.Step = math.Pi/24, 0.125 },
	"slowp8": func(r *Recipe) {
		r.World.Turn, r.World.Step = math.Pi/24, 0.125
		r.DiT.Patch, r.DiT.Hidden = 8, 256
	},
	"lr1e-3":     func(r *Recipe) { r.Train.LR = 1e-3 },
	"lr4e-3":     func(r *Recipe) { r.Train.LR = 4e-3 },
	"context":    func(r *Recipe) { r.Train.MaxContext = 2 },
	"frames8":    func(r *Recipe) { r.Frames, r.Context, r.Train.MaxContext = 8, 4, 0 },
	"ema0.99":    func(r *Recipe) { r.Train.EMADecay = 0.99 },
	"batch16":    func(r *Recipe) { r.Train.Batch = 16 },
	"randomwalk": func(r *Recipe) { r.World = data.RandomWalkMazeConfig() },
	"nofog":      func(r *Recipe) { r.World.Fog = 0 },
}

// TestRecipeSweep trains EqF (+ h_ω) for each variant in $EQF_SWEEP (comma-separated names of
// sweepVariants, "all" for every one) at each step count in $EQF_SWEEP_STEPS (default "800,2500")
// and evaluates 100-frame rollouts, writing results.jsonl and rollout strips into
// $EQF_SWEEP_OUT. Quality per step does not depend on the hardware, so a sweep can run on a GPU
// (GOMLX_BACKEND=xla:cuda) while the step counts stand for CPU budgets measured separately.
func TestRecipeSweep(t *testing.T) {
	list := os.Getenv("EQF_SWEEP")
	if list == "" {
		t.Skip("set EQF_SWEEP=base,wide,... to run the recipe sweep")
	}
	if list == "all" {
		list = ""
		for k := range sweepVariants {
			list += k + ","
		}
		list = strings.TrimSuffix(list, ",")
	}
	out := os.Getenv("EQF_SWEEP_OUT")
	if out == "" {
		out = t.TempDir()
	}
	stepsList := strings.Split(envOr("EQF_SWEEP_STEPS", "800,2500"), ",")
	results, err := os.OpenFile(filepath.Join(out, "results.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer results.Close()
	nets := map[string]*eqflib.ActionNet{}
	for _, name := range strings.Split(list, ",") {
		mod, ok := sweepVariants[name]
		if !ok {
			t.Fatalf("unknown variant %q", name)
		}
		for _, st := range stepsList {
			var steps int
			fmt.Sscan(st, &steps)
			r := Recipes["cpu"]
			r.Name = name
			mod(&r)
			r.Steps = steps
			r.Eval.Clips = 0 // the sweep evaluates below
			if r.Frames != 4 {
				r.Train.MaxContext = min(r.Train.MaxContext, r.Frames-1)
			}
			z := &Zoo{Dir: filepath.Join(t.TempDir(), name), Recipe: r, Log: nil}
			worldKey := fmt.Sprintf("%+v", r.World)
			if nets[worldKey] == nil {
				start := time.Now()
				if err := z.Build("action-net"); err != nil {
					t.Fatal(err)
				}
				if nets[worldKey], err = z.LoadActionNet(); err != nil {
					t.Fatal(err)
				}
				c, _ := z.Card("action-net")
				fmt.Printf("action net for %s: %v in %s\n", name, c.Metrics, time.Since(start).Round(time.Second))
			}
			start := time.Now()
			if err := z.Build("eqf"); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			m, err := z.Load("eqf")
			if err != nil {
				t.Fatal(err)
			}
			train := time.Since(start)
			for _, ec := range []EvalConfig{{}, {Depth: 20, Name: "NAG closed loop D=20"}} {
				q, err := z.Evaluate(m, nets[worldKey], ec)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				fmt.Printf("%-10s %5d steps (train %s; %s): %s\n", name, steps, train.Round(time.Second), metricsLine(m.Card.Metrics), q)
				line, _ := json.Marshal(map[string]any{"variant": name, "steps": steps, "train_seconds": train.Seconds(), "card": m.Card.Metrics, "quality": q})
				results.Write(append(line, '\n'))
				vo := plots.VideoOptions{Mean: m.Stats.Mean, Std: m.Stats.Std, Scale: 2}
				first := func(x *eqflib.Window) *eqflib.Window { w, _ := x.SliceFrames(0, 48); return w }
				if err := plots.Strip(filepath.Join(out, fmt.Sprintf("%s-%d-D%d.png", name, steps, max(ec.Depth, 10))),
					[]plots.Video{{Name: "truth", Frames: first(q.Truth)}, {Name: q.Sampler, Frames: first(q.Rollout)}}, vo); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
