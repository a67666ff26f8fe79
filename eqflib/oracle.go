package eqflib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// The exact oracle (ours, not in the paper; docs/derivations.md): for Gaussian-mixture data every Bayes-optimal field is closed form,
// and the noise-unconditional ones are 1-D integrals over the posterior p(σ | x^σ). This is the
// library's ground truth for sampler tests and teaching notebooks.
//
// For one component N(m, s²I_d) and an input z = a·x + b·ε (a = 1−σ, b = σ for flows; a = √ᾱ,
// b = √(1−ᾱ) for Diffusion), with κ = a²s² + b² and r = z − a·m:
//
//	E[ε | z] = b·r/κ,   E[x | z] = m + a·s²·r/κ,
//
// so a target te·ε + ta·x has conditional mean β·r + ta·m with β = (te·b + ta·a·s²)/κ. A mixture
// weighs its components by their responsibilities. The EqF optimum averages the FM optimum over
// p(σ | x^σ) ∝ Σ_k π_k N(x^σ; (1−σ)m_k, κ_k I) (uniform prior on σ), computed by quadrature on
// an adaptively refined grid.

// Mixture is Gaussian-mixture data Σ_k π_k N(m_k, s_k² I_d) on frames of dimension d = C·H·W.
type Mixture struct {
	Weights []float64   // π_k, summing to 1
	Means   [][]float64 // m_k, each of length d
	Stds    []float64   // s_k > 0

	logW []float64
	mm   []float64 // ‖m_k‖²
}

// NewGaussian returns the single Gaussian N(mean, std² I).
func NewGaussian(mean []float64, std float64) (*Mixture, error) {
	return NewMixture([]float64{1}, [][]float64{mean}, []float64{std})
}

// NewMixture returns a Gaussian mixture; weights are normalised to sum to 1.
func NewMixture(weights []float64, means [][]float64, stds []float64) (*Mixture, error) {
	k := len(weights)
	if k < 1 {
		return nil, paramErr("weights", "empty", "at least one component")
	}
	if len(means) != k || len(stds) != k {
		return nil, paramErr("means/stds", fmt.Sprintf("%d/%d components", len(means), len(stds)), fmt.Sprintf("%d components, like weights", k))
	}
	d := len(means[0])
	if d < 1 {
		return nil, paramErr("means[0]", "empty", "dimension ≥ 1")
	}
	var sum float64
	for i, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, paramErr(fmt.Sprintf("weights[%d]", i), w, "> 0 and finite")
		}
		sum += w
		if len(means[i]) != d {
			return nil, paramErr(fmt.Sprintf("means[%d]", i), fmt.Sprintf("len %d", len(means[i])), fmt.Sprintf("len %d like means[0]", d))
		}
		if !(stds[i] > 0) || math.IsInf(stds[i], 0) {
			return nil, paramErr(fmt.Sprintf("stds[%d]", i), stds[i], "> 0 and finite")
		}
	}
	m := &Mixture{Stds: append([]float64(nil), stds...)}
	for i := range weights {
		w := weights[i] / sum
		m.Weights = append(m.Weights, w)
		m.logW = append(m.logW, math.Log(w))
		m.Means = append(m.Means, append([]float64(nil), means[i]...))
		m.mm = append(m.mm, dot(means[i], means[i]))
	}
	return m, nil
}

// Dim is the frame dimension d.
func (m *Mixture) Dim() int {
	if len(m.Means) == 0 {
		return 0 // the zero Mixture (NewMixture builds valid ones)
	}
	return len(m.Means[0])
}

// Sample draws a window whose frames are i.i.d. draws from the mixture; C·H·W must equal Dim().
func (m *Mixture) Sample(rng *rand.Rand, b, t, c, h, w int) (*Window, error) {
	if err := checkRNG(rng); err != nil {
		return nil, err
	}
	x, err := NewWindow(b, t, c, h, w)
	if err != nil {
		return nil, err
	}
	if x.FrameSize() != m.Dim() {
		return nil, paramErr("C·H·W", x.FrameSize(), fmt.Sprintf("= %d, the mixture's dimension", m.Dim()))
	}
	cum := make([]float64, len(m.Weights))
	acc := 0.0
	for i, w := range m.Weights {
		acc += w
		cum[i] = acc
	}
	for f := 0; f < x.NumFrames(); f++ {
		u, k := rng.Float64(), 0
		for k < len(cum)-1 && u > cum[k] {
			k++
		}
		fr := x.Frame(f)
		for i := range fr {
			fr[i] = m.Means[k][i] + m.Stds[k]*rng.NormFloat64()
		}
	}
	return x, nil
}

