package paper

import (
	"slices"
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/zoo"
)

// The compute sweeps on the 8-frame models (H = 4) round each D up to a multiple of H, so that
// the staircase moves every frame whole steps a round, and say so; their 50-frame rollouts
// become 52 (a whole number of 4-frame chunks). On the 4-frame models nothing moves.
func TestSweepOnEightFrameModels(t *testing.T) {
	for _, tc := range []struct {
		recipe string
		depths []int
		frames int
		note   string
	}{
		{"paper", []int{10, 20, 40}, 50, ""},
		{"paper-8", []int{12, 20, 40}, 52, "multiples of the horizon H = 4 (10 → 12)"},
	} {
		r, err := zoo.RecipeByName(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		l := &setup{z: &zoo.Zoo{Recipe: r}, p: Config{}.protocol()}
		depths, note := l.depths()
		if !slices.Equal(depths, tc.depths) || (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
			t.Errorf("%s: depths %v, note %q: want %v and a note saying %q", tc.recipe, depths, note, tc.depths, tc.note)
		}
		l.shortenForSweep()
		if l.p.Frames != tc.frames {
			t.Errorf("%s: a sweep's rollouts have %d frames, want %d", tc.recipe, l.p.Frames, tc.frames)
		}
		H := r.Frames - r.Context
		for _, d := range depths {
			if d%H != 0 {
				t.Errorf("%s: D = %d is no multiple of H = %d", tc.recipe, d, H)
			}
		}
	}
}
