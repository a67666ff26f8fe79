package repl

import (
	"strings"
	"testing"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/plots"
	"github.com/equilibriumforcing/eqf/symbols/eqf"
)

// A video whose values show clamped is followed by a note: standardised frames shown without
// their statistics say how to show them with them; with statistics that still clamp, it asks
// whether they are the frames'; frames in range, or mapped into it, get none.
func TestVideosSayClamped(t *testing.T) {
	s, _ := newTestSession(t)
	std := eqflib.MustNewWindow(1, 2, 3, 4, 4) // standardised values ±2
	unit := eqflib.MustNewWindow(1, 2, 3, 4, 4)
	for i := range std.Data {
		std.Data[i] = float64(4*(i%2) - 2)
		unit.Data[i] = float64(i%5) / 4
	}
	grey := []float64{0.5, 0.5, 0.5}
	for _, c := range []struct {
		x    any
		want string
	}{
		{plots.Video{Name: "raw", Frames: std}, "\nnote: 100 % of the values lie outside [0, 1] (-2 to 2) and show clamped. A model's frames are standardised by its data's statistics: show them with those, eqf.Videos{"},
		{[]plots.Video{{Name: "raw", Frames: std}, {Name: "unit", Frames: unit}}, "\nnote: 50 % of the values lie outside [0, 1] (-2 to 2)"},
		{eqf.Videos{List: []plots.Video{{Name: "wrong", Frames: std}}, Options: plots.VideoOptions{Mean: grey, Std: []float64{1, 1, 1}}}, "\nnote: 100 % of the values map outside [0, 1] with these Mean and Std"},
		{eqf.Videos{List: []plots.Video{{Name: "mean only", Frames: std}}, Options: plots.VideoOptions{Mean: grey}}, "\nnote: 100 % of the values map outside [0, 1] with these Mean and Std"},
		{eqf.Videos{List: []plots.Video{{Name: "mapped", Frames: std}}, Options: plots.VideoOptions{Mean: grey, Std: []float64{0.2, 0.2, 0.2}}}, ""},
		{plots.Video{Name: "unit", Frames: unit}, ""},
	} {
		got := s.Format(c.x)
		if !strings.HasPrefix(got, "wrote ") || (c.want == "") == strings.Contains(got, "note:") || !strings.Contains(got, c.want) {
			t.Errorf("Format(%T): %q, want the paths and %q", c.x, got, c.want)
		}
	}
}
