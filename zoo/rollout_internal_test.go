package zoo

import (
	"math"
	"sync"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// Score keeps the real side (the real continuation's features, the balanced accuracy on the
// real transitions) and gives the numbers eqflib's ComputeFVD and ActionAgreement give on the
// same frames, bit for bit, whether it computes them or reads them back; another net, a net
// trained further and clips changed in place are computed afresh, and only the last one's
// entries are kept; concurrent scoring is safe (the race runs).
func TestScoreKeepsRealSide(t *testing.T) {
	st := data.Stats{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.25, 0.25, 0.25}}
	world := data.NewMaze(data.DefaultMazeConfig())
	cl, err := NewClips(world, st, 4, 2, 10, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewClips(world, st, 4, 2, 10, 16, 4)
	if err != nil {
		t.Fatal(err)
	}
	gen := other.Truth
	net, err := eqflib.NewActionNet(3, 16, 16, 3, eqflib.DefaultProbeConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := ScoreConfig{FVDClip: 5, Chunk: 5}

	// want is what Score gave before it kept anything: eqflib's metrics on the whole windows.
	want := func(c *Clips) *Scores {
		t.Helper()
		fvd := func(from, frames, clip int) float64 {
			g, _ := gen.SliceFrames(from, frames)
			r, _ := c.Truth.SliceFrames(from, frames)
			g, _ = g.Subclips(clip)
			r, _ = r.Subclips(clip)
			f, err := eqflib.ComputeFVD(net, g, r)
			if err != nil {
				t.Fatal(err)
			}
			return f.Value
		}
		s := &Scores{FVD: fvd(0, 10, 5), FVDOverTime: []float64{fvd(0, 5, 5), fvd(5, 5, 5)}}
		gx, gc := c.Transitions(gen)
		rx, _ := c.Transitions(c.Truth)
		if s.Agreement, err = eqflib.ActionAgreement(net, gx, gc, rx, gc); err != nil {
			t.Fatal(err)
		}
		return s
	}
	same := func(what string, got, want *Scores) {
		t.Helper()
		eq := got.FVD == want.FVD && got.Agreement == want.Agreement && len(got.FVDOverTime) == len(want.FVDOverTime)
		for i := range want.FVDOverTime {
			eq = eq && i < len(got.FVDOverTime) && got.FVDOverTime[i] == want.FVDOverTime[i]
		}
		if !eq {
			t.Errorf("%s: FVD %v over time %v, %v; want %v, %v, %v (bit for bit)", what, got.FVD, got.FVDOverTime, got.Agreement, want.FVD, want.FVDOverTime, want.Agreement)
		}
	}
	kept := func() (entries int, id realID) {
		cl.real.mu.Lock()
		defer cl.real.mu.Unlock()
		return len(cl.real.entries), cl.real.id
	}
	score := func() *Scores {
		t.Helper()
		s, err := cl.Score(net, gen, sc)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	first := score()
	same("computed", first, want(cl))
	n, id := kept()
	if n != 4 || id.net != net || id.step != 0 {
		t.Fatalf("after one score the real side keeps %d entries for %+v, want 4 (FVD, two chunks, the accuracy) for the net at step 0", n, id)
	}
	same("read back", score(), first)
	if n2, id2 := kept(); n2 != 4 || id2 != id {
		t.Errorf("scoring again: %d entries for %+v, want the same 4 for %+v", n2, id2, id)
	}
	if math.IsNaN(first.FVD) || first.FVD <= 0 || first.Agreement.Real <= 0 {
		t.Fatalf("scores of other clips: %+v", first)
	}

	// Concurrent scoring of the same clips (the race runs see the real side's maps).
	var wg sync.WaitGroup
	got := make([]*Scores, 4)
	for i := range got {
		wg.Go(func() { got[i], _ = cl.Score(net, gen, sc) })
	}
	wg.Wait()
	for i, s := range got {
		if s == nil {
			t.Fatalf("concurrent score %d failed", i)
		}
		same("concurrent", s, first)
	}

	// Another net: its own numbers, and only its entries kept.
	net2, err := eqflib.NewActionNet(3, 16, 16, 3, eqflib.DefaultProbeConfig(), 2)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := cl.Score(net2, gen, sc)
	if err != nil {
		t.Fatal(err)
	}
	if n, id := kept(); n != 4 || id.net != net2 {
		t.Errorf("after another net: %d entries for %+v, want 4 for the other net", n, id)
	}
	if s2.FVD == first.FVD {
		t.Errorf("another net scored FVD %v, the first net's", s2.FVD)
	}
	same("the first net again", score(), first)

	// The net trained one step further is another net.
	clips := make([]*data.Clip, 4)
	for i := range clips {
		if clips[i], err = data.RenderClip(world, uint64(100+i), 12, 16, 16); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := data.NewClipDataset(clips, 12, 12, &st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := net.Train(ds, 1); err != nil {
		t.Fatal(err)
	}
	trained := score()
	same("after a training step", trained, want(cl))
	if trained.FVD == first.FVD {
		t.Errorf("after a training step FVD is still %v: the kept features of the untrained net were used", first.FVD)
	}

	// Clips changed in place are other clips.
	for i := range cl.Truth.Data[:cl.Truth.FrameSize()] {
		cl.Truth.Data[i] = -cl.Truth.Data[i]
	}
	changed := score()
	same("after the real frames changed in place", changed, want(cl))
	if changed.FVD == trained.FVD {
		t.Errorf("after the real frames changed FVD is still %v", trained.FVD)
	}

	// Clips built by hand keep nothing and score the same.
	plain := &Clips{All: cl.All, Context: cl.Context, Truth: cl.Truth, Cond: cl.Cond, CondDim: cl.CondDim, C: cl.C, R: cl.R, Stats: cl.Stats}
	s, err := plain.Score(net, gen, sc)
	if err != nil {
		t.Fatal(err)
	}
	same("clips built by hand", s, changed)
}

// BenchmarkClipsScore scores one rollout's worth of paper-shaped clips (64 clips of 100 frames at
// 32×32, the protocol's 10-frame FVD clips and 25-frame chunks) with the committed action net:
// "kept" as NewClips' clips score every rollout after their first, "fresh" as clips that keep
// nothing (every score before 2026-12-01 cost this and more: colour drift sorted on one core).
//
//	go test -run '^$' -bench ClipsScore -benchtime 3x ./zoo
func BenchmarkClipsScore(b *testing.B) {
	z := &Zoo{Dir: ".", Recipe: Recipes[DefaultRecipe]}
	net, err := z.LoadActionNet()
	if err != nil {
		b.Fatal(err)
	}
	st := data.Stats{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.25, 0.25, 0.25}}
	cl, err := z.Clips(st, 64, 100, 7)
	if err != nil {
		b.Fatal(err)
	}
	other, err := z.Clips(st, 64, 100, 8)
	if err != nil {
		b.Fatal(err)
	}
	sc := ScoreConfig{FVDClip: 10, Chunk: 25}
	if _, err := cl.Score(net, other.Truth, sc); err != nil { // the executors compiled, the real side kept
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		clips *Clips
	}{
		{"kept", cl},
		{"fresh", &Clips{All: cl.All, Context: cl.Context, Truth: cl.Truth, Cond: cl.Cond, CondDim: cl.CondDim, C: cl.C, R: cl.R, Stats: cl.Stats}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.clips.Score(net, other.Truth, sc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