// MeanVariance returns the mixture's overall mean vector's average and its per-coordinate
// variance averaged over coordinates (what Window.Moments of samples estimates after centring
// is not applied): mean = avg_i E[x_i], var = avg_i Var[x_i] computed around each coordinate's mean.
func (m *Mixture) MeanVariance() (meanAvg, varAvg float64) {
	d := m.Dim()
	if d == 0 {
		return math.NaN(), math.NaN()
	}
	for i := 0; i < d; i++ {
		var mu, second float64
		for k, w := range m.Weights {
			mu += w * m.Means[k][i]
			second += w * (m.Stds[k]*m.Stds[k] + m.Means[k][i]*m.Means[k][i])
		}
		meanAvg += mu
		varAvg += second - mu*mu
	}
	return meanAvg / float64(d), varAvg / float64(d)
}

// ---------------------------------------------------------------------------------------------

// OracleKind selects which Bayes-optimal field an Oracle evaluates.
type OracleKind int

const (
	OracleFM        OracleKind = iota // f*_FM(x, σ) = E[v | x^σ, σ]
	OracleEqF                         // f*_EqF(x) = E_σ|x[f*_FM(x, σ)]
	OracleEqM                         // f*_EqM(x) = E_σ|x[c(σ) f*_FM(x, σ)]
	OracleDiffusion                   // DDPM v-prediction at diffusion time t
)

// ReadoutKind selects the oracle's "perfect readout" statistic of p(σ | x).
type ReadoutKind int

const (
	ReadoutMode ReadoutKind = iota // posterior mode (what h_ω is meant to predict)
	ReadoutMean                    // posterior mean
)

// Oracle is an exact Field (and NoiseEstimator) for Mixture data.
type Oracle struct {
	Data                *Mixture
	Kind                OracleKind
	Readout             ReadoutKind
	EqMLambda, EqMAlpha float64            // for OracleEqM
	Schedule            *DiffusionSchedule // for OracleDiffusion

	tableOnce sync.Once
	table     *nodeTable
}

// NewOracle returns the oracle of the given kind with the paper's defaults.
func NewOracle(data *Mixture, kind OracleKind) (*Oracle, error) {
	if data == nil {
		return nil, paramErr("data", "nil", "a *Mixture")
	}
	if kind < OracleFM || kind > OracleDiffusion {
		return nil, paramErr("kind", int(kind), "one of OracleFM, OracleEqF, OracleEqM, OracleDiffusion")
	}
	o := &Oracle{Data: data, Kind: kind, EqMLambda: DefaultEqMLambda, EqMAlpha: DefaultEqMAlpha}
	if kind == OracleDiffusion {
		o.Schedule = DefaultDiffusion()
	}
	return o, nil
}

// Info implements Field.
func (o *Oracle) Info() FieldInfo {
	names := [...]string{"oracle-fm", "oracle-eqf", "oracle-eqm", "oracle-diffusion"}
	return FieldInfo{
		Name:             names[o.Kind],
		NoiseConditional: o.Kind == OracleFM || o.Kind == OracleDiffusion,
		Diffusion:        o.Kind == OracleDiffusion,
		HasReadout:       true,
	}
}

