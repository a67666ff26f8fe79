package eqflib

import "fmt"

// MaxGuidance bounds the guidance weight w that Guide accepts.
const MaxGuidance = 100

// Guide returns classifier-free guidance on a conditioned field's conditions (the maze's
// actions): the field
//
//	v̂ = v̂(x | ∅) + w·(v̂(x | c) − v̂(x | ∅)),
//
// where v̂(x | c) is f under the conditions bound with WithConditions (by the caller, or by
// Roll and the samplers window by window) and v̂(x | ∅) is f under the null condition, all
// zeros, which a model learns when trained with TrainConfig.CondDropout > 0. w = 1 is f
// itself, w > 1 follows the conditions more strongly, w = 0 ignores them. σ̂ and the
// activations come from the conditioned evaluation. Each evaluation costs two of f's. On a DiT
// the samplers run it on the backend path (stepgraph.go): both evaluations as one batch of 2B
// in the same executor call as the update; Eval (the host path) runs them one after the other.
func Guide(f Field, w float64) (Field, error) {
	if f == nil {
		return nil, paramErr("f", "nil", "a Field")
	}
	if _, ok := f.(Conditioner); !ok {
		return nil, paramErr("f", f.Info().Name, "a Field with WithConditions (a Conditioner)")
	}
	if d, ok := f.(*DiT); ok && d.Config.CondDim == 0 {
		return nil, paramErr("f", f.Info().Name, "a DiT with conditions to guide on (this one has CondDim = 0: trained without actions)")
	}
	if !(w >= 0 && w <= MaxGuidance) {
		return nil, paramErr("w", w, fmt.Sprintf("in [0, %d]", MaxGuidance))
	}
	return &guided{f: f, w: w}, nil
}

type guided struct {
	f    Field
	w    float64
	cond []float64 // bound conditions, nil until WithConditions
}

func (g *guided) Info() FieldInfo {
	info := g.f.Info()
	info.Name = fmt.Sprintf("%s, guidance w = %g", info.Name, g.w)
	return info
}

// WithConditions binds the conditions that guidance contrasts with the null condition.
func (g *guided) WithConditions(cond []float64) Field {
	return &guided{f: g.f, w: g.w, cond: cond}
}

// stepState implements stateField for a guided DiT (see DiT.openGuidedStepState).
func (g *guided) stepState(w Warp, readout bool) (stepState, bool, error) {
	d, ok := g.f.(*DiT)
	if !ok {
		return nil, false, nil // another Conditioner: the host path
	}
	return d.openGuidedStepState(w, readout, g.cond, g.w)
}

func (g *guided) Eval(x *Window, level []float64, opts EvalOptions) (*Output, error) {
	if g.cond == nil {
		return nil, paramErr("cond", "none bound", "conditions: call WithConditions")
	}
	c := g.f.(Conditioner)
	oc, err := c.WithConditions(g.cond).Eval(x, level, opts)
	if err != nil {
		return nil, err
	}
	ou, err := c.WithConditions(make([]float64, len(g.cond))).Eval(x, level, EvalOptions{})
	if err != nil {
		return nil, err
	}
	if err := sameShape("unconditioned output V", oc.V, ou.V); err != nil {
		return nil, err
	}
	v := NewWindowLike(oc.V)
	for i, vc := range oc.V.Data {
		vu := ou.V.Data[i]
		v.Data[i] = vu + g.w*(vc-vu)
	}
	return &Output{V: v, SigmaHat: oc.SigmaHat, Z: oc.Z}, nil
}
