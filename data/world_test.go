package data

import (
	"math"
	"strings"
	"testing"
)

func TestWorldsAreDeterministic(t *testing.T) {
	for name, w := range Worlds() {
		a, err := RenderClip(w, 42, 6, 16, 16)
		if err != nil {
			t.Fatal(name, err)
		}
		b, _ := RenderClip(w, 42, 6, 16, 16)
		c, _ := RenderClip(w, 43, 6, 16, 16)
		same, diff := true, false
		for i := range a.Pixels {
			same = same && a.Pixels[i] == b.Pixels[i]
			diff = diff || a.Pixels[i] != c.Pixels[i]
			if a.Pixels[i] < 0 || a.Pixels[i] > 1 {
				t.Fatalf("%s: pixel %g outside [0, 1]", name, a.Pixels[i])
			}
		}
		for i := range a.Cond {
			same = same && a.Cond[i] == b.Cond[i]
		}
		if !same {
			t.Errorf("%s: the same seed rendered different clips", name)
		}
		if !diff {
			t.Errorf("%s: seeds 42 and 43 rendered the same clip", name)
		}
		// consecutive frames move
		moved := 0
		for f := 1; f < a.Frames; f++ {
			if meanAbsDiff(a.Frame(f), a.Frame(f-1)) > 1e-3 {
				moved++
			}
		}
		if moved < a.Frames/2 {
			t.Errorf("%s: only %d of %d frames change", name, moved, a.Frames-1)
		}
	}
}

func meanAbsDiff(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s / float64(len(a))
}

// bestShift returns the horizontal shift (in pixels, |s| ≤ max) that best maps frame a onto b.
func bestShift(a, b []float64, h, w, maxShift int) int {
	best, bestErr := 0, math.Inf(1)
	for s := -maxShift; s <= maxShift; s++ {
		var e float64
		n := 0
		for c := 0; c < 3; c++ {
			for y := 0; y < h/2; y++ { // the upper half: walls and sky, no floor texture
				for x := 0; x < w; x++ {
					xs := x + s
					if xs < 0 || xs >= w {
						continue
					}
					d := b[c*h*w+y*w+xs] - a[c*h*w+y*w+x]
					e += d * d
					n++
				}
			}
		}
		if e /= float64(n); e < bestErr {
			best, bestErr = s, e
		}
	}
	return best
}

// Turning pans the view: a left turn shifts the picture one way, a right turn the other, so
// turning reveals new wall on one side and hides it on the other.
func TestMazeTurnsPanTheView(t *testing.T) {
	m := NewMaze(DefaultMazeConfig())
	const h, w = 32, 32
	votes := map[int][2]int{} // action → (shift > 0, shift < 0)
	for seed := uint64(0); seed < 40; seed++ {
		c, err := RenderClip(m, seed, 12, h, w)
		if err != nil {
			t.Fatal(err)
		}
		for f := 1; f < c.Frames; f++ {
			act := argmax(c.Cond[f*3 : f*3+3])
			if act == ActionForward {
				continue
			}
			s := bestShift(c.Frame(f-1), c.Frame(f), h, w, 8)
			v := votes[act]
			if s > 0 {
				v[0]++
			} else if s < 0 {
				v[1]++
			}
			votes[act] = v
		}
	}
	l, r := votes[ActionLeft], votes[ActionRight]
	t.Logf("left turns: %d shift right, %d shift left; right turns: %d shift right, %d shift left", l[0], l[1], r[0], r[1])
	if l[0]+l[1] < 20 || r[0]+r[1] < 20 {
		t.Fatalf("too few turns observed: %v", votes)
	}
	if !(float64(l[0]) > 0.8*float64(l[0]+l[1]) && float64(r[1]) > 0.8*float64(r[0]+r[1])) &&
		!(float64(l[1]) > 0.8*float64(l[0]+l[1]) && float64(r[0]) > 0.8*float64(r[0]+r[1])) {
		t.Errorf("left and right turns do not pan the view in opposite directions: %v", votes)
	}
}

func argmax(v []float64) int {
	best := 0
	for i := range v {
		if v[i] > v[best] {
			best = i
		}
	}
	return best
}

