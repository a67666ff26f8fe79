// Command peer is `make bench-peer`: eqflib's step benchmarks beside a PyTorch peer of the same
// DiT (bench/torch_peer.py), measured in one run on the same machine.
//
// Every row runs in its own process on each side, so that the process's peak resident memory is
// the row's; the two sides alternate (eqflib first on even repeats, PyTorch first on odd ones) so
// that the machine's drift hits both alike; each process warms up (compiles) before its timed
// steps. The table gives, per row, the median over repeats with the range, the ratio of the
// medians, the achieved GFLOP/s of each side from one analytic FLOP count (DiTConfig.FLOPs: the
// matrix products, 2 per multiply-add; a training step 3× the forward), that rate as a share of
// the best 1024³ float32 matrix product measured in the same run (either side's), and the peak
// resident memory of each side.
//
// The peer runs on the OpenBLAS kernel set that is fastest on this processor (peerCore): the
// machines eqflib was developed on set OPENBLAS_CORETYPE=Haswell for every process, and on a
// Zen 5 the AVX2 (Haswell) kernels reach about two thirds of the AVX-512 (SkylakeX) ones' 1024³
// rate. -peer-core fixes the choice.
//
// Usage: go run ./bench/peer [-reps 5] [-rows REGEXP] [-py /usr/bin/python3] [-peer-core NAME]
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/equilibriumforcing/eqf/eqflib"
)

// A row is one benchmark on both sides.
type row struct {
	name    string  // as printed
	bench   string  // the Go benchmark (-test.bench pattern)
	peer    string  // bench/torch_peer.py's row
	steps   int     // timed steps per process
	flops   float64 // per step, counted once for both sides (0 for the matmul row)
	train   bool    // report steps/s (speed) rather than ms/step (time)
	matmul  bool    // the 1024³ product: GFLOP/s measured directly
	comment string
}

func rows() []row {
	p := eqflib.DiTPresets
	train := func(preset string, steps int) row {
		return row{name: "TrainStep " + preset, bench: "^BenchmarkTrainStep$/^" + preset + "$", peer: "train/" + preset,
			steps: steps, flops: 3 * 8 * p[preset].FLOPs(4), train: true}
	}
	sample := func(preset string, steps int) row {
		return row{name: "SampleStep " + preset, bench: "^BenchmarkSampleStep$/^" + preset + "$", peer: "sample/" + preset,
			steps: steps, flops: p[preset].FLOPs(4)}
	}
	return []row{
		{name: "MatMul 1024³", bench: "^BenchmarkMatMul1024$", peer: "matmul/1024", steps: 10, matmul: true},
		// Steps per process: at least ~0.5 s timed where a step is short (this machine's speed
		// jitters over fractions of a second); both sides run the same count.
		train("tiny", 60), train("small", 10), train("medium", 3),
		sample("tiny", 400), sample("small", 80), sample("medium", 60), sample("paper", 2),
		{name: "RolloutStep small", bench: "^BenchmarkRolloutStep$", peer: "rollout/small", steps: 50,
			flops: p["small"].FLOPs(8), comment: "closed-loop NAG + h_ω, 8 frames"},
		{name: "GuidedRolloutStep small", bench: "^BenchmarkGuidedRolloutStep$", peer: "guided/small", steps: 30,
			flops: 2 * p["small"].FLOPs(8), comment: "the same with guidance w = 3 (a batch of 2)"},
	}
}

// A sample is one process's result: its metric (ms/step, or GFLOP/s for the matmul row) and its
// peak resident memory in MiB.
type sample struct{ value, peakMiB float64 }

// parseMetric reads the unit's value from a benchmark's output (Go's "Benchmark… 3 … 12.5
// ms/step" line or the peer's "ms/step 12.5").
func parseMetric(out []byte, unit string) (float64, error) {
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		for i := range f {
			if f[i] != unit {
				continue
			}
			// Go prints "value unit", the peer "unit value".
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < len(f) {
					if v, err := strconv.ParseFloat(f[j], 64); err == nil && v > 0 {
						return v, nil
					}
				}
			}
		}
	}
	return 0, fmt.Errorf("no %q in the output:\n%s", unit, out)
}

// run runs one process and returns its metric and peak resident memory.
func run(cmd *exec.Cmd, unit string) (sample, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.Bytes())
	}
	v, err := parseMetric(out.Bytes(), unit)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	peak := 0.0
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return sample{v, peak}, nil
}

