package plots

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// A figure is data: it marshals to JSON and back unchanged, so a saved result can be drawn
// again (as PNG or as its interactive page) without rerunning it. JSON has no NaN or ±Inf,
// which figures use (a gap in a curve, an unbounded band): they are written as null, "+Inf"
// and "-Inf".

// jsonFloat is a float64 that marshals NaN as null and ±Inf as "+Inf" / "-Inf".
type jsonFloat float64

func (v jsonFloat) MarshalJSON() ([]byte, error) {
	f := float64(v)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

func (v *jsonFloat) UnmarshalJSON(b []byte) error {
	switch s := string(b); s {
	case "null":
		*v = jsonFloat(math.NaN())
	case `"+Inf"`:
		*v = jsonFloat(math.Inf(1))
	case `"-Inf"`:
		*v = jsonFloat(math.Inf(-1))
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("plots: figure value %s: want a number, null, \"+Inf\" or \"-Inf\"", s)
		}
		*v = jsonFloat(f)
	}
	return nil
}

// floats converts a slice between float64 and jsonFloat (nil stays nil).
func floats[U, T ~float64](x []T) []U {
	if x == nil {
		return nil
	}
	out := make([]U, len(x))
	for i, v := range x {
		out[i] = U(v)
	}
	return out
}

func toJSON(x []float64) []jsonFloat   { return floats[jsonFloat](x) }
func fromJSON(x []jsonFloat) []float64 { return floats[float64](x) }

// seriesJSON is Series with its values as jsonFloat (the outer fields shadow the embedded ones).
type seriesJSON struct {
	seriesFields
	X, Y, Lo, Hi []jsonFloat `json:",omitempty"`
}

type seriesFields Series // Series without its methods

// MarshalJSON writes the series with NaN as null and ±Inf as "+Inf" / "-Inf".
func (s Series) MarshalJSON() ([]byte, error) {
	return json.Marshal(seriesJSON{seriesFields(s), toJSON(s.X), toJSON(s.Y), toJSON(s.Lo), toJSON(s.Hi)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Series) UnmarshalJSON(b []byte) error {
	var j seriesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Series(j.seriesFields)
	s.X, s.Y, s.Lo, s.Hi = fromJSON(j.X), fromJSON(j.Y), fromJSON(j.Lo), fromJSON(j.Hi)
	return nil
}

type heatFields Heat

type heatJSON struct {
	heatFields
	X, Y     []jsonFloat
	Z        [][]jsonFloat
	Min, Max jsonFloat
}

// MarshalJSON writes the heat map with NaN as null and ±Inf as "+Inf" / "-Inf".
func (h Heat) MarshalJSON() ([]byte, error) {
	z := make([][]jsonFloat, len(h.Z))
	for i, row := range h.Z {
		z[i] = toJSON(row)
	}
	return json.Marshal(heatJSON{heatFields(h), toJSON(h.X), toJSON(h.Y), z, jsonFloat(h.Min), jsonFloat(h.Max)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Heat) UnmarshalJSON(b []byte) error {
	var j heatJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*h = Heat(j.heatFields)
	h.X, h.Y, h.Min, h.Max = fromJSON(j.X), fromJSON(j.Y), float64(j.Min), float64(j.Max)
	h.Z = make([][]float64, len(j.Z))
	for i, row := range j.Z {
		h.Z[i] = fromJSON(row)
	}
	return nil
}