// Eval implements Field. The readout is the exact posterior mode (or mean) of σ given the frame,
// for every kind (for Diffusion fields too, in flow σ units).
func (o *Oracle) Eval(x *Window, level []float64, opts EvalOptions) (*Output, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if x.FrameSize() != o.Data.Dim() {
		return nil, paramErr("x: C·H·W", x.FrameSize(), fmt.Sprintf("= %d, the oracle's dimension", o.Data.Dim()))
	}
	if o.Info().NoiseConditional {
		if err := perFrame("level", x, level); err != nil {
			return nil, err
		}
		for _, l := range level {
			if !(l >= 0 && l <= 1) {
				return nil, paramErr("level", l, "in [0, 1]")
			}
		}
	}
	if opts.Activations {
		return nil, paramErr("EvalOptions.Activations", true, "false: the oracle has no activations")
	}
	out := &Output{V: NewWindowLike(x)}
	if opts.Readout {
		out.SigmaHat = make([]float64, x.NumFrames())
	}
	parallelFrames(x.NumFrames(), func(f int) {
		xf := x.Frame(f)
		st := o.stats(xf)
		var post *Posterior
		if opts.Readout || o.Kind == OracleEqF || o.Kind == OracleEqM {
			post = o.posterior(st)
		}
		var coefX float64
		coefM := make([]float64, len(o.Data.Weights))
		switch o.Kind {
		case OracleFM:
			coefX = o.conditional(st, 1-level[f], level[f], 1, -1, coefM)
		case OracleDiffusion:
			a, b := o.Schedule.AlphaSigma(level[f])
			coefX = o.conditional(st, a, b, a, -b, coefM)
		default:
			nk := len(o.Data.Weights)
			for j, s := range post.Sigma {
				if post.Weight[j] < 1e-300 {
					continue
				}
				c := 1.0
				if o.Kind == OracleEqM {
					c = EqMScale(s, o.EqMLambda, o.EqMAlpha)
				}
				coefX += o.condCoeffs(1-s, s, c, -c, post.Weight[j], post.ll[j*nk:(j+1)*nk], post.logP[j], coefM)
			}
		}
		vf := out.V.Frame(f)
		for i := range vf {
			vf[i] = coefX * xf[i]
		}
		for k, c := range coefM {
			if c != 0 {
				mk := o.Data.Means[k]
				for i := range vf {
					vf[i] += c * mk[i]
				}
			}
		}
		if opts.Readout {
			out.SigmaHat[f] = post.estimate(o.Readout)
		}
	})
	return out, nil
}

// EstimateSigma implements NoiseEstimator with the exact posterior mode (or mean) per frame.
func (o *Oracle) EstimateSigma(x *Window) ([]float64, error) {
	if err := x.Validate("x"); err != nil {
		return nil, err
	}
	if x.FrameSize() != o.Data.Dim() {
		return nil, paramErr("x: C·H·W", x.FrameSize(), fmt.Sprintf("= %d, the oracle's dimension", o.Data.Dim()))
	}
	out := make([]float64, x.NumFrames())
	parallelFrames(x.NumFrames(), func(f int) {
		out[f] = o.posterior(o.stats(x.Frame(f))).estimate(o.Readout)
	})
	return out, nil
}

// SigmaPosterior returns p(σ | frame) on its quadrature grid.
func (o *Oracle) SigmaPosterior(frame []float64) (*Posterior, error) {
	if o.Data == nil || len(o.Data.Means) == 0 {
		return nil, paramErr("Oracle.Data", "nil", "a *Mixture (NewOracle)")
	}
	if len(frame) != o.Data.Dim() {
		return nil, paramErr("frame", fmt.Sprintf("len %d", len(frame)), fmt.Sprintf("len %d", o.Data.Dim()))
	}
	return o.posterior(o.stats(frame)), nil
}

// frameStats are the sufficient statistics of a frame: ‖x‖², x·m_k and d.
type frameStats struct {
	xx float64
	xm []float64
	d  float64
}

func (o *Oracle) stats(x []float64) frameStats {
	st := frameStats{xx: dot(x, x), xm: make([]float64, len(o.Data.Means)), d: float64(len(x))}
	for k, m := range o.Data.Means {
		st.xm[k] = dot(x, m)
	}
	return st
}

// componentLogLik returns log π_k + log N(z; a m_k, κ_k I) for component k.
func (o *Oracle) componentLogLik(st frameStats, k int, a, b float64) float64 {
	s := o.Data.Stds[k]
	kappa := a*a*s*s + b*b
	rr := st.xx - 2*a*st.xm[k] + a*a*o.Data.mm[k]
	return o.Data.logW[k] - 0.5*st.d*math.Log(2*math.Pi*kappa) - 0.5*rr/kappa
}

// componentLogLiks fills ll[k] with componentLogLik for every k and returns their log-sum-exp.
func (o *Oracle) componentLogLiks(st frameStats, a, b float64, ll []float64) float64 {
	maxLL := math.Inf(-1)
	for k := range ll {
		ll[k] = o.componentLogLik(st, k, a, b)
		maxLL = math.Max(maxLL, ll[k])
	}
	if len(ll) == 1 {
		return ll[0]
	}
	var sum float64
	for _, l := range ll {
		sum += math.Exp(l - maxLL)
	}
	return maxLL + math.Log(sum)
}

