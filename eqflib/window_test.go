package eqflib

import (
	"errors"
	"testing"
)

// TestSliceAndSubclips checks frame slicing and sub-clip cutting element by element.
func TestSliceAndSubclips(t *testing.T) {
	const B, T, C, H, W = 2, 7, 1, 2, 3
	x := MustNewWindow(B, T, C, H, W)
	fs := C * H * W
	for i := range x.Data {
		x.Data[i] = float64(i) // element (b, t, p) = (b·T + t)·fs + p
	}
	s, err := x.SliceFrames(2, 4)
	if err != nil {
		t.Fatal(err)
	}
	for b := 0; b < B; b++ {
		for tt := 0; tt < 4; tt++ {
			for p := 0; p < fs; p++ {
				if got, want := s.Data[(b*4+tt)*fs+p], float64((b*T+2+tt)*fs+p); got != want {
					t.Fatalf("SliceFrames(2, 4)[%d, %d, %d] = %v, want %v", b, tt, p, got, want)
				}
			}
		}
	}
	c, err := x.Subclips(3) // 2 clips of 3 per video; frame 6 dropped
	if err != nil {
		t.Fatal(err)
	}
	if c.Shape != [5]int{4, 3, C, H, W} {
		t.Fatalf("Subclips(3) shape %v, want [4 3 1 2 3]", c.Shape)
	}
	for k := 0; k < 4; k++ {
		b, j := k/2, k%2
		for tt := 0; tt < 3; tt++ {
			if got, want := c.Data[(k*3+tt)*fs], float64((b*T+3*j+tt)*fs); got != want {
				t.Fatalf("Subclips(3) clip %d frame %d starts with %v, want %v", k, tt, got, want)
			}
		}
	}
	var pe *ParamError
	for _, bad := range []func() error{
		func() error { _, err := x.SliceFrames(-1, 2); return err },
		func() error { _, err := x.SliceFrames(6, 2); return err },
		func() error { _, err := x.Subclips(0); return err },
		func() error { _, err := x.Subclips(T + 1); return err },
	} {
		if err := bad(); !errors.As(err, &pe) {
			t.Errorf("bad range gave %v, want a ParamError", err)
		}
	}
}