func TestMazePolicy(t *testing.T) {
	m := NewMaze(RandomWalkMazeConfig())
	counts := [3]int{}
	repeats, total := 0, 0
	for seed := uint64(0); seed < 100; seed++ {
		c, _ := RenderClip(m, seed, 30, 8, 8)
		prev := -1
		for f := 0; f < c.Frames; f++ {
			row := c.Cond[f*3 : f*3+3]
			if row[0]+row[1]+row[2] != 1 {
				t.Fatalf("actions are not one-hot: %v", row)
			}
			a := argmax(row)
			counts[a]++
			if prev >= 0 {
				total++
				if a == prev {
					repeats++
				}
			}
			prev = a
		}
	}
	frac := float64(repeats) / float64(total)
	t.Logf("actions forward/left/right = %v, repeat rate %.2f", counts, frac)
	if frac < 0.7 {
		t.Errorf("repeat rate %.2f below the persistence 0.75", frac)
	}
	for a, n := range counts {
		if n < 300 {
			t.Errorf("action %d taken only %d times of 3000", a, n)
		}
	}
}

// The corridor policy turns in whole quarter turns (runs of 6 turn actions of π/12, or 12 for a
// dead end) and rarely shows a wall filling the view: far less often than the random walk.
func TestMazeCorridorPolicy(t *testing.T) {
	wallFrames := func(cfg MazeConfig) (frac float64, runs map[int]int) {
		const h, w, T = 16, 16, 60
		runs = map[int]int{}
		n, walls := 0, 0
		for seed := uint64(0); seed < 100; seed++ {
			c, err := RenderClip(NewMaze(cfg), seed, T, h, w)
			if err != nil {
				t.Fatal(err)
			}
			run, prev := 0, -1
			for f := 0; f < T; f++ {
				a := argmax(c.Cond[f*3 : f*3+3])
				if a == prev && a != ActionForward {
					run++
				} else {
					if prev != ActionForward && prev >= 0 && f-run > 1 { // a complete run (not cut by the clip's start)
						runs[run]++
					}
					run = 1
				}
				prev = a
				// Sky at the top of the centre column? (blue channel high, red low)
				fr := c.Frame(f)
				i := w / 2
				if !(fr[2*h*w+i] > 0.9 && fr[i] < 0.6) {
					walls++
				}
				n++
			}
		}
		return float64(walls) / float64(n), runs
	}
	corridor, runs := wallFrames(DefaultMazeConfig())
	random, _ := wallFrames(RandomWalkMazeConfig())
	t.Logf("frames whose view is filled by a wall: corridor %.3f, random walk %.3f; turn runs %v", corridor, random, runs)
	for l := range runs {
		if l%6 != 0 {
			t.Errorf("a run of %d turn actions: the corridor policy turns in quarter turns of 6", l)
		}
	}
	if corridor > random/2 {
		t.Errorf("the corridor policy shows a wall filling the view in %.3f of frames, the random walk in %.3f", corridor, random)
	}
	bad := DefaultMazeConfig()
	bad.Turn = 0.3
	if _, err := RenderClip(NewMaze(bad), 1, 2, 8, 8); err == nil || !strings.Contains(err.Error(), "MazeConfig.Turn") {
		t.Errorf("a turn that does not divide π/2: %v", err)
	}
	bad = DefaultMazeConfig()
	bad.Policy = "zigzag"
	if _, err := RenderClip(NewMaze(bad), 1, 2, 8, 8); err == nil || !strings.Contains(err.Error(), "MazeConfig.Policy") {
		t.Errorf("unknown policy: %v", err)
	}
}

