package eqflib

import (
	"math"
	"strconv"
	"strings"
)

// A sampler is a per-frame step rule driven by one loop.
//
// Every sampler of the paper moves each frame with the same two lines (App. H with μ = 0 for
// plain steps):
//
//	x_look = x − μ m;   (v̂, σ̂) = f(x_look, level)
//	m ← μ' m + β ⊙ v̂;   x ← α x − m
//
// What distinguishes the samplers is only how a frame's level, α and β are chosen from its state
// (steps taken, cleanup steps, its chunk's σ̂) and when the frame is done. That choice is a rule:
// euler.go, gd.go, nag.go, budget.go, earlystop.go and ddim.go each hold one rule and nothing
// else holds it. β is fixed before the network runs (open loop: η(ρ(i/N))/N, Euler's Δσ) or
// formed from σ̂ of the same forward pass (closed loop: η(σ̂)/N, σ̂/(N − i)); the loop applies
// it, on the host or, for a graph field, inside the same executor call as the network.
//
// engine.go is the one loop. It holds a window in which some positions may be fixed (clean
// context, known frames) and the others carry per-frame state, and it moves a frame when the
// caller says it may and its rule says it is not done. A window sampler (SampleNAG, …) is the
// engine on one window with nothing fixed, run until every frame is done; rolling inference,
// inpainting and replanning are the same engine with fixed positions and a schedule of which
// frames move (rollout.go, inpaint.go, replan.go).

// Rule is a sampler's per-frame step rule (the typed value of FrameSampler.Sampler). The rules are
// the package values Euler, GD, NAG, LGD, Budget, EarlyStop and DDIM; RuleByName and
// ParseSampler find them by the names the command line and notebooks use.
type Rule struct{ impl rule }

// The rules.
var (
	Euler     = Rule{eulerRule{}} // Flow Matching's Euler step (open loop, or closed loop on g_φ)
	GD        = Rule{gdRule{}}    // EqF gradient descent, open or closed loop
	NAG       = Rule{nagRule{}}   // EqF Nesterov momentum (App. H)
	LGD       = Rule{nagRule{lookaheadOnly: true}}
	Budget    = Rule{budgetRule{}}    // budget-adaptive: σ̂ over the steps left
	EarlyStop = Rule{earlyStopRule{}} // adaptive early stopping per chunk (App. C.1)
	DDIM      = Rule{ddimRule{}}      // the Diffusion baseline
)

// Name is the rule's registry name ("nag"); the zero Rule is "".
func (r Rule) Name() string {
	if r.impl == nil {
		return ""
	}
	return r.impl.name()
}

// String implements fmt.Stringer.
func (r Rule) String() string { return r.Name() }

// IsZero reports whether r is the zero Rule (no sampler chosen).
func (r Rule) IsZero() bool { return r.impl == nil }

// Sample runs the rule as a window sampler on x0: NAG.Sample is SampleNAG. A loop over Rules
// reaches every sampler this way.
func (r Rule) Sample(f Field, x0 *Window, opts Options) (*Result, error) {
	if r.IsZero() {
		return nil, paramErr("Rule", "unset", oneOf(Rules))
	}
	if r == EarlyStop { // a window sampler that stops adaptively also reads its step cap
		return sampleWindow(r, f, x0, opts, "MaxSteps")
	}
	return sampleWindow(r, f, x0, opts)
}

// Rules lists every rule by name.
var Rules = map[string]Rule{"euler": Euler, "gd": GD, "nag": NAG, "lgd": LGD, "budget": Budget, "earlystop": EarlyStop, "ddim": DDIM}

// RuleByName returns the rule registered under name.
func RuleByName(name string) (Rule, error) {
	r, ok := Rules[name]
	if !ok {
		return Rule{}, paramErr("sampler", name, oneOf(Rules))
	}
	return r, nil
}

// ParseSampler reads a sampler written the way the command line and the REPL write one:
//
//	name[:μ][,key=value…]      e.g. "nag:0.3,closed", "gd,warp=sd3", "earlystop:0.3,thresh=0.1,cleanup=2"
//
// A bare number after the colon is the momentum μ. Keys: mu, closed (no value, or true/false),
// warp (as ParseWarp reads it), step (a fixed StepSize), thresh (SigmaThresh), cleanup (Cleanup), depth
// (Depth). An option the rule does not read is an error, as everywhere.
func ParseSampler(spec string) (fs FrameSampler, err error) {
	defer catch(&err)
	name, rest, _ := strings.Cut(strings.TrimSpace(spec), ",")
	name, mu, hasMu := strings.Cut(name, ":")
	if fs.Sampler, err = RuleByName(name); err != nil {
		return FrameSampler{}, err
	}
	num := func(key, v string) (float64, error) {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, paramErr("sampler "+key, v, "a finite number")
		}
		return x, nil
	}
	if hasMu {
		if fs.Momentum, err = num("mu", mu); err != nil {
			return FrameSampler{}, err
		}
	}
	for _, kv := range strings.Split(rest, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, hasV := strings.Cut(kv, "=")
		var x float64
		switch k {
		case "closed":
			fs.ClosedLoop = true
			if hasV {
				if fs.ClosedLoop, err = strconv.ParseBool(v); err != nil {
					return FrameSampler{}, paramErr("sampler closed", v, "true or false")
				}
			}
			continue
		case "warp":
			if fs.Warp, err = ParseWarp(v); err != nil {
				return FrameSampler{}, err
			}
			continue
		case "mu", "step", "thresh", "cleanup", "depth":
			if x, err = num(k, v); err != nil {
				return FrameSampler{}, err
			}
		default:
			return FrameSampler{}, paramErr("sampler key", k, "one of mu, closed, warp, step, thresh, cleanup, depth")
		}
		switch k {
		case "mu":
			fs.Momentum = x
		case "step":
			fs.StepSize = x
		case "thresh":
			fs.SigmaThresh = x
		case "cleanup", "depth":
			if x != math.Trunc(x) || x < 1 || x > 1<<20 {
				return FrameSampler{}, paramErr("sampler "+k, v, "a whole number in [1, 2^20]")
			}
			if k == "cleanup" {
				fs.Cleanup = int(x)
			} else {
				fs.Depth = int(x)
			}
		}
	}
	if err := fs.Options.checkRead(fs.Sampler.Name()); err != nil {
		return FrameSampler{}, err
	}
	return fs, nil
}