// tabulatedLogLiks is componentLogLiks at first-level node j, from the node table.
func (o *Oracle) tabulatedLogLiks(st frameStats, t *nodeTable, j int, a float64, ll []float64) float64 {
	nk := len(ll)
	maxLL := math.Inf(-1)
	for k := range ll {
		rr := st.xx - 2*a*st.xm[k] + a*a*o.Data.mm[k]
		ll[k] = t.logNorm[j*nk+k] - 0.5*rr*t.invKappa[j*nk+k]
		maxLL = math.Max(maxLL, ll[k])
	}
	if nk == 1 {
		return ll[0]
	}
	var sum float64
	for _, l := range ll {
		sum += math.Exp(l - maxLL)
	}
	return maxLL + math.Log(sum)
}

// condCoeffs adds weight·E[te·ε + ta·x | z] for z = a·x + b·ε to the output coefficients: it
// returns weight·(the coefficient on z) and adds the coefficients on each m_k to coefM. ll holds
// the component log-likelihoods at (a, b) and logSum their log-sum-exp.
func (o *Oracle) condCoeffs(a, b, te, ta, weight float64, ll []float64, logSum float64, coefM []float64) float64 {
	var coefX float64
	for k, l := range ll {
		g := weight
		if len(ll) > 1 {
			g *= math.Exp(l - logSum) // responsibility γ_k
		}
		s := o.Data.Stds[k]
		beta := (te*b + ta*a*s*s) / (a*a*s*s + b*b)
		coefX += g * beta
		coefM[k] += g * (ta - a*beta)
	}
	return coefX
}

// conditional returns E[te·ε + ta·x | z] coefficients at a single (a, b).
func (o *Oracle) conditional(st frameStats, a, b, te, ta float64, coefM []float64) float64 {
	ll := make([]float64, len(o.Data.Weights))
	logSum := o.componentLogLiks(st, a, b, ll)
	return o.condCoeffs(a, b, te, ta, 1, ll, logSum, coefM)
}

// Posterior is p(σ | x) on a quadrature grid: nodes and normalised quadrature weights.
type Posterior struct {
	Sigma  []float64
	Weight []float64
	logP   []float64 // log p(x | σ) at the nodes
	ll     []float64 // component log-likelihoods, K per node
}

// Mean is the posterior mean of σ, Σ_j w_j σ_j over the grid.
func (p *Posterior) Mean() float64 {
	var m float64
	for j, s := range p.Sigma {
		m += p.Weight[j] * s
	}
	return m
}

// Std is the posterior standard deviation of σ over the grid.
func (p *Posterior) Std() float64 {
	m := p.Mean()
	var v float64
	for j, s := range p.Sigma {
		v += p.Weight[j] * (s - m) * (s - m)
	}
	return math.Sqrt(v)
}

// Mode is the maximiser of the density, refined by a parabola through the best node and its
// neighbours, and clamped to [0, 1].
func (p *Posterior) Mode() float64 {
	if len(p.logP) == 0 {
		return math.NaN() // the zero Posterior: no grid (SigmaPosterior builds valid ones)
	}
	best := 0
	for j := range p.logP {
		if p.logP[j] > p.logP[best] {
			best = j
		}
	}
	if best == 0 || best == len(p.logP)-1 {
		return p.Sigma[best]
	}
	x0, x1, x2 := p.Sigma[best-1], p.Sigma[best], p.Sigma[best+1]
	y0, y1, y2 := p.logP[best-1], p.logP[best], p.logP[best+1]
	// Vertex of the parabola through the three points.
	num := (x1-x0)*(x1-x0)*(y1-y2) - (x1-x2)*(x1-x2)*(y1-y0)
	den := (x1-x0)*(y1-y2) - (x1-x2)*(y1-y0)
	if den == 0 {
		return x1
	}
	v := x1 - 0.5*num/den
	if v < x0 || v > x2 {
		return x1
	}
	return math.Min(math.Max(v, 0), 1)
}

func (p *Posterior) estimate(k ReadoutKind) float64 {
	if k == ReadoutMean {
		return p.Mean()
	}
	return p.Mode()
}

