package eqflib

import "fmt"

// Dataset is what training consumes: windows of video [T, C, H, W] (normalised) with per-frame
// conditions [T, condDim]. It is declared on builtin types only, so packages that know no model
// (data/) satisfy it without importing eqflib.
type Dataset interface {
	Len() int
	Shape() (frames, channels, height, width, condDim int)
	Window(i int, pixels, cond []float64) error
}

// LoadBatch assembles the windows at idx into a batch [B, T, C, H, W] and its conditions
// [B, T, condDim] (flattened, frame-major like every per-frame slice).
func LoadBatch(ds Dataset, idx []int) (x *Window, cond []float64, err error) {
	defer catch(&err)
	if ds == nil {
		return nil, nil, paramErr("ds", "nil", "a Dataset")
	}
	if len(idx) == 0 {
		return nil, nil, paramErr("idx", "empty", "at least one window index")
	}
	t, c, h, w, k := ds.Shape()
	if x, err = NewWindow(len(idx), t, c, h, w); err != nil {
		return nil, nil, err
	}
	cond = make([]float64, len(idx)*t*k)
	n := t * c * h * w
	for b, i := range idx {
		if i < 0 || i >= ds.Len() {
			return nil, nil, paramErr(fmt.Sprintf("idx[%d]", b), i, fmt.Sprintf("in [0, %d)", ds.Len()))
		}
		if err := ds.Window(i, x.Data[b*n:(b+1)*n], cond[b*t*k:(b+1)*t*k]); err != nil {
			return nil, nil, err
		}
	}
	return x, cond, nil
}