// rule is what a sampler contributes to the loop. A rule keeps no state: the frame's state is a
// frameState, the run's parameters a runParams.
type rule interface {
	name() string
	// reads lists the Options fields the rule reads (FrameSampler's view; window samplers also
	// read Steps and Callback).
	reads() []string
	// check validates the rule's options against the field.
	check(f Field, o *Options) error
	// momentum returns μ for the look-ahead x − μ m and μ' that carries m into the next step
	// (NAG: μ' = μ; LGD: μ' = 0; plain steps: both 0).
	momentum(o *Options) (look, carry float64)
	// readout reports whether the step needs σ̂.
	readout(o *Options) bool
	// prepare precomputes what the rule needs for a run (DDIM's timesteps).
	prepare(r *runParams) error
	// plan decides a frame's step from its state, before the network runs.
	plan(r *runParams, st *frameState) plan
	// done reports whether a frame needs no more steps.
	done(r *runParams, st *frameState) bool
	// advance counts the step a frame just took.
	advance(r *runParams, st *frameState)
}

// chunkRule is a rule whose frames stop together per chunk (early stopping): after each step
// it sees the σ̂ of the frames that moved.
type chunkRule interface {
	settle(r *runParams, states []frameState, chunk []int, fixed []bool, T int, sigmaHat []float64, moved []bool)
}

// frameState is one frame's sampler state.
type frameState struct {
	steps   int     // steps taken (early stopping: adaptive steps)
	cleanup int     // early stopping: cleanup steps taken
	maxHat  float64 // early stopping: the chunk's largest σ̂ at its last adaptive step (1 at first)
}

func freshState() frameState { return frameState{maxHat: 1} }

// runParams is a rule's view of one run: its options and what they imply.
type runParams struct {
	o        Options
	n        int       // N: the steps from noise to data, the budget multipliers divide by
	maxSteps int       // early stopping: adaptive steps allowed (MaxSteps, else N)
	warp     Warp      // o.warp()
	levels   []float64 // ρ(i/N), i = 0…N
	sched    *DiffusionSchedule
	ks       []int // DDIM timesteps
}

func newRun(rl rule, o Options, n, maxSteps int) (*runParams, error) {
	r := &runParams{o: o, n: n, maxSteps: maxSteps, warp: o.warp()}
	var err error
	if r.levels, err = Levels(r.warp, n); err != nil {
		return nil, err
	}
	if err := rl.prepare(r); err != nil {
		return nil, err
	}
	return r, nil
}

// level is the scheduled σ of a frame that has taken c steps.
func (r *runParams) level(c int) float64 { return r.levels[min(c, r.n)] }

// betaFrom says how a step's multiplier β is formed.
type betaFrom uint8

const (
	betaFixed betaFrom = iota // β = value, known before the network runs
	betaEta                   // β = η(σ̂)/value (closed loop on the warp)
	betaHat                   // β = σ̂/value (re-planned from σ̂ over the steps left)
)

// plan is a frame's step as its rule decides it before the network runs.
type plan struct {
	level    float64  // the level fed to the field (σ, or DDIM's diffusion time)
	sched    float64  // the scheduled σ recorded (FM-equivalent for DDIM)
	alpha    float64  // x ← α x − m
	betaForm betaFrom // how β is formed
	betaArg  float64  // β itself (betaFixed) or its divisor (betaEta, betaHat)
	// levelFromSigmaHat records σ̂ as the level the step was computed from (closed loop); else level.
	levelFromSigmaHat bool
	// size, when not NaN, is the step size recorded instead of β (DDIM: the noise std removed).
	size float64
}

// beta is the multiplier for σ̂ (host path).
func (p *plan) beta(w Warp, sigmaHat float64) float64 {
	switch p.betaForm {
	case betaEta:
		return w.Eta(sigmaHat) / p.betaArg
	case betaHat:
		return sigmaHat / p.betaArg
	}
	return p.betaArg
}

// fixedPlan is the plan of an open-loop step of multiplier β at scheduled level σ.
func fixedPlan(sigma, beta float64) plan {
	return plan{level: sigma, sched: sigma, alpha: 1, betaForm: betaFixed, betaArg: beta, size: math.NaN()}
}

// noPrepare is the prepare of rules that precompute nothing.
type noPrepare struct{}

func (noPrepare) prepare(*runParams) error { return nil }

// stepsDone is the done rule of fixed-depth samplers.
type stepsDone struct{}

func (stepsDone) done(r *runParams, st *frameState) bool { return st.steps >= r.n }
func (stepsDone) advance(_ *runParams, st *frameState)   { st.steps++ }

// needReadoutIf returns a *MissingReadoutError when cond holds and f has no readout.
func needReadoutIf(cond bool, f Field, why string) error {
	if cond {
		return needReadout(f, why)
	}
	return nil
}