// Quadrature of the posterior: composite 4-point Gauss–Legendre on posteriorPanels panels over
// [0, 1] at the first level and refinePanels panels per refined interval. While fewer than
// posteriorResolve nodes lie within 2 nats of the maximum (the posterior is narrower than the
// panels), the panels holding mass within posteriorKeep nats of the maximum (and their
// neighbours) are subdivided again, as long as that at least halves the region.
const (
	posteriorPanels  = 32
	refinePanels     = 16
	posteriorKeep    = 40.0
	posteriorResolve = 12
	posteriorDepth   = 8
)

var (
	glNodes   = [4]float64{-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526}
	glWeights = [4]float64{0.3478548451374838, 0.6521451548625461, 0.6521451548625461, 0.3478548451374838}
)

type interval struct{ lo, hi float64 }

// nodeTable caches the x-independent part of the component log-likelihoods at the first-level
// quadrature nodes, which every frame shares: log π_k − d/2·log(2πκ_k(σ_j)) and 1/κ_k(σ_j).
type nodeTable struct {
	logNorm, invKappa []float64 // K per node
}

// splitAtKinks splits intervals at the kink σ = 1−α of EqM's c(σ), so that no Gauss–Legendre
// panel straddles it (the quadrature would drop to second order there).
func (o *Oracle) splitAtKinks(ivs []interval) []interval {
	if o.Kind != OracleEqM {
		return ivs
	}
	knee := 1 - o.EqMAlpha
	var out []interval
	for _, iv := range ivs {
		if iv.lo < knee && knee < iv.hi {
			out = append(out, interval{iv.lo, knee}, interval{knee, iv.hi})
		} else {
			out = append(out, iv)
		}
	}
	return out
}

// forEachNode calls fn(j, σ_j, w_j) for the composite Gauss–Legendre nodes over the intervals,
// with `panels` panels per interval.
func forEachNode(ivs []interval, panels int, fn func(j int, s, w float64)) {
	j := 0
	for _, iv := range ivs {
		h := (iv.hi - iv.lo) / float64(panels)
		for q := 0; q < panels; q++ {
			lo := iv.lo + float64(q)*h
			for g := range glNodes {
				fn(j, lo+0.5*h*(glNodes[g]+1), 0.5*h*glWeights[g])
				j++
			}
		}
	}
}

func (o *Oracle) firstLevel() *nodeTable {
	o.tableOnce.Do(func() {
		nk := len(o.Data.Weights)
		d := float64(o.Data.Dim())
		ivs := o.splitAtKinks([]interval{{0, 1}})
		n := len(ivs) * posteriorPanels * 4
		t := &nodeTable{logNorm: make([]float64, n*nk), invKappa: make([]float64, n*nk)}
		forEachNode(ivs, posteriorPanels, func(j int, s, _ float64) {
			for k := 0; k < nk; k++ {
				sk := o.Data.Stds[k]
				kappa := (1-s)*(1-s)*sk*sk + s*s
				t.logNorm[j*nk+k] = o.Data.logW[k] - 0.5*d*math.Log(2*math.Pi*kappa)
				t.invKappa[j*nk+k] = 1 / kappa
			}
		})
		o.table = t
	})
	return o.table
}

