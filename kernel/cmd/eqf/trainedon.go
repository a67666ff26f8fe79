package main

import (
	"fmt"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
)

// clipSplits loads -data's clips and splits them for training (data.NewClipSplits): whole
// clips held out for validation, named in held.
func clipSplits(path string, frames int) (train, val *data.ClipDataset, held []string, err error) {
	clips, names, err := data.LoadClips(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if train, val, err = data.NewClipSplits(clips, frames); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	for k, name := range names {
		if data.HeldOut(k, len(names)) {
			held = append(held, name)
		}
	}
	return train, val, held, nil
}

// describeClips is what the first line of `eqf train -data` says of the clips: how many, their
// shape, the train windows (and the train clips too short for one) and the clips held out (a few
// named).
func describeClips(path string, train *data.ClipDataset, held []string) string {
	c, n := train.Clips[0], len(train.Clips)+len(held)
	windows, short := fmt.Sprintf("%d train windows", train.Len()), 0
	for _, c := range train.Clips {
		if c.Frames < train.Frames {
			short++
		}
	}
	switch {
	case short == 1:
		windows += fmt.Sprintf(" (one train clip is shorter than the %d-frame window: none of it)", train.Frames)
	case short > 1:
		windows += fmt.Sprintf(" (%d train clips are shorter than the %d-frame window: none of them)", short, train.Frames)
	}
	what := fmt.Sprintf("%d clips of %s", n, path)
	if n == 1 {
		what = "the clip " + path
	}
	heldOut := ", no validation: one clip"
	if len(held) > 0 {
		names := held
		if len(held) > 4 {
			names = []string{held[0], held[1], "…", held[len(held)-1]}
		}
		heldOut = fmt.Sprintf(", %d held out for validation: %s", len(held), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s (%dx%d, %d channels, %d actions per frame; %s%s)", what, c.Width, c.Height, c.Channels, c.CondDim, windows, heldOut)
}
