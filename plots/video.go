package plots

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/internal/fsutil"
	"github.com/equilibriumforcing/eqf/internal/imgutil"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Video is one clip of a batch of videos, named for display (e.g. the method that made it).
type Video struct {
	Name   string
	Frames *eqflib.Window // [B, T, C, H, W] with C = 1 (grey) or 3 (RGB)
	Clip   int            // which batch element
}

// VideoOptions maps model values to pixels and sets the display size.
type VideoOptions struct {
	// Mean and Std undo the data's per-channel standardisation: pixel = v·Std[c] + Mean[c],
	// clamped to [0, 1] (data.Stats holds them). Nil means values are already in [0, 1].
	Mean, Std []float64
	Scale     int     // pixels per model pixel (default 4)
	FPS       float64 // GIF and player frame rate (default 8)
	Every     int     // Strip: draw every k-th frame (default: at most 16 frames)
}

func (o *VideoOptions) defaults() error {
	if o.Scale == 0 {
		o.Scale = 4
	}
	if o.FPS == 0 {
		o.FPS = 8
	}
	if o.Scale < 1 || o.Scale > 64 {
		return fmt.Errorf("plots: VideoOptions.Scale = %d out of range: must be in [1, 64]", o.Scale)
	}
	if o.FPS <= 0 || o.FPS > 100 {
		return fmt.Errorf("plots: VideoOptions.FPS = %g out of range: must be in (0, 100]", o.FPS)
	}
	if o.Every < 0 {
		return fmt.Errorf("plots: VideoOptions.Every = %d out of range: must be ≥ 0", o.Every)
	}
	return nil
}

func (v Video) check(o VideoOptions) error {
	if err := v.Frames.Validate("Video.Frames"); err != nil {
		return fmt.Errorf("plots: video %q: %w", v.Name, err)
	}
	if c := v.Frames.Shape[2]; c != 1 && c != 3 {
		return fmt.Errorf("plots: video %q: %d channels: must be 1 or 3", v.Name, c)
	}
	if v.Clip < 0 || v.Clip >= v.Frames.Batch() {
		return fmt.Errorf("plots: video %q: Clip = %d out of range: must be in [0, %d)", v.Name, v.Clip, v.Frames.Batch())
	}
	c := v.Frames.Shape[2]
	if (o.Mean != nil && len(o.Mean) != c) || (o.Std != nil && len(o.Std) != c) {
		return fmt.Errorf("plots: video %q: VideoOptions.Mean/Std have %d/%d entries: must be %d (one per channel) or nil", v.Name, len(o.Mean), len(o.Std), c)
	}
	return nil
}