// TestMazeGlance: with Glance > 0 the corridor policy also looks aside between junctions —
// runs of 1…6 turns one way followed by as many the other way, so that the heading comes back —
// and the clips turn more often than without; the walk itself stays on the corridors.
func TestMazeGlance(t *testing.T) {
	turns := func(cfg MazeConfig) (frac float64, glances int) {
		const T = 100
		n, k := 0, 0
		for seed := uint64(0); seed < 40; seed++ {
			c, err := RenderClip(NewMaze(cfg), seed, T, 8, 8)
			if err != nil {
				t.Fatal(err)
			}
			acts := make([]int, T)
			for f := range acts {
				acts[f] = argmax(c.Cond[f*3 : f*3+3])
				if acts[f] != ActionForward {
					k++
				}
				n++
			}
			// A glance: a run of j turns one way then exactly j the other way, j in [1, 6].
			for f := 1; f < T; f++ {
				if acts[f] == ActionForward || acts[f-1] == acts[f] {
					continue
				}
				j := 0
				for f-1-j >= 0 && acts[f-1-j] == acts[f-1] && acts[f-1] != ActionForward {
					j++
				}
				back := 0
				for f+back < T && acts[f+back] == acts[f] {
					back++
				}
				if j >= 1 && j <= 6 && back == j && f-1-j >= 0 && f+back < T {
					glances++
				}
			}
		}
		return float64(k) / float64(n), glances
	}
	cfg := DefaultMazeConfig()
	plain, g0 := turns(cfg)
	cfg.Glance = 0.05
	glance, g1 := turns(cfg)
	t.Logf("turn actions: %.3f without glances, %.3f with Glance 0.05; look-aside runs %d / %d", plain, glance, g0, g1)
	if g0 != 0 {
		t.Errorf("Glance 0 looks aside %d times: the corridor policy only turns at junctions", g0)
	}
	if g1 < 40 || glance < plain+0.05 {
		t.Errorf("Glance 0.05: %d look-aside runs in 40 clips of 100 frames and %.3f turn actions (without: %.3f)", g1, glance, plain)
	}
	cfg.Glance = 1
	_, err := RenderClip(NewMaze(cfg), 1, 2, 8, 8)
	wantErr(t, err, "MazeConfig.Glance")
}

func TestWorldBadInput(t *testing.T) {
	bad := DefaultMazeConfig()
	bad.Cells = 1
	_, err := RenderClip(NewMaze(bad), 1, 2, 8, 8)
	wantErr(t, err, "MazeConfig.Cells")
	_, err = RenderClip(NewMaze(DefaultMazeConfig()), 1, 0, 8, 8)
	wantErr(t, err, "frames")
	_, err = RenderClip(NewShapes(ShapesConfig{Shapes: 0}), 1, 2, 8, 8)
	wantErr(t, err, "ShapesConfig.Shapes")
	_, err = RenderClip(NewPan(PanConfig{MaxSpeed: 2, Octaves: 3}), 1, 2, 8, 8)
	wantErr(t, err, "PanConfig.MaxSpeed")
	err = NewMaze(DefaultMazeConfig()).Render(1, 2, 8, 8, make([]float64, 5), make([]float64, 6))
	wantErr(t, err, "pixels")
	_, err = WorldByName("minecraft")
	wantErr(t, err, "world")
}

func wantErr(t *testing.T, err error, mention string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), mention) {
		t.Errorf("got error %v, want one naming %q", err, mention)
	}
}

// BenchmarkMazeClip renders 16-frame 32×32 maze clips and reports clips per second.
func BenchmarkMazeClip(b *testing.B) {
	m := NewMaze(DefaultMazeConfig())
	px, cond := make([]float64, 16*3*32*32), make([]float64, 16*3)
	for i := 0; i < b.N; i++ {
		if err := m.Render(uint64(i), 16, 32, 32, px, cond); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "clips/s")
}

// RenderActions with a clip's own actions redraws that clip exactly; with another seed's actions
// it draws a different maze, where some forward moves meet walls (the corridor policy's never
// do); bad actions are rejected by name.
func TestMazeRenderActions(t *testing.T) {
	const h, w, T = 16, 16, 40
	m := NewMaze(DefaultMazeConfig())
	totalBlocked := 0
	for seed := uint64(1); seed <= 10; seed++ {
		c, err := RenderClip(m, seed, T, h, w)
		if err != nil {
			t.Fatal(err)
		}
		acts := make([]int, T)
		for f := range acts {
			acts[f] = argmax(c.Cond[f*3 : f*3+3])
		}
		px := make([]float64, T*3*h*w)
		blocked, err := m.RenderActions(seed, acts, h, w, px)
		if err != nil {
			t.Fatal(err)
		}
		if blocked != 0 {
			t.Errorf("seed %d: its own actions meet a wall %d times", seed, blocked)
		}
		for i := range px {
			if px[i] != c.Pixels[i] {
				t.Fatalf("seed %d: its own actions redraw a different clip (pixel %d: %g, want %g)", seed, i, px[i], c.Pixels[i])
			}
		}
		b, err := m.RenderActions(seed+1000, acts, h, w, px)
		if err != nil {
			t.Fatal(err)
		}
		totalBlocked += b
		same := true
		for i := range px {
			if px[i] != c.Pixels[i] {
				same = false
				break
			}
		}
		if same {
			t.Errorf("seed %d's actions in maze %d redraw the same clip", seed, seed+1000)
		}
	}
	if totalBlocked == 0 {
		t.Error("another clip's actions never met a wall in 10 mazes: the replay does not follow the actions")
	}
	if _, err := m.RenderActions(1, []int{0, 3}, h, w, make([]float64, 2*3*h*w)); err == nil || !strings.Contains(err.Error(), "actions[1]") {
		t.Errorf("action 3: got %v, want an error naming actions[1]", err)
	}
	if _, err := m.RenderActions(1, []int{0}, h, w, make([]float64, 5)); err == nil || !strings.Contains(err.Error(), "pixels") {
		t.Errorf("short pixels: got %v, want an error naming pixels", err)
	}
}

