package data

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// Datasets serve windows [T, C, H, W] (normalised to zero mean and unit variance per channel)
// with per-frame conditions [T, condDim], through methods on builtin types only:
//
//	Len() int
//	Shape() (frames, channels, height, width, condDim int)
//	Window(i int, pixels, cond []float64) error
//
// which is the dataset interface eqflib consumes.

// Stats are per-channel normalisation statistics: x_norm = (x − Mean[c]) / Std[c].
type Stats struct {
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
}

// Save writes the statistics as JSON, atomically.
func (s Stats) Save(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// LoadStats reads statistics written by Stats.Save.
func LoadStats(path string) (Stats, error) {
	var s Stats
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("data: stats file %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("data: stats file %s is not valid JSON: %w", path, err)
	}
	if len(s.Mean) == 0 || len(s.Mean) != len(s.Std) {
		return s, fmt.Errorf("data: stats file %s: mean and std must be non-empty and of equal length", path)
	}
	for i, v := range s.Std {
		if !(v > 0) {
			return s, fmt.Errorf("data: stats file %s: std[%d] = %g must be > 0", path, i, v)
		}
	}
	return s, nil
}

func (s Stats) normalise(pixels []float64, channels, hw int) {
	for i := range pixels {
		c := (i / hw) % channels
		pixels[i] = (pixels[i] - s.Mean[c]) / s.Std[c]
	}
}

// Denormalise maps normalised pixels ([…, C, H, W] blocks) back to the data's range.
func (s Stats) Denormalise(pixels []float64, hw int) []float64 {
	out := make([]float64, len(pixels))
	for i, v := range pixels {
		c := (i / hw) % len(s.Mean)
		out[i] = v*s.Std[c] + s.Mean[c]
	}
	return out
}

// Split selects the train or validation clips of a world dataset.
type Split int

const (
	Train Split = iota
	Validation
)

// WorldDataset renders clips of a World on demand: clip i of a split is the clip of one seed,
// and the train and validation seeds never coincide (even and odd seeds).
type WorldDataset struct {
	World                 World
	Frames, Height, Width int
	Size                  int
	Split                 Split
	Seed                  uint64
	Stats                 Stats
}

// StatsClips is how many train clips NewWorldSplits reads to estimate the statistics.
const StatsClips = 64

// NewWorldSplits returns the train and validation datasets of a world (trainSize and valSize
// clips of `frames` frames at h×w), normalised with statistics estimated on train clips.
func NewWorldSplits(w World, frames, h, wd, trainSize, valSize int, seed uint64) (train, val *WorldDataset, err error) {
	if w == nil {
		return nil, nil, fmt.Errorf("data: world is nil")
	}
	if err := checkClipShape(frames, h, wd); err != nil {
		return nil, nil, err
	}
	if trainSize < 1 || valSize < 1 {
		return nil, nil, fmt.Errorf("data: trainSize = %d, valSize = %d out of range: both must be ≥ 1", trainSize, valSize)
	}
	train = &WorldDataset{World: w, Frames: frames, Height: h, Width: wd, Size: trainSize, Split: Train, Seed: seed}
	val = &WorldDataset{World: w, Frames: frames, Height: h, Width: wd, Size: valSize, Split: Validation, Seed: seed}
	var sum, sum2 [3]float64
	var count float64
	for i := 0; i < min(StatsClips, trainSize); i++ {
		c, err := RenderClip(w, train.clipSeed(i), frames, h, wd)
		if err != nil {
			return nil, nil, err
		}
		hw := h * wd
		for j, v := range c.Pixels {
			ch := (j / hw) % 3
			sum[ch] += v
			sum2[ch] += v * v
		}
		count += float64(frames * hw)
	}
	st := Stats{Mean: make([]float64, 3), Std: make([]float64, 3)}
	for ch := range 3 {
		st.Mean[ch] = sum[ch] / count
		st.Std[ch] = math.Max(math.Sqrt(sum2[ch]/count-st.Mean[ch]*st.Mean[ch]), 1e-6)
	}
	train.Stats, val.Stats = st, st
	return train, val, nil
}

func (d *WorldDataset) clipSeed(i int) uint64 {
	return 2*(d.Seed<<32+uint64(i)) + uint64(d.Split)
}

// Len is the number of clips.
func (d *WorldDataset) Len() int { return d.Size }

// Shape is (frames, channels, height, width, condDim).
func (d *WorldDataset) Shape() (frames, channels, height, width, condDim int) {
	if d.World == nil {
		return d.Frames, 3, d.Height, d.Width, 0 // the zero WorldDataset (NewWorldDataset needs a World)
	}
	return d.Frames, 3, d.Height, d.Width, d.World.CondDim()
}

// Window renders clip i, normalised, into pixels [T, 3, H, W] and cond [T, condDim].
func (d *WorldDataset) Window(i int, pixels, cond []float64) error {
	if i < 0 || i >= d.Size {
		return fmt.Errorf("data: window index %d out of range: must be in [0, %d)", i, d.Size)
	}
	if err := d.World.Render(d.clipSeed(i), d.Frames, d.Height, d.Width, pixels, cond); err != nil {
		return err
	}
	d.Stats.normalise(pixels, 3, d.Height*d.Width)
	return nil
}

// ClipDataset serves windows of `frames` consecutive frames, every `stride` frames, from loaded
// clips (all with the same channels, size and condition dimension).
type ClipDataset struct {
	Clips  []*Clip
	Frames int
	Stride int
	Stats  Stats

	index [][2]int // (clip, first frame) of each window
}

// NewClipDataset indexes the windows of clips. With stats nil, statistics are computed from
// the clips themselves.
func NewClipDataset(clips []*Clip, frames, stride int, stats *Stats) (*ClipDataset, error) {
	if len(clips) == 0 {
		return nil, fmt.Errorf("data: no clips")
	}
	if frames < 1 || stride < 1 {
		return nil, fmt.Errorf("data: frames = %d, stride = %d out of range: both must be ≥ 1", frames, stride)
	}
	c0 := clips[0]
	d := &ClipDataset{Clips: clips, Frames: frames, Stride: stride}
	for k, c := range clips {
		if c.Channels != c0.Channels || c.Height != c0.Height || c.Width != c0.Width || c.CondDim != c0.CondDim {
			return nil, fmt.Errorf("data: clip %d is [%d, %d, %d] with %d conditions: must match clip 0's [%d, %d, %d] with %d",
				k, c.Channels, c.Height, c.Width, c.CondDim, c0.Channels, c0.Height, c0.Width, c0.CondDim)
		}
		for t := 0; t+frames <= c.Frames; t += stride {
			d.index = append(d.index, [2]int{k, t})
		}
	}
	if len(d.index) == 0 {
		return nil, fmt.Errorf("data: no clip has %d frames for one window", frames)
	}
	if stats != nil {
		if len(stats.Mean) != c0.Channels || len(stats.Std) != c0.Channels {
			return nil, fmt.Errorf("data: stats have %d channels: must have %d", len(stats.Mean), c0.Channels)
		}
		d.Stats = *stats
		return d, nil
	}
	sum, sum2 := make([]float64, c0.Channels), make([]float64, c0.Channels)
	var count float64
	hw := c0.Height * c0.Width
	for _, c := range clips {
		for j, v := range c.Pixels {
			ch := (j / hw) % c0.Channels
			sum[ch] += v
			sum2[ch] += v * v
		}
		count += float64(c.Frames * hw)
	}
	d.Stats = Stats{Mean: make([]float64, c0.Channels), Std: make([]float64, c0.Channels)}
	for ch := range sum {
		d.Stats.Mean[ch] = sum[ch] / count
		d.Stats.Std[ch] = math.Max(math.Sqrt(sum2[ch]/count-d.Stats.Mean[ch]*d.Stats.Mean[ch]), 1e-6)
	}
	return d, nil
}

// NewClipSplits splits loaded clips (LoadClips' order) into a train and a validation dataset of
// `frames`-frame windows. Whole clips are held out for validation, so no validation window
// shares frames with a train one: every 10th clip (the 10th, 20th, …) of ten or more, the last
// of two to nine, none of one (val is then nil: give a Dataset interface nil, not val). Train
// windows start at every frame, validation windows every `frames` frames; both are normalised
// with the train clips' statistics.
func NewClipSplits(clips []*Clip, frames int) (train, val *ClipDataset, err error) {
	var trainClips, valClips []*Clip
	for k, c := range clips {
		if HeldOut(k, len(clips)) {
			valClips = append(valClips, c)
		} else {
			trainClips = append(trainClips, c)
		}
	}
	if train, err = NewClipDataset(trainClips, frames, 1, nil); err != nil {
		return nil, nil, fmt.Errorf("%w (train clips: %d of %d)", err, len(trainClips), len(clips))
	}
	if len(valClips) == 0 {
		return train, nil, nil
	}
	if val, err = NewClipDataset(valClips, frames, frames, &train.Stats); err != nil {
		return nil, nil, fmt.Errorf("%w (validation clips: %d held out of %d)", err, len(valClips), len(clips))
	}
	return train, val, nil
}

// NewClipTrainVal makes the train and validation datasets of `frames`-frame windows of clips
// split already (your data's own train and validation folders): train windows start at every
// frame, validation windows every `frames` frames, both normalised with the train clips'
// statistics. The validation clips must have the train clips' channels, frame size and actions
// per frame.
func NewClipTrainVal(trainClips, valClips []*Clip, frames int) (train, val *ClipDataset, err error) {
	if train, err = NewClipDataset(trainClips, frames, 1, nil); err != nil {
		return nil, nil, fmt.Errorf("%w (train clips: %d)", err, len(trainClips))
	}
	if len(valClips) == 0 {
		return nil, nil, fmt.Errorf("data: NewClipTrainVal: no validation clips")
	}
	c0 := trainClips[0]
	for k, c := range valClips {
		if c.Channels != c0.Channels || c.Height != c0.Height || c.Width != c0.Width || c.CondDim != c0.CondDim {
			return nil, nil, fmt.Errorf("data: validation clip %d is %dx%d with %d channels and %d actions per frame: the train clips are %dx%d with %d channels and %d actions",
				k, c.Width, c.Height, c.Channels, c.CondDim, c0.Width, c0.Height, c0.Channels, c0.CondDim)
		}
	}
	if val, err = NewClipDataset(valClips, frames, frames, &train.Stats); err != nil {
		return nil, nil, fmt.Errorf("%w (validation clips: %d)", err, len(valClips))
	}
	return train, val, nil
}

// HeldOut tells whether clip k of n is one NewClipSplits holds out for validation.
func HeldOut(k, n int) bool {
	switch {
	case n >= 10:
		return k%10 == 9
	case n >= 2:
		return k == n-1
	}
	return false
}

func (d *ClipDataset) Len() int { return len(d.index) }

func (d *ClipDataset) Shape() (frames, channels, height, width, condDim int) {
	if len(d.Clips) == 0 {
		return d.Frames, 0, 0, 0, 0 // the zero ClipDataset (NewClipDataset refuses no clips)
	}
	c := d.Clips[0]
	return d.Frames, c.Channels, c.Height, c.Width, c.CondDim
}

func (d *ClipDataset) Window(i int, pixels, cond []float64) error {
	if i < 0 || i >= len(d.index) {
		return fmt.Errorf("data: window index %d out of range: must be in [0, %d)", i, len(d.index))
	}
	c := d.Clips[d.index[i][0]]
	t0 := d.index[i][1]
	n := c.Channels * c.Height * c.Width
	if len(pixels) != d.Frames*n || len(cond) != d.Frames*c.CondDim {
		return fmt.Errorf("data: buffers of length %d/%d: must be %d/%d", len(pixels), len(cond), d.Frames*n, d.Frames*c.CondDim)
	}
	copy(pixels, c.Pixels[t0*n:(t0+d.Frames)*n])
	copy(cond, c.Cond[t0*c.CondDim:(t0+d.Frames)*c.CondDim])
	d.Stats.normalise(pixels, c.Channels, c.Height*c.Width)
	return nil
}
