package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
)

// clipSplits loads -data's clips and splits them for training (data.NewClipSplits): whole
// clips held out for validation, named in held; with -val (valPath), every clip of -data trains
// and -val's clips validate (data.NewClipTrainVal), held is nil.
func clipSplits(path, valPath string, frames int) (train, val *data.ClipDataset, held []string, err error) {
	clips, names, err := data.LoadClips(path)
	if err != nil {
		return nil, nil, nil, flagErr("data", err)
	}
	if valPath != "" {
		valClips, _, err := data.LoadClips(valPath)
		if err != nil {
			return nil, nil, nil, flagErr("val", err)
		}
		if train, val, err = data.NewClipTrainVal(clips, valClips, frames); err != nil {
			return nil, nil, nil, fmt.Errorf("-data %s, -val %s: %w", path, valPath, err)
		}
		return train, val, nil, nil
	}
	if train, val, err = data.NewClipSplits(clips, frames); err != nil {
		return nil, nil, nil, fmt.Errorf("-data: %s: %w", path, err)
	}
	for k, name := range names {
		if data.HeldOut(k, len(names)) {
			held = append(held, name)
		}
	}
	return train, val, held, nil
}

// sameFile tells whether two paths name the same file or folder.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// describeClips is what the first line of `eqf train -data` says of the clips: how many, their
// shape, the train windows (and the train clips too short for one) and the validation clips: those
// held out (a few named), or -val's.
func describeClips(path, valPath string, train, val *data.ClipDataset, held []string) string {
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
	switch {
	case valPath != "":
		clips := fmt.Sprintf("%d clips", len(val.Clips))
		if len(val.Clips) == 1 {
			clips = "the clip"
		}
		heldOut = fmt.Sprintf("; validation: %s of %s, %d windows", clips, valPath, val.Len())
	case len(held) > 0:
		names := held
		if len(held) > 4 {
			names = []string{held[0], held[1], "…", held[len(held)-1]}
		}
		heldOut = fmt.Sprintf(", %d held out for validation: %s", len(held), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s (%dx%d, %d channels, %d actions per frame; %s%s)", what, c.Width, c.Height, c.Channels, c.CondDim, windows, heldOut)
}
