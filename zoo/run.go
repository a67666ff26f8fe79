package zoo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// A run is the folder `eqf train -out DIR` writes: its checkpoints, stats.json (the
// normalisation), history.json and train.json (what it was trained on). LoadRun loads one into a
// notebook or the REPL, as the zoo's Load loads a zoo model: a model trained for hours on the
// command line, looked at in a notebook.

// TrainedOnFile is the name of a run's record of what it was trained on (TrainedOn).
const TrainedOnFile = "train.json"

// TrainedOn is what a run was trained on, saved as train.json beside its checkpoints: a
// generated world, or your clips (`eqf train -data`) with the clips held out of them for
// validation or your validation clips (`-val`), and the training window. `eqf sample -ckpt`
// rolls out over the same world's or validation clips' actions with the same window,
// `eqf compare` compares two runs of the same data, and `eqf train -resume` refuses to continue
// on other data.
type TrainedOn struct {
	World   string   `json:"world,omitempty"`    // a world of data.WorldByName
	Data    string   `json:"data,omitempty"`     // your clips' absolute path (data.LoadClips)
	HeldOut []string `json:"held_out,omitempty"` // the names (data.LoadClips) of Data's clips held out for validation
	Val     string   `json:"val,omitempty"`      // your validation clips' absolute path (-val), instead of HeldOut
	Frames  int      `json:"frames"`             // the training window
	// Commands are the command lines that trained the run, oldest first (`eqf train -resume`
	// adds one), as typed (relative paths are the typing folder's); not compared by eqf.
	Commands []string `json:"commands,omitempty"`
}

// String names the data: "world maze", "the clips in /abs/clips".
func (t TrainedOn) String() string {
	switch {
	case t.Val != "":
		return "the clips in " + t.Data + " (validation: " + t.Val + ")"
	case t.Data != "":
		return "the clips in " + t.Data
	}
	return "world " + t.World
}

// Save writes the record into the run's folder dir as train.json, atomically.
func (t TrainedOn) Save(dir string) error {
	if err := t.validate(); err != nil {
		return fmt.Errorf("zoo: TrainedOn.Save: %w", err)
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return data.WriteFileAtomic(filepath.Join(dir, TrainedOnFile), append(b, '\n'))
}

// validate: a world or a data path (one of them), a window, held-out clips only of data.
func (t TrainedOn) validate() error {
	switch {
	case (t.World == "") == (t.Data == ""):
		return fmt.Errorf("a run is trained on a world or on data: World = %q, Data = %q (give one)", t.World, t.Data)
	case t.Frames < 1:
		return fmt.Errorf("the training window Frames = %d out of range: must be ≥ 1", t.Frames)
	case t.World != "" && (len(t.HeldOut) > 0 || t.Val != ""):
		return fmt.Errorf("validation clips (HeldOut = %q, Val = %q) of world %s: only a run on data has them", t.HeldOut, t.Val, t.World)
	case t.Val != "" && len(t.HeldOut) > 0:
		return fmt.Errorf("validation clips Val = %q and held-out clips HeldOut = %q: a run validates on one of them", t.Val, t.HeldOut)
	}
	return nil
}

// ReadTrainedOn reads the train.json of the run in dir: nil, and no error, when it has none (a
// run of an earlier eqf). A record that is not JSON, or names neither a world nor data, is an
// error that starts with the file's path.
func ReadTrainedOn(dir string) (*TrainedOn, error) {
	path := filepath.Join(dir, TrainedOnFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var t TrainedOn
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s is not readable JSON: %w", path, err)
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, err, strings.TrimSpace(string(b)))
	}
	return &t, nil
}

// ValClips loads the first n clips a run on data validated on (n ≤ 0: all of them), with their
// names (as data.LoadClips names them, relative to ValPath): those it held out of its data (only
// the n named are read), or the clips of its -val; a run trained on one clip without -val has only
// that clip. Fewer than n come back when it has fewer. A run on a world has none (NewClips renders
// its validation clips).
func (t TrainedOn) ValClips(n int) ([]*data.Clip, []string, error) {
	var (
		clips []*data.Clip
		names []string
		err   error
	)
	switch {
	case t.Data == "":
		return nil, nil, fmt.Errorf("zoo: ValClips: the run was trained on %s, which holds no clips out (NewClips renders its validation clips)", t)
	case t.Val != "":
		clips, names, err = data.LoadClips(t.Val)
	case len(t.HeldOut) == 0: // one clip, none held out
		clips, names, err = data.LoadClips(t.Data)
	default:
		names = t.HeldOut
		if n > 0 && n < len(names) {
			names = names[:n] // only these are read
		}
		clips, err = data.LoadNamedClips(t.Data, names)
	}
	if err != nil {
		return nil, nil, err
	}
	if n > 0 && n < len(clips) {
		clips, names = clips[:n], names[:n]
	}
	return clips, names, nil
}

