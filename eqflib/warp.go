package eqflib

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // graph files dot-import graph.
)

// η warps (paper §4.3–4.4, App. G). A warp maps a noise level σ to a denoising speed η(σ) = A·η̃(σ);
// it induces the noise trajectory ρ(s) over solver time s ∈ [0, 1] (s = 0 noise, s = 1 data)
// through dρ/ds = −η(ρ). Warps here are normalised for unit solver time and exclude the 1/N
// step factor: a sampler with N steps multiplies by η(σ)/N.
//
// Transport warps (η(0) ≠ 0) reach σ = 0 at s = 1; attractor warps (η → 0 as σ → 0) stop at a
// terminal level σ_end > 0 and turn sampling into a fixed-point search.

// Default warp parameters (the paper's settings).
const (
	DefaultSD3Shift     = 3.0   // SD3 shift r (paper Table minecraft_inference_expts: r = 3)
	DefaultCAlpha       = 0.8   // c-function α (EqM's default)
	DefaultCSigmaEnd    = 1e-3  // c-function terminal level σ_end
	DefaultLogSNRMin    = -15.0 // linear log-SNR λ_min (noise side)
	DefaultLogSNRMax    = 15.0  // linear log-SNR λ_max (data side)
	DefaultTrapezoidPts = 4096  // points of the authors' trapezoid tabulation of the c-function
)

// Warp is an η warp with its induced schedule.
type Warp interface {
	// Name is a short description, e.g. "c(α=0.8, σ_end=0.001)".
	Name() string
	// Eta is the normalised denoising speed η(σ) for σ ∈ [0, 1].
	Eta(sigma float64) float64
	// Rho is the induced noise level at solver time s ∈ [0, 1]; Rho(0) is the start level
	// (1 for all but linear log-SNR) and Rho(1) = SigmaEnd().
	Rho(s float64) float64
	// Time is the solver time needed to travel from Rho(0) down to σ: ∫_σ^{ρ(0)} du/η(u).
	// Time(SigmaEnd()) = 1.
	Time(sigma float64) float64
	// SigmaEnd is the terminal level ρ(1): 0 for transports, σ_end > 0 for attractors.
	SigmaEnd() float64
	// Attractor reports whether η(σ) → 0 as σ → 0.
	Attractor() bool
	// EtaGraph is η inside a graph (closed-loop use on a readout's σ̂), elementwise.
	EtaGraph(sigma *Node) *Node
}

// Levels returns the open-loop noise levels ρ(i/N) for i = 0…N, from noise to data (the order
// a sampler visits them).
func Levels(w Warp, n int) ([]float64, error) {
	if n < 1 {
		return nil, paramErr("N", n, "≥ 1")
	}
	if w == nil {
		return nil, paramErr("warp", "nil", "a Warp")
	}
	out := make([]float64, n+1)
	for i := range out {
		out[i] = w.Rho(float64(i) / float64(n))
	}
	return out, nil
}

// ---------------------------------------------------------------------------------------------
// Identity: η = 1, ρ(s) = 1 − s (transport; evenly spaced steps).

type identityWarp struct{}

// IdentityWarp returns the identity warp η(σ) = 1.
func IdentityWarp() Warp { return identityWarp{} }

func (identityWarp) Name() string               { return "identity" }
func (identityWarp) Eta(float64) float64        { return 1 }
func (identityWarp) Rho(s float64) float64      { return 1 - s }
func (identityWarp) Time(sigma float64) float64 { return 1 - sigma }
func (identityWarp) SigmaEnd() float64          { return 0 }
func (identityWarp) Attractor() bool            { return false }
func (identityWarp) EtaGraph(sigma *Node) *Node { return OnesLike(sigma) }
func (identityWarp) String() string             { return "identity" }

// ---------------------------------------------------------------------------------------------
// SD3 shift r: η(σ) = (r − (r−1)σ)²/r, ρ(s) = r(1−s)/(r − (r−1)s) (transport).

type sd3Warp struct{ r float64 }