// peerCore chooses the OpenBLAS kernel set (OPENBLAS_CORETYPE) the peer runs with: fixed names
// it; otherwise the one whose 1024³ product is fastest on this processor, among OpenBLAS's own
// detection, the OPENBLAS_CORETYPE in the environment (some machines set one for every
// process) and the x86-64 kernel sets whose instructions /proc/cpuinfo lists (a kernel set
// the processor lacks would die on an illegal instruction). It returns the value to set ("":
// OpenBLAS's own detection) and a note for the table's header naming the choice and the rates it
// was made from.
func peerCore(py, script string, env []string, fixed string) (core, note string, err error) {
	if fixed != "" {
		return fixed, "OpenBLAS core " + fixed + " (-peer-core)", nil
	}
	candidates := []string{""} // OpenBLAS's own detection
	if set := os.Getenv("OPENBLAS_CORETYPE"); set != "" {
		candidates = append(candidates, set)
	}
	if runtime.GOARCH == "amd64" {
		flags := cpuFlags()
		for _, c := range []struct {
			core  string
			needs []string
		}{
			{"HASWELL", []string{"avx2", "fma"}},
			{"ZEN", []string{"avx2", "fma"}},
			{"SKYLAKEX", []string{"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"}},
			{"COOPERLAKE", []string{"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512_bf16"}},
		} {
			if !slices.ContainsFunc(c.needs, func(f string) bool { return !flags[f] }) &&
				!slices.ContainsFunc(candidates, func(s string) bool { return strings.EqualFold(s, c.core) }) {
				candidates = append(candidates, c.core)
			}
		}
	}
	type probe struct {
		core, name string  // as set, as OpenBLAS reports it
		rate       float64 // best of three 1024³ runs, GFLOP/s
	}
	var probes []probe
	for _, c := range candidates {
		p := probe{core: c}
		for range 3 {
			cmd := exec.Command(py, script, "matmul/1024", "20")
			cmd.Env = append(withCoreType(env, c), "OPENBLAS_VERBOSE=2")
			out, err := cmd.CombinedOutput()
			if err != nil {
				return "", "", fmt.Errorf("probing the peer's OpenBLAS core %q: %v\n%s", c, err, out)
			}
			v, err := parseMetric(out, "GFLOP/s")
			if err != nil {
				return "", "", fmt.Errorf("probing the peer's OpenBLAS core %q: %v", c, err)
			}
			p.rate = max(p.rate, v)
			if _, name, ok := strings.Cut(string(out), "Core: "); ok {
				p.name, _, _ = strings.Cut(name, "\n")
				p.name = strings.TrimSpace(p.name)
			}
		}
		if p.name == "" {
			p.name = cmp.Or(c, "?")
		}
		probes = append(probes, p)
	}
	best := probes[0]
	var rates []string
	for i, p := range probes {
		if p.rate > best.rate {
			best = p
		}
		label := p.name
		if i == 0 {
			label += " (its own detection)"
		}
		rates = append(rates, fmt.Sprintf("%s %.0f", label, p.rate))
	}
	return best.core, fmt.Sprintf("OpenBLAS core %s, the fastest 1024³ of %s GFLOP/s", best.name, strings.Join(rates, ", ")), nil
}

// withCoreType is env (copied) with OPENBLAS_CORETYPE set to core, or removed when core is ""
// (OpenBLAS's own detection).
func withCoreType(env []string, core string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") })
	if core != "" {
		out = append(out, "OPENBLAS_CORETYPE="+core)
	}
	return out
}

// cpuFlags is the set of /proc/cpuinfo's flags (empty where there is none).
func cpuFlags() map[string]bool {
	flags := map[string]bool{}
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				flags[f] = true
			}
			break
		}
	}
	return flags
}

// stats is the median and range of the values.
func stats(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

func processor() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

func main() {
	reps := flag.Int("reps", 5, "repeats of every row on each side (1…100)")
	only := flag.String("rows", "", "run only the rows whose name matches this regular expression")
	py := flag.String("py", "/usr/bin/python3", "the Python with torch (Debian's python3-torch)")
	core := flag.String("peer-core", "", "the peer's OpenBLAS kernel set (OPENBLAS_CORETYPE, e.g. Haswell, SkylakeX); default: the fastest here")
	flag.Parse()
	if err := mainErr(*reps, *only, *py, *core); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peer:", err)
		os.Exit(1)
	}
}