// Clamped is the fraction of the shown clips' values that o maps outside [0, 1], where the
// pixels clamp, and the lowest and highest value: frames standardised by a model's data
// statistics (as a zoo model or a run generates them) shown without those statistics (Mean and
// Std nil) clamp a large part of their values and show false colours. A video GIFBytes would
// refuse is left out; with none left, all three are 0.
func Clamped(videos []Video, o VideoOptions) (frac, lo, hi float64) {
	n, out := 0, 0
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range videos {
		if v.check(o) != nil {
			continue
		}
		x := v.Frames
		c, hw := x.Shape[2], x.Shape[3]*x.Shape[4]
		for t := range x.Frames() {
			for i, val := range x.Frame(v.Clip*x.Frames() + t) {
				lo, hi = math.Min(lo, val), math.Max(hi, val)
				if o.Std != nil {
					val *= o.Std[i/hw%c]
				}
				if o.Mean != nil {
					val += o.Mean[i/hw%c]
				}
				if val < 0 || val > 1 {
					out++
				}
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0, 0
	}
	return float64(out) / float64(n), lo, hi
}

// frame renders frame t of the video, scaled up.
func (v Video) frame(t int, o VideoOptions) *image.RGBA {
	x := v.Frames
	C, H, W := x.Shape[2], x.Shape[3], x.Shape[4]
	px := x.Frame(v.Clip*x.Frames() + t)
	img := image.NewRGBA(image.Rect(0, 0, W*o.Scale, H*o.Scale))
	to8 := func(val float64, c int) uint8 {
		if o.Std != nil {
			val *= o.Std[c]
		}
		if o.Mean != nil {
			val += o.Mean[c]
		}
		return uint8(math.Round(255 * math.Min(math.Max(val, 0), 1)))
	}
	for y := 0; y < H; y++ {
		for xx := 0; xx < W; xx++ {
			i := y*W + xx
			var col color.RGBA
			if C == 1 {
				g := to8(px[i], 0)
				col = color.RGBA{g, g, g, 255}
			} else {
				col = color.RGBA{to8(px[i], 0), to8(px[H*W+i], 1), to8(px[2*H*W+i], 2), 255}
			}
			draw.Draw(img, image.Rect(xx*o.Scale, y*o.Scale, (xx+1)*o.Scale, (y+1)*o.Scale), &image.Uniform{col}, image.Point{}, draw.Src)
		}
	}
	return img
}

// GIFBytes renders the video as a looping animated GIF.
func GIFBytes(v Video, o VideoOptions) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if err := v.check(o); err != nil {
		return nil, err
	}
	delay := max(1, int(math.Round(100/o.FPS)))
	frames := make([]image.Image, v.Frames.Frames())
	for t := range frames {
		frames[t] = v.frame(t, o)
	}
	b, err := imgutil.EncodeGIF(frames, delay)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return b, nil
}

// GIF writes the video as an animated GIF, atomically.
func GIF(path string, v Video, o VideoOptions) error {
	b, err := GIFBytes(v, o)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}

// StripPNG renders videos as rows of frames (every o.Every-th frame), each row labelled with
// its name and the columns with frame numbers: a side-by-side comparison of methods on the
// same actions.
func StripPNG(videos []Video, o VideoOptions) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if len(videos) == 0 {
		return nil, fmt.Errorf("plots: StripPNG: no videos")
	}
	T := 0
	for _, v := range videos {
		if err := v.check(o); err != nil {
			return nil, err
		}
		T = max(T, v.Frames.Frames())
	}
	every := o.Every
	if every == 0 {
		every = max(1, (T+15)/16)
	}
	cols := (T + every - 1) / every
	fw, fh := videos[0].Frames.Shape[4]*o.Scale, videos[0].Frames.Shape[3]*o.Scale
	// The label column fits the longest row name up to 40 characters (at least 16, 120 pixels),
	// so that names which differ late (a method's sampler after a shared model name) stay apart.
	names, chars := make([]string, len(videos)), 16
	for i, v := range videos {
		names[i] = asciiLabel(v.Name, maxLabelChars)
		chars = max(chars, len(names[i]))
	}
	label := 8 + 7*chars
	const pad, top = 4, 16
	img := image.NewRGBA(image.Rect(0, 0, label+cols*(fw+pad), top+len(videos)*(fh+pad)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	text := func(s string, x, y int) {
		d := font.Drawer{Dst: img, Src: image.Black, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	for c := 0; c < cols; c++ {
		text(fmt.Sprintf("t=%d", c*every+1), label+c*(fw+pad), 12)
	}
	for r, v := range videos {
		y := top + r*(fh+pad)
		text(names[r], 4, y+fh/2+4)
		for c := 0; c < cols && c*every < v.Frames.Frames(); c++ {
			fr := v.frame(c*every, o)
			draw.Draw(img, fr.Bounds().Add(image.Point{X: label + c*(fw+pad), Y: y}), fr, image.Point{}, draw.Src)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// Strip writes StripPNG to path, atomically.
func Strip(path string, videos []Video, o VideoOptions) error {
	b, err := StripPNG(videos, o)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}

var playerTmpl = template.Must(template.New("player").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;margin:16px} .v{display:inline-block;margin:0 12px 12px 0;text-align:center}
.v img{image-rendering:pixelated;border:1px solid #ccc;display:block} #ctl{margin:8px 0}</style></head>
<body><h3>{{.Title}}</h3>
<div id="ctl"><button id="play">▶ play</button>
<input id="slider" type="range" min="0" max="{{.Last}}" value="0" style="width:60%">
<span id="label">frame 1 / {{.Frames}}</span></div>
{{range $i, $v := .Videos}}<div class="v"><div>{{$v.Name}}</div><img id="v{{$i}}" width="{{$.W}}" height="{{$.H}}"></div>{{end}}
<script>
const videos = [{{range .Videos}}[{{range .Frames}}"{{.}}",{{end}}],{{end}}];
const slider = document.getElementById("slider"), label = document.getElementById("label");
function show(t) {
  videos.forEach((fr, i) => { document.getElementById("v" + i).src = fr[Math.min(t, fr.length - 1)]; });
  slider.value = t; label.textContent = "frame " + (t + 1) + " / {{.Frames}}";
}
slider.oninput = () => show(+slider.value);
let timer = null;
document.getElementById("play").onclick = (e) => {
  if (timer) { clearInterval(timer); timer = null; e.target.textContent = "▶ play"; return; }
  e.target.textContent = "❚❚ pause";
  timer = setInterval(() => show((+slider.value + 1) % {{.Frames}}), {{.Interval}});
};
show(0);
</script></body></html>
`))

// PlayerHTML renders videos side by side in a self-contained HTML page with a frame slider and
// a play button (frames are inlined as PNG data URIs; nothing is fetched).
func PlayerHTML(title string, videos []Video, o VideoOptions) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if len(videos) == 0 {
		return nil, fmt.Errorf("plots: PlayerHTML: no videos")
	}
	type vid struct {
		Name   string
		Frames []template.URL
	}
	data := struct {
		Title                        string
		Videos                       []vid
		Frames, Last, W, H, Interval int
	}{Title: title, Interval: int(1000 / o.FPS)}
	for _, v := range videos {
		if err := v.check(o); err != nil {
			return nil, err
		}
		var fr []template.URL
		for t := 0; t < v.Frames.Frames(); t++ {
			var buf bytes.Buffer
			if err := png.Encode(&buf, v.frame(t, o)); err != nil {
				return nil, fmt.Errorf("plots: %w", err)
			}
			fr = append(fr, template.URL("data:image/png;base64,"+base64.StdEncoding.EncodeToString(buf.Bytes())))
		}
		data.Videos = append(data.Videos, vid{Name: v.Name, Frames: fr})
		data.Frames = max(data.Frames, len(fr))
	}
	data.Last = data.Frames - 1
	data.W, data.H = videos[0].Frames.Shape[4]*o.Scale, videos[0].Frames.Shape[3]*o.Scale
	var buf bytes.Buffer
	if err := playerTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// Player writes PlayerHTML to path, atomically.
func Player(path, title string, videos []Video, o VideoOptions) error {
	b, err := PlayerHTML(title, videos, o)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b)
}

// maxLabelChars is the longest row label a strip draws in full.
const maxLabelChars = 40

// asciiSpelling is how asciiLabel writes the non-ASCII runes the toolkit's names use.
var asciiSpelling = map[rune]string{'μ': "mu", '→': "->", 'σ': "sigma", 'ω': "w", 'φ': "phi", '×': "x", '·': ".",
	'±': "+-", '≤': "<=", '≥': ">=", '∅': "0", '–': "-", '—': "-", 'ĥ': "h", '³': "3", '²': "2"}

// asciiLabel fits a name to the bitmap font (ASCII only): the runes of asciiSpelling spelt out
// (μ becomes "mu", → "->"), other non-ASCII runes "?", and names longer than n end in "..".
func asciiLabel(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		spelt, ok := asciiSpelling[r]
		switch {
		case ok:
			b.WriteString(spelt)
		case r < 128:
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	out := b.String()
	if len(out) > n {
		out = out[:n-2] + ".."
	}
	return out
}