// SD3Warp returns the SD3 time-shift warp with shift r > 0. η(1) = 1/r, η(0) = r.
func SD3Warp(r float64) (Warp, error) {
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, paramErr("r", r, "> 0 and finite")
	}
	return sd3Warp{r}, nil
}

func (w sd3Warp) Name() string { return fmt.Sprintf("sd3(r=%g)", w.r) }
func (w sd3Warp) Eta(sigma float64) float64 {
	a := w.r - (w.r-1)*sigma
	return a * a / w.r
}
func (w sd3Warp) Rho(s float64) float64 { return w.r * (1 - s) / (w.r - (w.r-1)*s) }
func (w sd3Warp) Time(sigma float64) float64 {
	// ∫_σ^1 r/(r − a u)² du with a = r − 1.
	a := w.r - 1
	if a == 0 {
		return 1 - sigma
	}
	return w.r / a * (1 - 1/(w.r-a*sigma))
}
func (w sd3Warp) SigmaEnd() float64 { return 0 }
func (w sd3Warp) Attractor() bool   { return false }
func (w sd3Warp) EtaGraph(sigma *Node) *Node {
	a := AddScalar(MulScalar(sigma, -(w.r-1)), w.r)
	return MulScalar(Square(a), 1/w.r)
}

// ---------------------------------------------------------------------------------------------
// c-function (EqM's shape): η(σ) = A_α·min(1, σ/(1−α)), normalised so that T(σ_end) = 1:
// A_α = ∫_{σ_end}^1 du/c̃(u) = α + (1−α)·ln((1−α)/σ_end)  (= 0.2·ln 200 + 0.8 for the defaults).
// ρ(s) = 1 − A s until σ = 1−α, then (1−α)·exp(−A(s − s₁)/(1−α)), reaching σ_end at s = 1.

// CFunction is the c-function warp. Build it with CFunctionWarp (analytic A and ρ) or
// TabulatedCFunctionWarp (the authors' numerics: trapezoid A on a grid and interpolated ρ).
type CFunction struct {
	Alpha, End, A float64
	// tabulated schedule (nil for the analytic warp): solver time sTab[j] (descending) at
	// levels tTab[j] (ascending), as the authors' implementation builds it.
	sTab, tTab []float64
}

func checkCArgs(alpha, sigmaEnd float64) error {
	if !(alpha > 0 && alpha < 1) {
		return paramErr("alpha", alpha, "in (0, 1)")
	}
	if !(sigmaEnd > 0 && sigmaEnd < 1) {
		return paramErr("sigmaEnd", sigmaEnd, "in (0, 1)")
	}
	if sigmaEnd >= 1-alpha {
		return paramErr("sigmaEnd", sigmaEnd, fmt.Sprintf("< 1 − alpha = %g (the c-function's linear part)", 1-alpha))
	}
	return nil
}

// CFunctionWarp returns the c-function warp with the analytic normalisation
// A_α = α + (1−α)·ln((1−α)/σ_end) and the exact induced ρ.
func CFunctionWarp(alpha, sigmaEnd float64) (*CFunction, error) {
	if err := checkCArgs(alpha, sigmaEnd); err != nil {
		return nil, err
	}
	return &CFunction{Alpha: alpha, End: sigmaEnd, A: alpha + (1-alpha)*math.Log((1-alpha)/sigmaEnd)}, nil
}