func mainErr(reps int, only, py, fixedCore string) error {
	if reps < 1 || reps > 100 {
		return fmt.Errorf("-reps %d: want 1…100", reps)
	}
	filter, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-rows %q: %v", only, err)
	}
	peerScript, err := filepath.Abs(filepath.Join("bench", "torch_peer.py"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(peerScript); err != nil {
		return fmt.Errorf("run from the repository root: %v", err)
	}
	torchVersion, err := exec.Command(py, "-c", "import torch; print(torch.__version__)").Output()
	if err != nil {
		return fmt.Errorf("%s has no torch (make peer-deps installs Debian's python3-torch): %v", py, err)
	}
	dir, err := os.MkdirTemp("", "bench-peer")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	testBin := filepath.Join(dir, "eqflib.test")
	build := exec.Command("go", "test", "-c", "-o", testBin, "./eqflib/")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building eqflib's benchmarks: %v", err)
	}
	threads := os.Getenv("PEER_THREADS")
	if threads == "" {
		threads = "2"
	}
	peerEnv := append(os.Environ(), "PEER_THREADS="+threads)
	core, coreNote, err := peerCore(py, peerScript, peerEnv, fixedCore)
	if err != nil {
		return err
	}
	peerEnv = withCoreType(peerEnv, core)
	fmt.Printf("processor: %s, %d logical cores; %s %s/%s, GOEXPERIMENT=%s\n", processor(), runtime.NumCPU(),
		runtime.Version(), runtime.GOOS, runtime.GOARCH, os.Getenv("GOEXPERIMENT"))
	fmt.Printf("peer: PyTorch %s, CPU, %s threads, float32, %s; eqflib: GoMLX's Go backend, float32\n",
		strings.TrimSpace(string(torchVersion)), threads, coreNote)
	fmt.Printf("%d repeats per row and side, interleaved, each its own process after a warm-up; median [min–max]\n\n", reps)

	type result struct {
		row        row
		ours, peer []sample
	}
	var results []result
	started := time.Now()
	for _, r := range rows() {
		if !filter.MatchString(r.name) {
			continue
		}
		unit := "ms/step"
		if r.matmul {
			unit = "GFLOP/s"
		}
		res := result{row: r}
		for rep := range reps {
			goCmd := func() (sample, error) {
				return run(exec.Command(testBin, "-test.run", "^$", "-test.bench", r.bench,
					"-test.benchtime", fmt.Sprintf("%dx", r.steps), "-test.count", "1"), unit)
			}
			peerCmd := func() (sample, error) {
				c := exec.Command(py, peerScript, r.peer, strconv.Itoa(r.steps))
				c.Env = peerEnv
				return run(c, unit)
			}
			sides := []func() (sample, error){goCmd, peerCmd}
			if rep%2 == 1 {
				sides[0], sides[1] = peerCmd, goCmd
			}
			for i, side := range sides {
				s, err := side()
				if err != nil {
					return fmt.Errorf("%s: %v", r.name, err)
				}
				if (i == 0) == (rep%2 == 0) {
					res.ours = append(res.ours, s)
				} else {
					res.peer = append(res.peer, s)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "  %s done (%s)\n", r.name, time.Since(started).Round(time.Second))
		results = append(results, res)
	}

	values := func(s []sample, f func(sample) float64) []float64 {
		v := make([]float64, len(s))
		for i := range s {
			v[i] = f(s[i])
		}
		return v
	}
	bestMatmul := 0.0
	for _, res := range results {
		if res.row.matmul {
			for _, s := range append(slices.Clone(res.ours), res.peer...) {
				bestMatmul = max(bestMatmul, s.value)
			}
		}
	}
	cell := func(v []float64, format string) string {
		m, lo, hi := stats(v)
		return fmt.Sprintf(format+" ["+format+"–"+format+"]", m, lo, hi)
	}
	fmt.Println("| benchmark | PyTorch | eqflib | eqflib vs PyTorch | GFLOP/s PyTorch | GFLOP/s eqflib | eqflib % of best 1024³ matmul | peak MiB PyTorch | peak MiB eqflib |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, res := range results {
		r := res.row
		ms := func(s sample) float64 { return s.value }
		ours, peer := values(res.ours, ms), values(res.peer, ms)
		mo, _, _ := stats(ours)
		mp, _, _ := stats(peer)
		var a, b, ratio, gp, gq, share string
		switch {
		case r.matmul:
			a, b = cell(peer, "%.1f")+" GFLOP/s", cell(ours, "%.1f")+" GFLOP/s"
			ratio = fmt.Sprintf("%.2f× speed", mo/mp)
			gp, gq = fmt.Sprintf("%.1f", mp), fmt.Sprintf("%.1f", mo)
			share = fmt.Sprintf("%.0f%%", 100*mo/bestMatmul)
		default:
			rate := func(v []float64) []float64 { // steps/s or GFLOP/s from ms/step
				out := make([]float64, len(v))
				for i := range v {
					out[i] = 1000 / v[i]
				}
				return out
			}
			if r.train {
				a, b = cell(rate(peer), "%.2f")+" steps/s", cell(rate(ours), "%.2f")+" steps/s"
				ratio = fmt.Sprintf("%.2f× speed", mp/mo)
			} else {
				a, b = cell(peer, "%.2f")+" ms", cell(ours, "%.2f")+" ms"
				ratio = fmt.Sprintf("%.2f× time", mo/mp)
			}
			gp, gq = fmt.Sprintf("%.1f", r.flops/mp/1e6), fmt.Sprintf("%.1f", r.flops/mo/1e6)
			share = "-"
			if bestMatmul > 0 {
				share = fmt.Sprintf("%.0f%%", 100*r.flops/mo/1e6/bestMatmul)
			}
		}
		name := r.name
		if r.comment != "" {
			name += " (" + r.comment + ")"
		}
		peak := func(s sample) float64 { return s.peakMiB }
		pp, _, _ := stats(values(res.peer, peak))
		po, _, _ := stats(values(res.ours, peak))
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f |\n", name, a, b, ratio, gp, gq, share, pp, po)
	}
	fmt.Printf("\nspeed: eqflib's rate / PyTorch's (> 1: eqflib ahead); time: eqflib's time / PyTorch's (< 1: eqflib ahead). FLOPs per step: ")
	var parts []string
	for _, res := range results {
		if !res.row.matmul {
			parts = append(parts, fmt.Sprintf("%s %.3g G", res.row.name, res.row.flops/1e9))
		}
	}
	fmt.Println(strings.Join(parts, ", "))
	return nil
}
