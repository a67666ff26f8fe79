//go:build ignore

// lengths.go sets the card metrics of the paper recipe's FM and EqF at three training lengths
// side by side (three training seeds each): each length's mean ± SD over the seeds and, for
// each length against the next longer one, the difference of the means with its 95 % t-interval
// paired by training seed (seed k starts from the same initial seed and data order at every
// length; 2 degrees of freedom), "differs" where it excludes zero:
//
//	go run docs/runs/2026-11-28-cpu-paper-14k/lengths.go SHORT MIDDLE LONG
//
// Each argument is a folder of cards: seed k's in seed-k/<model>/card.json, seed 1's there or in
// <model>/card.json (a zoo's own layout).
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

type card struct {
	Steps   int                `json:"steps"`
	Metrics map[string]float64 `json:"metrics"`
}

func read(dir, model string, seed int) (card, error) {
	paths := []string{filepath.Join(dir, fmt.Sprintf("seed-%d", seed), model, "card.json")}
	if seed == 1 {
		paths = append(paths, filepath.Join(dir, model, "card.json"))
	}
	var c card
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		return c, json.Unmarshal(b, &c)
	}
	return c, fmt.Errorf("no card of %s, training seed %d, in %s", model, seed, dir)
}

const seeds = 3

// thousands writes n with a comma every three digits (3,500).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go run lengths.go SHORT MIDDLE LONG (three folders of cards)")
		os.Exit(2)
	}
	dirs := os.Args[1:]
	rows := []struct{ model, key, name string }{
		{"eqf", "val_loss_ema", "EqF EMA validation loss"},
		{"eqf", "next_chunk_psnr_nag_closed", "EqF closed-loop NAG next-chunk PSNR (dB)"},
		{"eqf", "agreement_nag_closed", "EqF closed-loop NAG action agreement"},
		{"eqf", "fvd_nag_closed", "EqF closed-loop NAG FVD (8 clips)"},
		{"eqf", "agreement_gd_open", "EqF open-loop GD action agreement"},
		{"eqf", "readout_sigma_mae", "EqF readout h_ω σ MAE"},
		{"fm", "val_loss_ema", "FM EMA validation loss"},
		{"fm", "next_chunk_psnr_euler", "FM Euler next-chunk PSNR (dB)"},
		{"fm", "agreement_euler", "FM Euler action agreement"},
		{"fm", "fvd_euler", "FM Euler FVD (8 clips)"},
	}
	cards := make([]map[string][]card, len(dirs)) // [length][model][seed-1], each card read once
	steps := make([]string, len(dirs))
	for i, d := range dirs {
		cards[i] = map[string][]card{}
		for _, model := range []string{"eqf", "fm"} {
			for k := 1; k <= seeds; k++ {
				c, err := read(d, model, k)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				cards[i][model] = append(cards[i][model], c)
			}
		}
		steps[i] = thousands(cards[i]["fm"][0].Steps) + " steps"
	}
	head := []string{"metric"}
	for _, s := range steps {
		head = append(head, s+": mean ± SD")
	}
	for i := 0; i+1 < len(steps); i++ {
		head = append(head, fmt.Sprintf("%s − %s [95 %%, paired]", steps[i+1], steps[i]))
	}
	fmt.Println("| " + strings.Join(head, " | ") + " |")
	fmt.Println(strings.Repeat("|---", len(head)) + "|")
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: seeds - 1}.Quantile(0.975)
	for _, r := range rows {
		vals := make([][]float64, len(dirs))
		cells := []string{r.name}
		for i, d := range dirs {
			for k, c := range cards[i][r.model] {
				v, ok := c.Metrics[r.key]
				if !ok {
					fmt.Fprintf(os.Stderr, "%s, seed %d, in %s: no metric %s\n", r.model, k+1, d, r.key)
					os.Exit(1)
				}
				vals[i] = append(vals[i], v)
			}
			m, s := stat.MeanStdDev(vals[i], nil)
			cells = append(cells, fmt.Sprintf("%.4g ± %.2g", m, s))
		}
		for i := 0; i+1 < len(dirs); i++ {
			diffs := make([]float64, seeds)
			for k := range diffs {
				diffs[k] = vals[i+1][k] - vals[i][k]
			}
			m, s := stat.MeanStdDev(diffs, nil)
			h := t * s / math.Sqrt(seeds)
			v := ""
			if m-h > 0 || m+h < 0 {
				v = " **differs**"
			}
			cells = append(cells, fmt.Sprintf("%+.3g [%+.3g, %+.3g]%s", m, m-h, m+h, v))
		}
		fmt.Println("| " + strings.Join(cells, " | ") + " |")
	}
}