// TabulatedCFunctionWarp reproduces the authors' release: A is the trapezoid rule of 1/c̃ on
// `points` evenly spaced levels in [σ_end, 1] (1.86065 for the defaults and 4096 points, against
// the exact 1.859663), and ρ(s) is the linear interpolation of that tabulation, clamped to
// [σ_end, 1]. Its N = 10 levels are the golden grid of TestGoldenLevelGrids (derivation in docs/derivations.md).
func TabulatedCFunctionWarp(alpha, sigmaEnd float64, points int) (*CFunction, error) {
	if err := checkCArgs(alpha, sigmaEnd); err != nil {
		return nil, err
	}
	if points < 2 {
		return nil, paramErr("points", points, "≥ 2")
	}
	c := &CFunction{Alpha: alpha, End: sigmaEnd}
	t := make([]float64, points)
	cum := make([]float64, points)
	for i := range t {
		t[i] = sigmaEnd + (1-sigmaEnd)*float64(i)/float64(points-1)
	}
	for i := 1; i < points; i++ {
		cum[i] = cum[i-1] + 0.5*(1/c.shape(t[i-1])+1/c.shape(t[i]))*(t[i]-t[i-1])
	}
	c.A = cum[points-1]
	c.sTab = make([]float64, points)
	for i := range cum {
		c.sTab[i] = math.Min(math.Max((c.A-cum[i])/c.A, 0), 1)
	}
	c.tTab = t
	return c, nil
}

// shape is the unnormalised c̃(σ) = min(1, σ/(1−α)).
func (c *CFunction) shape(sigma float64) float64 { return math.Min(1, sigma/(1-c.Alpha)) }

func (c *CFunction) Name() string {
	kind := ""
	if c.sTab != nil {
		kind = fmt.Sprintf(", trapezoid %d", len(c.sTab))
	}
	return fmt.Sprintf("c(α=%g, σ_end=%g%s)", c.Alpha, c.End, kind)
}
func (c *CFunction) Eta(sigma float64) float64 { return c.A * c.shape(sigma) }
func (c *CFunction) SigmaEnd() float64         { return c.End }
func (c *CFunction) Attractor() bool           { return true }
func (c *CFunction) Rho(s float64) float64 {
	if c.sTab != nil {
		return c.rhoTabulated(s)
	}
	knee := 1 - c.Alpha
	s1 := c.Alpha / c.A // time at which ρ reaches the knee 1−α
	if s <= s1 {
		return 1 - c.A*s
	}
	return knee * math.Exp(-c.A*(s-s1)/knee)
}
func (c *CFunction) Time(sigma float64) float64 {
	knee := 1 - c.Alpha
	if sigma >= knee {
		return (1 - sigma) / c.A
	}
	return (c.Alpha + knee*math.Log(knee/sigma)) / c.A
}
func (c *CFunction) EtaGraph(sigma *Node) *Node {
	return MulScalar(MinScalar(MulScalar(sigma, 1/(1-c.Alpha)), 1.0), c.A)
}

// rhoTabulated inverts the tabulated s(t) by linear interpolation (ascending in s).
func (c *CFunction) rhoTabulated(s float64) float64 {
	n := len(c.sTab)
	// sTab is descending in the index; walk it reversed as an ascending x.
	x := func(j int) float64 { return c.sTab[n-1-j] }
	y := func(j int) float64 { return c.tTab[n-1-j] }
	q := math.Min(math.Max(s, x(0)), x(n-1))
	j := sort.Search(n, func(j int) bool { return x(j) >= q })
	j = min(max(j, 1), n-1)
	lo, hi := j-1, j
	w := (q - x(lo)) / math.Max(x(hi)-x(lo), 1e-12)
	r := y(lo) + w*(y(hi)-y(lo))
	return math.Min(math.Max(r, c.End), 1)
}

// ---------------------------------------------------------------------------------------------
// Linear log-SNR: λ̄(s) = λmin + s(λmax − λmin), ρ(s) = 1/(1 + exp(λ̄(s)/2)),
// η(σ) = (λmax − λmin)/2 · σ(1−σ) (attractor; also vanishes at σ = 1, so ρ(0) < 1).

type logSNRWarp struct{ lmin, lmax float64 }

// LinearLogSNRWarp returns the linear log-SNR warp between λmin (noise side) and λmax (data side).
func LinearLogSNRWarp(lambdaMin, lambdaMax float64) (Warp, error) {
	if math.IsNaN(lambdaMin) || math.IsInf(lambdaMin, 0) {
		return nil, paramErr("lambdaMin", lambdaMin, "finite")
	}
	if math.IsNaN(lambdaMax) || math.IsInf(lambdaMax, 0) {
		return nil, paramErr("lambdaMax", lambdaMax, "finite")
	}
	if !(lambdaMin < lambdaMax) {
		return nil, paramErr("lambdaMin", lambdaMin, fmt.Sprintf("< lambdaMax = %g", lambdaMax))
	}
	return logSNRWarp{lambdaMin, lambdaMax}, nil
}

