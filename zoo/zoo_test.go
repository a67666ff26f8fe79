package zoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// The quick zoo end to end: every model trains, carries a card, loads in under a second; a
// second build skips everything; a model whose card is gone resumes from its checkpoint; a
// changed recipe is refused with a clear message; a missing model names `make models`.
func TestQuickZoo(t *testing.T) {
	var log bytes.Buffer
	z := &Zoo{Dir: t.TempDir(), Recipe: Recipes["quick"], Log: &log}
	start := time.Now()
	if err := z.Build(); err != nil {
		t.Fatal(err)
	}
	t.Logf("quick zoo built in %s", time.Since(start).Round(time.Second))
	// OpenTrained falls back to the quick zoo when the paper recipe's lacks a model, and trains
	// nothing the quick zoo has; its geometry is the recipe's window.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(z.Dir, filepath.Join(root, "out", "models-quick")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvRoot, root)
	oz, err := OpenTrained("eqf", "fm")
	if err != nil || oz.Recipe.Name != "quick" {
		t.Fatalf("OpenTrained with no paper zoo: %v, %v; want the quick zoo", oz, err)
	}
	if _, err := oz.Load("fm"); err != nil {
		t.Errorf("OpenTrained's quick zoo: %v", err)
	}
	// A model named as the paper writes it is the zoo's model.
	if m, err := oz.Load("FM"); err != nil || m.Spec.Name != "fm" {
		t.Errorf("Load(\"FM\"): %v", err)
	}
	if h, err := oz.History("EqF"); err != nil || len(h) == 0 {
		t.Errorf("History(\"EqF\"): %d points, %v", len(h), err)
	}
	if oz.ModelDir("EqF") != oz.ModelDir("eqf") {
		t.Errorf("ModelDir(\"EqF\") = %s, want %s", oz.ModelDir("EqF"), oz.ModelDir("eqf"))
	}
	if err := z.Build("EqF"); err != nil || strings.Contains(log.String(), "EqF") {
		t.Errorf("Build(\"EqF\") of the built zoo: %v; log: %s", err, log.String())
	}
	if _, err := OpenTrained("nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("OpenTrained(\"nope\"): error %v, want one naming the model", err)
	}
	if g := oz.Geometry(5, 0); g != (eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 2, Depth: 5}) {
		t.Errorf("Geometry(5, 0) = %+v, want C = H = S = 2, D = 5", g)
	}
	if g := oz.Geometry(5, 1); g.Stride != 1 {
		t.Errorf("Geometry(5, 1).Stride = %d, want 1", g.Stride)
	}
	for _, s := range Specs {
		c, err := z.Card(s.Name)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if c.Steps < 1 || c.Seconds <= 0 || len(c.Metrics) == 0 {
			t.Errorf("%s: card %+v", s.Name, c)
		}
		t.Logf("%-10s %s", s.Name, metricsLine(c.Metrics))
		if s.Kind != "dit" {
			continue
		}
		// The card scores every sampler without guidance and with the recipe's weight.
		m, err := z.loadUnchecked(s)
		if err != nil {
			t.Fatal(err)
		}
		ss := Samplers(m, z.Recipe.Eval.Guidance)
		if want := 2 + 2*btoi(s.Readout); len(ss) != want {
			t.Errorf("%s: %d card samplers, want %d", s.Name, len(ss), want)
		}
		for _, es := range ss {
			if _, ok := c.Metrics["agreement_"+es.Key]; !ok {
				t.Errorf("%s: card has no agreement_%s: %v", s.Name, es.Key, c.Metrics)
			}
			if guided := strings.HasSuffix(es.Key, "_w2"); guided != (es.Guidance == 2) {
				t.Errorf("%s: sampler %q has guidance %g", s.Name, es.Key, es.Guidance)
			}
		}
		start := time.Now()
		m, err = z.Load(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("loading %s took %s, want < 1 s", s.Name, d)
		}
		if m.DiT.HasReadout() != s.Readout {
			t.Errorf("%s: readout attached %v, want %v", s.Name, m.DiT.HasReadout(), s.Readout)
		}
		for _, f := range []string{"card.json", "config.json", "history.csv", "loss.png", "stats.json"} {
			if _, err := os.Stat(filepath.Join(z.Dir, s.Name, f)); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
		}
	}
	if mae := mustCard(t, z, "eqf").Metrics["readout_sigma_mae"]; !(mae > 0 && mae < 0.5) {
		t.Errorf("quick h_ω MAE %.3f: not a trained readout", mae)
	}

	// Rebuild: nothing retrained.
	log.Reset()
	if err := z.Build(); err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), "trained (card.json matches") != len(Specs) {
		t.Errorf("a rebuild retrained something:\n%s", log.String())
	}
	// An interrupted model (no card, checkpoints kept) resumes instead of starting over.
	os.Remove(filepath.Join(z.Dir, "fm", "card.json"))
	log.Reset()
	if err := z.Build("fm"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "resumed from") {
		t.Errorf("fm did not resume from its checkpoint:\n%s", log.String())
	}

	// Another recipe's zoo in the same folder is refused, naming the fix.
	other := &Zoo{Dir: z.Dir, Recipe: Recipes["quick"]}
	other.Recipe.Train.LR *= 2
	if _, err := other.Load("eqf"); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("a changed recipe loaded: %v", err)
	}
	// A model depends only on its own settings: longer backbone runs keep the action net.
	longer := &Zoo{Dir: z.Dir, Recipe: Recipes["quick"]}
	longer.Recipe.Steps++
	if _, err := longer.LoadActionNet(); err != nil {
		t.Errorf("the action net was invalidated by the backbone's step count: %v", err)
	}
	if _, err := longer.Load("fm"); err == nil {
		t.Error("fm loaded although the backbone's step count changed")
	}
	empty := &Zoo{Dir: t.TempDir(), Recipe: Recipes["quick"]}
	if _, err := empty.Load("eqf"); err == nil || !strings.Contains(err.Error(), "QUICK=1 make models") {
		t.Errorf("a missing model: %v", err)
	}
	// The action net retrained from scratch in another folder: the same weights, byte for byte,
	// so the same digest (what lets two results share FVD's features); none without one.
	again := &Zoo{Dir: t.TempDir(), Recipe: Recipes["quick"]}
	if err := again.Build("action-net"); err != nil {
		t.Fatal(err)
	}
	d1, err1 := z.ActionNetDigest()
	d2, err2 := again.ActionNetDigest()
	if err1 != nil || err2 != nil || len(d1) != 16 || d1 != d2 {
		t.Errorf("the action net's digest: %q (%v) and retrained %q (%v), want the same 16 hex digits", d1, err1, d2, err2)
	}
	if _, err := empty.ActionNetDigest(); err == nil || !strings.Contains(err.Error(), "make models") {
		t.Errorf("the digest of a zoo without an action net: %v, want the error naming make models", err)
	}
	if _, err := z.Load("nosuch"); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("an unknown model: %v", err)
	}

	// A second training seed: its own folder, hash and initialisation; the action net shared.
	s2 := z.WithTrainSeed(2)
	log.Reset()
	if err := s2.Build("fm"); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(z.Dir, "seed-2", "fm"); s2.ModelDir("fm") != want || s2.ModelDir("action-net") != filepath.Join(z.Dir, "action-net") {
		t.Errorf("seed 2 folders: fm in %s (want %s), action net in %s", s2.ModelDir("fm"), want, s2.ModelDir("action-net"))
	}
	c1, c2 := mustCard(t, z, "fm"), mustCard(t, s2, "fm")
	if c2.TrainSeed != 2 || c1.TrainSeed != 1 || c1.Hash == c2.Hash {
		t.Errorf("cards: seed 1 %d %s, seed 2 %d %s: want seeds 1 and 2 with different hashes", c1.TrainSeed, c1.Hash, c2.TrainSeed, c2.Hash)
	}
	if z.configHash(Spec{Name: "action-net", Kind: "action-net"}) != s2.configHash(Spec{Name: "action-net", Kind: "action-net"}) {
		t.Error("the action net's hash depends on the training seed")
	}
	if first := (&Zoo{Recipe: Recipes["quick"].WithTrainSeed(1)}).configHash(Specs[1]); first != z.configHash(Specs[1]) {
		t.Error("training seed 1 changed the recipe's hash")
	}
	m1, _ := z.Load("fm")
	m2, err := s2.Load("fm")
	if err != nil {
		t.Fatal(err)
	}
	if w1, w2 := firstWeight(t, m1), firstWeight(t, m2); w1 == w2 {
		t.Errorf("training seeds 1 and 2 start from the same weights (%v)", w1)
	}
	// Printed (the REPL, a notebook): which model of which zoo and training run, then its network.
	if got, want := m2.String(), fmt.Sprintf("fm of the quick zoo, training seed 2, %d steps (%s): %s", c2.Steps, c2.Finished.Format("2006-01-02 15:04"), m2.DiT); got != want ||
		!strings.Contains(got, "; level input: σ (FM)") {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (*Model)(nil).String(); got != "<nil model>" {
		t.Errorf("String() of a nil model = %q", got)
	}
	if _, err := z.WithTrainSeed(3).Load("fm"); err == nil || !strings.Contains(err.Error(), "SEEDS=3") {
		t.Errorf("a missing training seed: %v, want an error naming SEEDS=3", err)
	}

	// Evaluate: the structure of the scores on a 30-frame rollout of 2 clips.
	m, _ := z.Load("eqf")
	net, err := z.LoadActionNet()
	if err != nil {
		t.Fatal(err)
	}
	q, err := z.Evaluate(m, net, EvalConfig{Clips: 2, Frames: 30, Depth: 4, Chunk: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(q)
	// Chunk by chunk (S = H = 2): D = 4 evaluations per 2-frame chunk, no bake-in.
	if len(q.Drift) != 3 || q.NFEPerFrame != float64(4*30/2)/30 || q.Agreement.Transitions != 2*30 || q.Rollout.Frames() != 30 {
		t.Errorf("evaluation: %d drift chunks (want 3), %.3f NFE/frame (want 2: D = 4 steps per 2-frame chunk), %d transitions (want 60), %d frames",
			len(q.Drift), q.NFEPerFrame, q.Agreement.Transitions, q.Rollout.Frames())
	}
	// The drift's scale: real clips of the next seed (8) against the same continuation.
	cl8, err := z.Clips(m.Stats, 2, 30, 8)
	if err != nil {
		t.Fatal(err)
	}
	wantReal, _ := eqflib.ColourDrift(denormalise(cl8.Truth, m.Stats), denormalise(q.Truth, m.Stats), 10, 0, 1)
	if !slices.Equal(q.RealDrift, wantReal) || !(q.RealDrift[0] > 0) {
		t.Errorf("real clips' drift %v, want %v (seed 8's clips against seed 7's, > 0)", q.RealDrift, wantReal)
	}
	// The patch grid on the quick backbone's 4×4 patches, of the rollout and of the real clips.
	want, _ := eqflib.PatchSeams(q.Rollout, 4)
	if q.Seams != want || !(q.RealSeams > 0) {
		t.Errorf("patch seams %.3f (want PatchSeams of the rollout, %.3f), of the real clips %.3f (want > 0)", q.Seams, want, q.RealSeams)
	}
	// With classifier-free guidance: two network evaluations per step, the same rollout geometry.
	g, err := z.Evaluate(m, net, EvalConfig{Clips: 2, Frames: 30, Depth: 4, Chunk: 10, Guidance: 2})
	if err != nil {
		t.Fatal(err)
	}
	if g.NFEPerFrame != 2*q.NFEPerFrame || g.Agreement.Transitions != q.Agreement.Transitions || !strings.Contains(g.Sampler, "guidance 2") {
		t.Errorf("guided evaluation: %.3f NFE/frame (want %.3f), %d transitions (want %d), sampler %q",
			g.NFEPerFrame, 2*q.NFEPerFrame, g.Agreement.Transitions, q.Agreement.Transitions, g.Sampler)
	}
	if _, err := z.Evaluate(m, net, EvalConfig{Clips: 2, Frames: 30, Guidance: -1}); err == nil || !strings.Contains(err.Error(), "EvalConfig.Guidance") {
		t.Errorf("Guidance −1: error %v, want one naming EvalConfig.Guidance", err)
	}
	if _, err := z.LoadGPhi(); err != nil {
		t.Error(err)
	}
}

func mustCard(t *testing.T, z *Zoo, name string) *Card {
	c, err := z.Card(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstWeight is the first value of the DiT's patch-embedding weights.
func firstWeight(t *testing.T, m *Model) float64 {
	t.Helper()
	for v := range m.DiT.Store.IterVariables() {
		if strings.Contains(v.Path(), "/patch") && strings.HasSuffix(v.Path(), "weights") {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			return float64(val.Value().([][]float32)[0][0])
		}
	}
	t.Fatal("no patch-embedding weights")
	return 0
}

// TestNotTrainedSaysWhere: loading a model that is not trained names the command that trains
// it, and, when the zoo's root was neither named ($EQF_ROOT) nor found above the working folder
// (eqf repl started in a scratch folder), how to point at the repository's zoo.
func TestNotTrainedSaysWhere(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, named := range []bool{false, true} {
		root := ""
		if named {
			root = t.TempDir()
		}
		t.Setenv(EnvRoot, root)
		z, err := Open("quick")
		if err != nil {
			t.Fatal(err)
		}
		_, err = z.Load("eqf")
		if !errors.Is(err, ErrNotTrained) || !strings.Contains(err.Error(), "QUICK=1 make models") {
			t.Fatalf("EQF_ROOT=%q: Load(\"eqf\") = %v, want ErrNotTrained naming QUICK=1 make models", root, err)
		}
		if hint := strings.Contains(err.Error(), "set "+EnvRoot); hint == named {
			t.Errorf("EQF_ROOT=%q: %v: the hint to set %s is there: %v, want %v", root, err, EnvRoot, hint, !named)
		}
	}
	// A later training run names itself and its folder.
	z, err := Open("quick")
	if err != nil {
		t.Fatal(err)
	}
	_, err = z.WithTrainSeed(3).Load("fm")
	want := "model \"fm\" of training seed 3 is not trained in " + filepath.Join(z.Dir, "seed-3") + ": run `eqf models -recipe quick -seed 3 fm` first (`QUICK=1 make models SEEDS=3` trains every model of training seeds 1…3)"
	if !errors.Is(err, ErrNotTrained) || !strings.Contains(err.Error(), want) {
		t.Errorf("training seed 3: Load(\"fm\") = %v, want ErrNotTrained with %q", err, want)
	}
	// A model trained for other seeds only says which: seed 3's card is this recipe's, seed 2's
	// another configuration's, and the action net has no seeds of its own.
	z.Dir = t.TempDir()
	for k, hash := range map[int]string{2: "another", 3: z.WithTrainSeed(3).configHash(Specs[1])} {
		d := z.WithTrainSeed(k).ModelDir(Specs[1].Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(Card{Name: Specs[1].Name, Hash: hash})
		if err := os.WriteFile(filepath.Join(d, "card.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A card that is no JSON says so, and counts for no seed.
	bad := z.WithTrainSeed(5).ModelDir(Specs[1].Name)
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "card.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := z.WithTrainSeed(5).Card(Specs[1].Name); err == nil || !strings.Contains(err.Error(), "card.json is not valid JSON") {
		t.Errorf("a card that is no JSON: Card = %v, want it said", err)
	}
	for k, want := range map[int]string{1: "for training seed 3 (`-train-seed 3`", 4: "for training seed 3 (`-train-seed 3`", 3: ""} {
		_, err := z.WithTrainSeed(k).Load(Specs[1].Name)
		if k == 3 {
			if err != nil && strings.Contains(err.Error(), "for training seed") {
				t.Errorf("training seed 3 has %s: Load = %v, names another seed", Specs[1].Name, err)
			}
			continue
		}
		if !errors.Is(err, ErrNotTrained) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "seed 2 (") {
			t.Errorf("training seed %d: Load(%q) = %v, want ErrNotTrained naming only seed 3: %q", k, Specs[1].Name, err, want)
		}
	}
}

// TrainSeedsFound reads the training seeds from the zoo's folder: 1 always, and k ≥ 2 only for
// a folder named seed-k exactly with k in range (not a file, not seed-03 or seed-1).
func TestTrainSeedsFound(t *testing.T) {
	z := &Zoo{Recipe: Recipes["quick"], Dir: filepath.Join(t.TempDir(), "zoo")}
	if got := z.TrainSeedsFound(); !slices.Equal(got, []int{1}) {
		t.Errorf("a zoo folder not made yet: TrainSeedsFound() = %v, want [1]", got)
	}
	for _, d := range []string{"seed-3", "seed-12", "seed-2", "seed-1", "seed-03", "seed-101", "seed-x", "fm"} {
		if err := os.MkdirAll(filepath.Join(z.Dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(z.Dir, "seed-5"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := z.TrainSeedsFound(), []int{1, 2, 3, 12}; !slices.Equal(got, want) {
		t.Errorf("TrainSeedsFound() = %v, want %v", got, want)
	}
}

// A recipe written without its dash or in another case is refused, naming the one meant; a
// training seed out of range is refused by name, not read as the first.
func TestOpenAndLoadRefuseBadInput(t *testing.T) {
	for name, want := range map[string]string{"paper70k": `(did you mean "paper-70k"?)`, "Paper-3.5K": `(did you mean "paper-3.5k"?)`, "nope": `unknown: must be one of "cpu"`} {
		if _, err := Open(name); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q) = %v, want an error with %q", name, err, want)
		}
	}
	z, err := Open("quick")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{-2, MaxTrainSeeds + 1} {
		if _, err := z.WithTrainSeed(k).Load("eqf"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("training seed %d (WithTrainSeed) out of range: must be in [1, %d]", k, MaxTrainSeeds)) {
			t.Errorf("WithTrainSeed(%d).Load = %v, want the seed refused", k, err)
		}
	}
}