// With walls lower than a block (WallHeight 0.6) every frame of the corridor policy keeps sky
// along its top row and floor along its bottom row, where one-block walls fill whole columns
// when the agent faces a wall; bad heights are rejected by name.
func TestMazeWallHeight(t *testing.T) {
	const S, T = 32, 60
	top, bottom := float64(0.5)/(S/2), float64(S-0.5-S/2)/(S/2)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// frames in which some column of the top row is not sky or of the bottom row not floor
	covered := func(cfg MazeConfig) (n int) {
		for seed := uint64(0); seed < 10; seed++ {
			c, err := RenderClip(NewMaze(cfg), seed, T, S, S)
			if err != nil {
				t.Fatal(err)
			}
			for f := 0; f < T; f++ {
				px, hw := c.Frame(f), S*S
				hidden := false
				for col := 0; col < S; col++ {
					i, j := col, (S-1)*S+col
					sky := near(px[i], 0.35+0.5*top) && near(px[hw+i], 0.55+0.35*top) && near(px[2*hw+i], 0.95)
					floor := false
					for _, check := range []float64{1, 0.8} {
						floor = floor || near(px[j], (0.25+0.3*bottom)*check) && near(px[hw+j], (0.22+0.25*bottom)*check) &&
							near(px[2*hw+j], (0.18+0.2*bottom)*check)
					}
					hidden = hidden || !sky || !floor
				}
				if hidden {
					n++
				}
			}
		}
		return n
	}
	cfg := DefaultMazeConfig()
	one := covered(cfg)
	cfg.WallHeight = 0.6
	low := covered(cfg)
	t.Logf("frames (of %d) where a wall reaches the top or bottom row: %d with one-block walls, %d at WallHeight 0.6", 10*T, one, low)
	if low != 0 || one < 10 {
		t.Errorf("walls reach the top or bottom row in %d frames at WallHeight 0.6 (want 0) and %d with one-block walls (want ≥ 10)", low, one)
	}
	for _, h := range []float64{-1, 0.05, 5, math.NaN()} {
		cfg.WallHeight = h
		_, err := RenderClip(NewMaze(cfg), 1, 2, 8, 8)
		wantErr(t, err, "MazeConfig.WallHeight")
	}
}

// Head is the clip's first frames and their actions, aliasing them, never past its end; appending
// to a head does not write into the clip.
func TestClipHead(t *testing.T) {
	c, err := RenderClip(NewMaze(DefaultMazeConfig()), 3, 5, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Head(2)
	if h.Frames != 2 || len(h.Pixels) != 2*3*64 || len(h.Cond) != 2*3 || &h.Pixels[0] != &c.Pixels[0] || &h.Cond[0] != &c.Cond[0] {
		t.Fatalf("Head(2): %d frames, %d pixels, %d actions", h.Frames, len(h.Pixels), len(h.Cond))
	}
	_ = append(h.Pixels, -1)
	if c.Pixels[2*3*64] == -1 {
		t.Error("appending to a head wrote into the clip")
	}
	if h := c.Head(9); h.Frames != 5 || len(h.Pixels) != len(c.Pixels) {
		t.Errorf("Head(9) of 5 frames: %d frames", h.Frames)
	}
}