// ValPath is where the clips ValClips names lie: data.ClipPath(t.ValPath(), name) is one
// of them alone. "" for a run on a world.
func (t TrainedOn) ValPath() string {
	if t.Val != "" {
		return t.Val
	}
	return t.Data
}

// Run is a run `eqf train` wrote, loaded by LoadRun.
type Run struct {
	Dir        string      // the run's folder
	Checkpoint string      // the checkpoint loaded: the newest, or the file given
	DiT        *eqflib.DiT // its EMA weights, h_ω attached when the run trained one
	Stats      data.Stats  // the normalisation of its training data (pixels = x·Std + Mean)
	TrainedOn  *TrainedOn  // what it was trained on; nil for a run of an earlier eqf (no train.json)
}

// LoadRun loads a run `eqf train -out DIR` wrote: DIR (its newest checkpoint) or one of its
// checkpoint files, with the EMA weights, h_ω attached when the run trained one (-readout-steps),
// its stats.json and its train.json. Run.Clips gives the clips to roll it out over.
func LoadRun(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("zoo: LoadRun: %w", err)
	}
	dir := path
	if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	m, ckpt, err := eqflib.LoadEMA(path, false) // h_ω attached when the run trained one
	if err != nil {
		return nil, fmt.Errorf("zoo: LoadRun: %w (a folder `eqf train -out` wrote, or one of its checkpoints)", err)
	}
	stats, err := data.LoadStats(filepath.Join(dir, "stats.json"))
	if err != nil {
		return nil, fmt.Errorf("zoo: LoadRun: %w", err)
	}
	on, err := ReadTrainedOn(dir)
	if err != nil {
		return nil, err
	}
	return &Run{Dir: dir, Checkpoint: ckpt, DiT: m, Stats: stats, TrainedOn: on}, nil
}

// String says what the run is in one line, as the REPL and notebooks print it: "run
// out/train (ckpt-00003000.eqf), trained on world maze: DiT 32×32×3, …".
func (r *Run) String() string {
	if r == nil {
		return "<nil run>"
	}
	on := "with no " + TrainedOnFile
	if r.TrainedOn != nil {
		on = "trained on " + r.TrainedOn.String()
	}
	return fmt.Sprintf("run %s (%s), %s: %v", r.Dir, filepath.Base(r.Checkpoint), on, r.DiT)
}

// errNilRun is what a method of a nil *Run says: the usual cause is LoadRun's error unread.
func errNilRun(method string) error {
	return fmt.Errorf("zoo: Run.%s of a nil *Run: LoadRun returned an error, read it", method)
}

// History is the run's loss history (history.json: training loss per step, validation loss
// where evaluated), as written when its training ended or stopped.
func (r *Run) History() ([]eqflib.LossPoint, error) {
	if r == nil {
		return nil, errNilRun("History")
	}
	return readHistory(r.Dir)
}

// Clips is n clips to roll the run out over, context + frames frames each, normalised with its
// statistics: the first n of the clips it validated on (ValClips: those held out of its data, or
// its -val clips; at most as many as there are), or n validation clips of its world (NewClips,
// seeded by seed, which clips of data ignore).
func (r *Run) Clips(n, context, frames int, seed uint64) (*Clips, error) {
	if r == nil {
		return nil, errNilRun("Clips")
	}
	on := r.TrainedOn
	switch {
	case on == nil:
		return nil, fmt.Errorf("zoo: Run.Clips: %s has no %s (a run of an earlier eqf): roll it out over NewClips(world, …) of the world it was trained on", r.Dir, TrainedOnFile)
	case n < 1:
		return nil, fmt.Errorf("zoo: Run.Clips: n = %d out of range: must be ≥ 1", n)
	case on.World != "":
		w, err := data.WorldByName(on.World)
		if err != nil {
			return nil, err
		}
		cfg := r.DiT.Config
		if w.CondDim() != cfg.CondDim || cfg.Height != cfg.Width {
			return nil, fmt.Errorf("zoo: Run.Clips: %s says world %s (%d actions per frame, square frames), but the model takes %dx%d frames with %d actions",
				filepath.Join(r.Dir, TrainedOnFile), on.World, w.CondDim(), cfg.Width, cfg.Height, cfg.CondDim)
		}
		return NewClips(w, r.Stats, n, context, frames, cfg.Height, seed)
	}
	clips, names, err := on.ValClips(n)
	if err != nil {
		return nil, fmt.Errorf("zoo: Run.Clips: %s says the run was trained on %s: %w", filepath.Join(r.Dir, TrainedOnFile), on, err)
	}
	if n > len(clips) { // all of them came back
		return nil, fmt.Errorf("zoo: Run.Clips: n = %d out of range: the run validated on %d clip(s) of %s (%s): at most %d",
			n, len(clips), on.ValPath(), strings.Join(names, ", "), len(clips))
	}
	cl, err := NewClipsFrom(clips, r.Stats, context, frames)
	if err != nil {
		return nil, fmt.Errorf("zoo: Run.Clips of %s: %w", on, err)
	}
	return cl, nil
}
