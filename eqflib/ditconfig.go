package eqflib

// DiTConfig's presets lookup, validation and accounting (parameters, FLOPs), apart from the
// model itself (dit.go).

import "fmt"

// DiTPreset returns a preset by name.
func DiTPreset(name string) (DiTConfig, error) {
	c, ok := DiTPresets[name]
	if !ok {
		return DiTConfig{}, paramErr("preset", name, oneOf(DiTPresets))
	}
	return c, nil
}

// Validate checks the configuration.
func (c DiTConfig) Validate() error {
	const most = 1 << 16 // a bound on every size, so that parameter counts cannot overflow
	for _, v := range []struct {
		name string
		val  int
	}{{"Channels", c.Channels}, {"Height", c.Height}, {"Width", c.Width}, {"Patch", c.Patch}, {"Hidden", c.Hidden},
		{"Depth", c.Depth}, {"Heads", c.Heads}, {"CondDim", c.CondDim}, {"LevelFreqs", c.LevelFreqs}} {
		if v.val > most {
			return paramErr("DiTConfig."+v.name, v.val, fmt.Sprintf("≤ %d", most))
		}
	}
	switch {
	case c.MLPRatio > 64:
		return paramErr("DiTConfig.MLPRatio", c.MLPRatio, "≤ 64")
	case c.Channels < 1:
		return paramErr("DiTConfig.Channels", c.Channels, "≥ 1")
	case c.Patch < 1:
		return paramErr("DiTConfig.Patch", c.Patch, "≥ 1")
	case c.OverlapHead && c.Patch%2 != 0:
		return paramErr("DiTConfig.OverlapHead", true, fmt.Sprintf("false with the odd Patch = %d (its windows are centred p/2 pixels out)", c.Patch))
	case c.OverlapEmbed && c.Patch%2 != 0:
		return paramErr("DiTConfig.OverlapEmbed", true, fmt.Sprintf("false with the odd Patch = %d (its windows are centred p/2 pixels out)", c.Patch))
	case c.Height < c.Patch || c.Height%c.Patch != 0:
		return paramErr("DiTConfig.Height", c.Height, fmt.Sprintf("a positive multiple of Patch = %d", c.Patch))
	case c.Width < c.Patch || c.Width%c.Patch != 0:
		return paramErr("DiTConfig.Width", c.Width, fmt.Sprintf("a positive multiple of Patch = %d", c.Patch))
	case c.Heads < 1:
		return paramErr("DiTConfig.Heads", c.Heads, "≥ 1")
	case c.Hidden < c.Heads || c.Hidden%c.Heads != 0:
		return paramErr("DiTConfig.Hidden", c.Hidden, fmt.Sprintf("a positive multiple of Heads = %d", c.Heads))
	case c.Hidden%4 != 0:
		return paramErr("DiTConfig.Hidden", c.Hidden, "a multiple of 4 (2-D sinusoidal positions)")
	case c.Depth < 1:
		return paramErr("DiTConfig.Depth", c.Depth, "≥ 1")
	case !(c.MLPRatio > 0):
		return paramErr("DiTConfig.MLPRatio", c.MLPRatio, "> 0")
	case c.CondDim < 0:
		return paramErr("DiTConfig.CondDim", c.CondDim, "≥ 0")
	case c.LevelFreqs < 2 || c.LevelFreqs%2 != 0:
		return paramErr("DiTConfig.LevelFreqs", c.LevelFreqs, "an even number ≥ 2")
	}
	return nil
}

// Tokens is the number of spatial tokens per frame.
func (c DiTConfig) Tokens() int {
	if c.Patch < 1 {
		return 0 // an invalid configuration (Validate says why)
	}
	return (c.Height / c.Patch) * (c.Width / c.Patch)
}

// NumParams counts the backbone's parameters without building it.
func (c DiTConfig) NumParams() int {
	d, pp := c.Hidden, c.Channels*c.Patch*c.Patch
	mlp := int(c.MLPRatio * float64(d))
	n := pp*d + d // patch embedding
	if c.OverlapEmbed {
		n += 3 * pp * d
	}
	n += c.LevelFreqs*d + d + d*d + d
	if c.CondDim > 0 {
		n += c.CondDim*d + d
	}
	block := d*6*d + 6*d + 4*(d*d+d) + d*mlp + mlp + mlp*d + d
	n += c.Depth * block
	head := pp
	if c.OverlapHead {
		head *= 4
	}
	n += d*2*d + 2*d + d*head + head // final modulation and head
	return n
}

// FLOPs is one forward pass's matrix-product FLOPs on one window of T frames (batch 1), counted
// analytically at 2 FLOPs per multiply-add: every dense layer's in·out per token (N tokens a
// frame) or per frame (the level, condition and AdaLN layers), and each block's attention scores
// and weighted sum, 2·2·(T·N)²·D. Element-wise work (norms, activations, softmax) is left out.
// A training step costs about 3× (the backward pass twice the forward).
func (c DiTConfig) FLOPs(T int) float64 {
	if c.Patch < 1 {
		return 0 // an invalid configuration (Validate says why)
	}
	d, pp := float64(c.Hidden), float64(c.Channels*c.Patch*c.Patch)
	mlp := float64(int(c.MLPRatio * float64(c.Hidden)))
	L := float64(T * (c.Height / c.Patch) * (c.Width / c.Patch)) // tokens in the window
	frames := float64(T)
	in, out := pp, pp // the patch embedding's inputs and the head's outputs a token
	if c.OverlapEmbed {
		in *= 4
	}
	if c.OverlapHead {
		out *= 4
	}
	perToken := in*d + float64(c.Depth)*(3*d*d+d*d+2*d*mlp) + d*out // patch, qkv, proj, MLP, head
	perFrame := float64(c.LevelFreqs)*d + d*d + float64(c.CondDim)*d + float64(c.Depth)*6*d*d + 2*d*d
	return 2*(perToken*L+perFrame*frames) + float64(c.Depth)*2*2*L*L*d
}
