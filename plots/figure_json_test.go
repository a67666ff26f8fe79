package plots

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// A figure survives JSON unchanged, NaN and ±Inf included, and draws the same PNG again.
func TestFigureJSONRoundTrip(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := &Figure{Title: "round trip", Cols: 2, Panels: []Panel{
		{Title: "curves", XLabel: "frame", YLabel: "FVD", LogY: true, Legend: "tl", XTicks: []string{"a", "b", "c"}, Series: []Series{
			{Name: "with a gap", X: []float64{1, 2, 3}, Y: []float64{1, nan, 3}, Lo: []float64{0.5, nan, 2}, Hi: []float64{1.5, inf, 4}, Style: Dashed, Color: 3},
			{Name: "labelled", X: []float64{1, 2}, Y: []float64{-inf, 0.1}, Labels: []string{"p", "q"}, Style: Points},
		}},
		{Title: "heat", Heat: &Heat{X: []float64{0, 1}, Y: []float64{0}, Z: [][]float64{{nan, 2.5}}, Label: "σ̂", Min: 0, Max: 3}},
	}}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `null`) || !strings.Contains(string(b), `"+Inf"`) || !strings.Contains(string(b), `"-Inf"`) {
		t.Errorf("NaN and ±Inf not written as null, \"+Inf\", \"-Inf\": %s", b)
	}
	var g Figure
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	// NaN ≠ NaN: compare the JSON of both, and the values with NaN as NaN.
	b2, _ := json.Marshal(&g)
	if string(b) != string(b2) {
		t.Errorf("round trip changed the figure:\n%s\n%s", b, b2)
	}
	if y := g.Panels[0].Series[0].Y; !math.IsNaN(y[1]) || y[2] != 3 || !math.IsInf(g.Panels[0].Series[0].Hi[1], 1) || !math.IsInf(g.Panels[0].Series[1].Y[0], -1) {
		t.Errorf("values after the round trip: %v", g.Panels[0].Series)
	}
	if h := g.Panels[1].Heat; h == nil || !math.IsNaN(h.Z[0][0]) || h.Z[0][1] != 2.5 || h.Max != 3 || h.Label != "σ̂" {
		t.Errorf("heat map after the round trip: %+v", h)
	}
	g.Panels[0].Series[0].Y[1], f.Panels[0].Series[0].Y[1] = 0, 0
	g.Panels[0].Series[0].Lo[1], f.Panels[0].Series[0].Lo[1] = 0, 0
	g.Panels[1].Heat.Z[0][0], f.Panels[1].Heat.Z[0][0] = 0, 0
	if !reflect.DeepEqual(f, &g) {
		t.Errorf("round trip: got %+v, want %+v", g, *f)
	}
	p1, err := f.Bytes("png")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := g.Bytes("png")
	if err != nil {
		t.Fatal(err)
	}
	if string(p1) != string(p2) {
		t.Errorf("the figure read back draws another PNG")
	}
	var bad Series
	if err := json.Unmarshal([]byte(`{"Y":["NaN"]}`), &bad); err == nil || !strings.Contains(err.Error(), "null") {
		t.Errorf("a string value: error %v, want one naming the allowed forms", err)
	}
}