func (o *Oracle) posterior(st frameStats) *Posterior {
	nk := len(o.Data.Weights)
	table := o.firstLevel()
	intervals := o.splitAtKinks([]interval{{0, 1}})
	for depth := 0; ; depth++ {
		panels := posteriorPanels
		if depth > 0 {
			panels = refinePanels
		}
		nNodes := len(intervals) * panels * 4
		p := &Posterior{Sigma: make([]float64, nNodes), Weight: make([]float64, nNodes), logP: make([]float64, nNodes), ll: make([]float64, nNodes*nk)}
		forEachNode(intervals, panels, func(j int, s, w float64) {
			p.Sigma[j], p.Weight[j] = s, w
			if depth == 0 {
				p.logP[j] = o.tabulatedLogLiks(st, table, j, 1-s, p.ll[j*nk:(j+1)*nk])
			} else {
				p.logP[j] = o.componentLogLiks(st, 1-s, s, p.ll[j*nk:(j+1)*nk])
			}
		})
		panelLo := make([]float64, 0, nNodes/4)
		panelHi := make([]float64, 0, nNodes/4)
		for _, iv := range intervals {
			h := (iv.hi - iv.lo) / float64(panels)
			for q := 0; q < panels; q++ {
				panelLo, panelHi = append(panelLo, iv.lo+float64(q)*h), append(panelHi, iv.lo+float64(q+1)*h)
			}
		}
		maxL := math.Inf(-1)
		for _, l := range p.logP {
			maxL = math.Max(maxL, l)
		}
		near := 0
		for _, l := range p.logP {
			if l > maxL-2 {
				near++
			}
		}
		// Panels holding mass within posteriorKeep nats of the maximum, and their neighbours,
		// merged into intervals.
		nPanels := len(panelLo)
		keep := make([]bool, nPanels)
		for q := 0; q < nPanels; q++ {
			for g := 0; g < 4; g++ {
				if p.logP[4*q+g] > maxL-posteriorKeep {
					for _, r := range []int{q - 1, q, q + 1} {
						if r >= 0 && r < nPanels {
							keep[r] = true
						}
					}
				}
			}
		}
		var next []interval
		var curLen, nextLen float64
		for _, iv := range intervals {
			curLen += iv.hi - iv.lo
		}
		for q := 0; q < nPanels; q++ {
			if !keep[q] {
				continue
			}
			nextLen += panelHi[q] - panelLo[q]
			if n := len(next); n > 0 && math.Abs(next[n-1].hi-panelLo[q]) < 1e-15 {
				next[n-1].hi = panelHi[q]
			} else {
				next = append(next, interval{panelLo[q], panelHi[q]})
			}
		}
		// Stop when the peak is resolved, or when refining would not focus the grid any more
		// (a posterior that falls off linearly in log density from a boundary keeps a region
		// ~20× wider than its 2-nat core), or at the depth limit.
		if near >= posteriorResolve || nextLen > 0.5*curLen || depth == posteriorDepth {
			var z float64
			for j, l := range p.logP {
				p.Weight[j] *= math.Exp(l - maxL)
				z += p.Weight[j]
			}
			for j := range p.Weight {
				p.Weight[j] /= z
			}
			return p
		}
		intervals = o.splitAtKinks(next)
	}
}

// ---------------------------------------------------------------------------------------------

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// parallelFrames runs fn(f) for f in [0, n) on GOMAXPROCS goroutines.
func parallelFrames(n int, fn func(f int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for f := 0; f < n; f++ {
			fn(f)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for f := 0; f < n; f++ {
		next <- f
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				fn(f)
			}
		}()
	}
	wg.Wait()
}

// MomentReport compares samples with the mixture's per-coordinate moments.
type MomentReport struct {
	// MeanErr is the average over coordinates of (sample mean − true mean), in units of the
	// data's standard deviation (√ of the average per-coordinate variance).
	MeanErr float64
	// Slope regresses the per-coordinate sample means on the true means (1 is exact; > 1 means
	// the samples went past the data, < 1 that noise is left). NaN when all true means are 0.
	Slope float64
	// VarRatio is Σ_i sample var_i / Σ_i true var_i.
	VarRatio float64
}

// CompareMoments compares the frames of x (samples) with the mixture's moments.
func (m *Mixture) CompareMoments(x *Window) (MomentReport, error) {
	if err := x.Validate("x"); err != nil {
		return MomentReport{}, err
	}
	d, n := m.Dim(), x.NumFrames()
	if x.FrameSize() != d {
		return MomentReport{}, paramErr("x: C·H·W", x.FrameSize(), fmt.Sprintf("= %d, the mixture's dimension", d))
	}
	if n < 2 {
		return MomentReport{}, paramErr("x: B·T", n, "≥ 2 samples")
	}
	xbar := make([]float64, d)
	for f := 0; f < n; f++ {
		for i, v := range x.Frame(f) {
			xbar[i] += v / float64(n)
		}
	}
	var sampleVar, trueVar, meanErr, num, den float64
	for f := 0; f < n; f++ {
		for i, v := range x.Frame(f) {
			sampleVar += (v - xbar[i]) * (v - xbar[i]) / float64(n-1)
		}
	}
	for i := 0; i < d; i++ {
		var mu, second float64
		for k, w := range m.Weights {
			mu += w * m.Means[k][i]
			second += w * (m.Stds[k]*m.Stds[k] + m.Means[k][i]*m.Means[k][i])
		}
		trueVar += second - mu*mu
		meanErr += xbar[i] - mu
		num += xbar[i] * mu
		den += mu * mu
	}
	return MomentReport{
		MeanErr:  meanErr / float64(d) / math.Sqrt(trueVar/float64(d)),
		Slope:    num / den,
		VarRatio: sampleVar / trueVar,
	}, nil
}
