//go:build ignore

// compare.go prints the card metrics of the paper recipe's FM and EqF trained on two backends
// (three training seeds each) side by side, with the difference of the means and its 95 %
// Welch t-interval (the two backends as independent samples) and the paired 95 % t-interval
// (seed k on one backend against seed k on the other: same data order and initial seed): go run docs/runs/2026-11-26d-cpu-seeds/compare.go CPU_MODELS GPU_MODELS
// (each a zoo folder: seed 1 in it, seeds k ≥ 2 in seed-k/).
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func metrics(dir, model string, seed int) map[string]float64 {
	if seed > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("seed-%d", seed))
	}
	b, err := os.ReadFile(filepath.Join(dir, model, "card.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var c struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return c.Metrics
}

// verdict marks an interval that excludes zero.
func verdict(lo, hi float64) string {
	if lo > 0 || hi < 0 {
		return "**differs**"
	}
	return ""
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run compare.go CPU_MODELS GPU_MODELS")
		os.Exit(2)
	}
	rows := []struct{ model, key, name string }{
		{"eqf", "val_loss_ema", "EqF EMA validation loss"},
		{"eqf", "next_chunk_psnr_nag_closed", "EqF closed-loop NAG next-chunk PSNR (dB)"},
		{"eqf", "agreement_nag_closed", "EqF closed-loop NAG action agreement"},
		{"eqf", "drift_ratio_nag_closed", "EqF closed-loop NAG drift max/first"},
		{"eqf", "readout_sigma_mae", "EqF readout h_ω σ MAE"},
		{"fm", "val_loss_ema", "FM EMA validation loss"},
		{"fm", "next_chunk_psnr_euler", "FM Euler next-chunk PSNR (dB)"},
		{"fm", "agreement_euler", "FM Euler action agreement"},
		{"fm", "drift_ratio_euler", "FM Euler drift max/first"},
	}
	fmt.Println("| metric | CPU seeds 1–3 | CPU mean ± SD | GPU seeds 1–3 | GPU mean ± SD | CPU − GPU [95 % Welch interval] | paired by seed [95 % t, 2 df] |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		var cpu, gpu []float64
		for k := 1; k <= 3; k++ {
			cpu = append(cpu, metrics(os.Args[1], r.model, k)[r.key])
			gpu = append(gpu, metrics(os.Args[2], r.model, k)[r.key])
		}
		mc, sc := stat.MeanStdDev(cpu, nil)
		mg, sg := stat.MeanStdDev(gpu, nil)
		vc, vg := sc*sc/3, sg*sg/3
		se := math.Sqrt(vc + vg)
		df := (vc + vg) * (vc + vg) / (vc*vc/2 + vg*vg/2) // Welch–Satterthwaite
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
		d := mc - mg
		lo, hi := d-t*se, d+t*se
		diffs := []float64{cpu[0] - gpu[0], cpu[1] - gpu[1], cpu[2] - gpu[2]}
		md, sd := stat.MeanStdDev(diffs, nil)
		tp := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 2}.Quantile(0.975) * sd / math.Sqrt(3)
		fmt.Printf("| %s | %.4g, %.4g, %.4g | %.4g ± %.2g | %.4g, %.4g, %.4g | %.4g ± %.2g | %+.3g [%+.3g, %+.3g] %s | %+.3g [%+.3g, %+.3g] %s |\n",
			r.name, cpu[0], cpu[1], cpu[2], mc, sc, gpu[0], gpu[1], gpu[2], mg, sg, d, lo, hi, verdict(lo, hi), md, md-tp, md+tp, verdict(md-tp, md+tp))
	}
}
