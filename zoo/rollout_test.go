package zoo_test

import (
	"math"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

func testClips(t *testing.T, seed uint64) *zoo.Clips {
	t.Helper()
	st := data.Stats{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.25, 0.25, 0.25}}
	cl, err := zoo.NewClips(data.NewMaze(data.DefaultMazeConfig()), st, 3, 2, 10, 16, seed)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// Score against the clips' own continuation is perfect (FVD 0, agreement 1, no drift); against
// other clips of the world it is not; bad input names what is wrong.
func TestClipsScore(t *testing.T) {
	cl := testClips(t, 3)
	if cl.Context.Frames() != 2 || cl.Truth.Frames() != 10 || cl.Truth.Batch() != 3 || len(cl.Cond) != 3*12*zoo.CondDim {
		t.Fatalf("clips: context %v, truth %v, %d conditions", cl.Context.Shape, cl.Truth.Shape, len(cl.Cond))
	}
	net, err := eqflib.NewActionNet(3, 16, 16, 3, eqflib.DefaultProbeConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := zoo.ScoreConfig{FVDClip: 5, Chunk: 5}
	self, err := cl.Score(net, cl.Truth, sc)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(self.FVD) > 1e-6 || self.Agreement.Ratio != 1 || len(self.FVDOverTime) != 2 || len(self.Drift) != 2 || self.Drift[0] != 0 || !math.IsInf(self.PSNR, 1) {
		t.Errorf("the truth scored against itself: %+v", self)
	}
	other, err := cl.Score(net, testClips(t, 4).Truth, sc)
	if err != nil {
		t.Fatal(err)
	}
	if other.FVD <= 1e-3 || other.Drift[0] <= 0 || other.PSNR > 30 || math.IsInf(other.PSNR, 0) || other.FVDOverTime[0] <= 0 {
		t.Errorf("other clips scored as if they were the truth: %+v", other)
	}
	for _, tc := range []struct {
		net  *eqflib.ActionNet
		gen  *eqflib.Window
		sc   zoo.ScoreConfig
		want string
	}{
		{net, cl.Context, sc, "gen must be [3, 10"},
		{net, cl.Truth, zoo.ScoreConfig{FVDClip: 11, Chunk: 5}, "FVDClip"},
		{net, cl.Truth, zoo.ScoreConfig{FVDClip: 5, Chunk: 4}, "Chunk"},
	} {
		if _, err := cl.Score(tc.net, tc.gen, tc.sc); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Score(%+v): error %v, want one naming %q", tc.sc, err, tc.want)
		}
	}
	// without an action net: FVD in pooled pixels' features, no agreement
	pix, err := cl.Score(nil, testClips(t, 4).Truth, sc)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := testClips(t, 4).Truth.Subclips(5)
	r, _ := cl.Truth.Subclips(5)
	want, _ := eqflib.ComputeFVD(eqflib.PixelFeatures{Size: 4}, g, r)
	if pix.FVD != want.Value || pix.FVD <= 1e-3 || pix.Agreement.Ratio != 0 || pix.PSNR != other.PSNR || len(pix.FVDOverTime) != 2 {
		t.Errorf("scored without a net: %+v, want FVD %g in pixels-4x4, no agreement, PSNR %g", pix, want.Value, other.PSNR)
	}
	if self, err := cl.Score(nil, cl.Truth, sc); err != nil || math.Abs(self.FVD) > 1e-6 {
		t.Errorf("the truth scored against itself without a net: %+v %v", self, err)
	}
	if _, err := zoo.NewClips(data.NewMaze(data.DefaultMazeConfig()), data.Stats{}, 0, 2, 10, 16, 1); err == nil || !strings.Contains(err.Error(), "n = 0") {
		t.Errorf("NewClips with n = 0: error %v, want one naming n", err)
	}
}

// NewClipsFrom takes clips of any size and number of actions: their first C + R frames, their
// actions on the timeline; a clip too short is named.
func TestNewClipsFrom(t *testing.T) {
	pan := data.NewPan(data.DefaultPanConfig()) // two actions per frame
	var clips []*data.Clip
	for i, n := range []int{9, 12} {
		c, err := data.RenderClip(pan, uint64(i+1), n, 12, 20)
		if err != nil {
			t.Fatal(err)
		}
		clips = append(clips, c)
	}
	st := data.Stats{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.25, 0.25, 0.25}}
	cl, err := zoo.NewClipsFrom(clips, st, 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if cl.CondDim != 2 || cl.Truth.Batch() != 2 || cl.Truth.Frames() != 6 || cl.Truth.Shape[3] != 12 || cl.Truth.Shape[4] != 20 {
		t.Fatalf("clips: %d actions, truth %v", cl.CondDim, cl.Truth.Shape)
	}
	first := cl.Truth.Frame(10)[0] // clip 1's continuation frame 4: the clip's frame 3 + 4
	if got := first*0.25 + 0.5; math.Abs(got-clips[1].Pixels[(3+4)*3*12*20]) > 1e-12 {
		t.Errorf("clip 1's frame 3+4 first pixel %g, want %g", got, clips[1].Pixels[(3+4)*3*12*20])
	}
	tl := cl.Timeline(2, 1) // [B, C + R + H − S, 2]: clip 1's actions, the last repeated
	if len(tl) != 2*10*2 || tl[10*2+2*8] != clips[1].Cond[2*8] || tl[10*2+2*9] != clips[1].Cond[2*8] {
		t.Errorf("timeline %v", tl)
	}
	if pf := cl.ScoreFeatures(); pf.Size != 4 {
		t.Errorf("12×20 frames pooled to %d, want 4", pf.Size)
	}
	if _, err := zoo.NewClipsFrom(clips, st, 3, 7); err == nil || !strings.Contains(err.Error(), "clip 0 has 9 frames: must have context + frames = 10") {
		t.Errorf("a clip too short: %v", err)
	}
}

// actionBlind is a field that takes conditions and ignores them.
type actionBlind struct{ eqflib.Field }

func (f actionBlind) WithConditions([]float64) eqflib.Field { return f.Field }

// Roll continues the clips' context under their actions: R frames per clip, the same frames
// for the same seed.
func TestClipsRoll(t *testing.T) {
	cl := testClips(t, 3)
	mean := make([]float64, cl.Truth.FrameSize())
	gauss, err := eqflib.NewGaussian(mean, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	f, err := eqflib.NewOracle(gauss, eqflib.OracleFM)
	if err != nil {
		t.Fatal(err)
	}
	o := eqflib.RollOptions{RollConfig: eqflib.RollConfig{Context: 2, Horizon: 2, Stride: 2, Depth: 3}, Sampler: eqflib.FrameSampler{Sampler: eqflib.Euler}, Seed: 5}
	a, err := cl.Roll(actionBlind{f}, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cl.Roll(actionBlind{f}, o)
	if err != nil {
		t.Fatal(err)
	}
	if a.Frames.Batch() != 3 || a.Frames.Frames() != 10 {
		t.Fatalf("rollout shape %v, want [3, 10, …]", a.Frames.Shape)
	}
	for i := range a.Frames.Data {
		if a.Frames.Data[i] != b.Frames.Data[i] {
			t.Fatalf("two rollouts with seed 5 differ at %d", i)
		}
	}
	if _, err := (&zoo.Clips{}).Roll(f, o); err == nil || !strings.Contains(err.Error(), "no clips") {
		t.Errorf("Roll on empty clips: error %v", err)
	}
}