// LogSNR is the rectified-flow log signal-to-noise ratio λ(σ) = 2 log((1−σ)/σ).
func LogSNR(sigma float64) float64 { return 2 * math.Log((1-sigma)/sigma) }

// SigmaFromLogSNR inverts LogSNR: σ = 1/(1 + exp(ℓ/2)).
func SigmaFromLogSNR(l float64) float64 { return SigmaFromLogit(-l / 2) }

func (w logSNRWarp) Name() string {
	return fmt.Sprintf("logsnr(λ=%g…%g)", w.lmin, w.lmax)
}
func (w logSNRWarp) k() float64                { return (w.lmax - w.lmin) / 2 }
func (w logSNRWarp) Eta(sigma float64) float64 { return w.k() * sigma * (1 - sigma) }
func (w logSNRWarp) Rho(s float64) float64 {
	return SigmaFromLogSNR(w.lmin + s*(w.lmax-w.lmin))
}
func (w logSNRWarp) Time(sigma float64) float64 {
	return (LogSNR(sigma) - w.lmin) / (w.lmax - w.lmin)
}
func (w logSNRWarp) SigmaEnd() float64 { return w.Rho(1) }
func (w logSNRWarp) Attractor() bool   { return true }
func (w logSNRWarp) EtaGraph(sigma *Node) *Node {
	return MulScalar(Mul(sigma, OneMinus(sigma)), w.k())
}

// ---------------------------------------------------------------------------------------------

// ParseWarp builds a warp from a short spec, as used by the command line and notebooks:
// "identity", "sd3" or "sd3:R", "c" or "c:ALPHA" or "c:ALPHA:SIGMA_END", "c-trapezoid[:…]",
// "logsnr" or "logsnr:LMIN:LMAX". Defaults are the Default* constants.
func ParseWarp(spec string) (Warp, error) {
	parts := strings.Split(strings.TrimSpace(spec), ":")
	args := make([]float64, len(parts)-1)
	for i, p := range parts[1:] {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, paramErr("warp", spec, "a number after each ':' (e.g. \"c:0.8:0.001\")")
		}
		args[i] = v
	}
	arg := func(i int, def float64) float64 {
		if i < len(args) {
			return args[i]
		}
		return def
	}
	maxArgs := map[string]int{"identity": 0, "sd3": 1, "c": 2, "c-trapezoid": 2, "logsnr": 2}
	m, ok := maxArgs[parts[0]]
	if !ok {
		return nil, paramErr("warp", spec, `one of "identity", "sd3[:r]", "c[:alpha[:sigmaEnd]]", "c-trapezoid[:alpha[:sigmaEnd]]", "logsnr[:lambdaMin:lambdaMax]"`)
	}
	if len(args) > m {
		return nil, paramErr("warp", spec, fmt.Sprintf("at most %d numbers after %q", m, parts[0]))
	}
	switch parts[0] {
	case "identity":
		return IdentityWarp(), nil
	case "sd3":
		return SD3Warp(arg(0, DefaultSD3Shift))
	case "c":
		return asWarp(CFunctionWarp(arg(0, DefaultCAlpha), arg(1, DefaultCSigmaEnd)))
	case "c-trapezoid":
		return asWarp(TabulatedCFunctionWarp(arg(0, DefaultCAlpha), arg(1, DefaultCSigmaEnd), DefaultTrapezoidPts))
	default: // logsnr
		return LinearLogSNRWarp(arg(0, DefaultLogSNRMin), arg(1, DefaultLogSNRMax))
	}
}

// asWarp avoids returning a typed nil pointer inside a non-nil Warp interface.
func asWarp(c *CFunction, err error) (Warp, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}
