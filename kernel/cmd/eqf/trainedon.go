package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
)

// trainedOn is what `eqf train` trained a run on, saved as train.json beside its checkpoints:
// `eqf sample -ckpt` rolls out over the same world's or clips' actions with the same window, and
// `eqf train -resume` refuses to continue on other data.
type trainedOn struct {
	World   string   `json:"world,omitempty"`    // -world
	Data    string   `json:"data,omitempty"`     // -data, absolute
	HeldOut []string `json:"held_out,omitempty"` // -data's clips held out for validation
	Frames  int      `json:"frames"`             // -frames: the training window
}

// trainedOnFile is the name of the record in a training run's -out folder.
const trainedOnFile = "train.json"

// String names the data: "world maze", "the clips in /abs/clips".
func (t trainedOn) String() string {
	if t.Data != "" {
		return "the clips in " + t.Data
	}
	return "world " + t.World
}

func (t trainedOn) save(dir string) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return data.WriteFileAtomic(filepath.Join(dir, trainedOnFile), append(b, '\n'))
}

// readTrainedOn reads dir's train.json: nil without one (a run of an earlier eqf).
func readTrainedOn(dir string) (*trainedOn, error) {
	path := filepath.Join(dir, trainedOnFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var t trainedOn
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s is not readable JSON: %w", path, err)
	}
	if (t.World == "") == (t.Data == "") || t.Frames < 1 {
		return nil, fmt.Errorf("%s names neither a world nor a data folder, or no window: %s", path, strings.TrimSpace(string(b)))
	}
	return &t, nil
}

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
