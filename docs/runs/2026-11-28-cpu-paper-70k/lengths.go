//go:build ignore

// lengths.go sets the card metrics of the paper recipe's FM and EqF at several training lengths
// side by side, for a run whose training seeds are not all trained yet: each length's mean ± SD
// over the training seeds it has (the value alone, marked, where it has one), and for each length
// against the next longer one the difference of the means paired by training seed (seed k starts
// from the same initial seed and data order at every length) with its 95 % t-interval over the
// seeds both lengths have, "differs" where it excludes zero; with one seed in common, the one
// seed's difference and no interval:
//
//	go run docs/runs/2026-11-28-cpu-paper-70k/lengths.go FOLDER...
//
// Each FOLDER holds cards: seed k's in seed-k/<model>/card.json, seed 1's there or in
// <model>/card.json (a zoo's own layout). A model a folder has no card of gets "—". With
// three complete folders (3,500, 7,000 and 14,000 steps) it writes
// docs/runs/2026-11-28-cpu-paper-14k/lengths.md.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

const maxSeeds = 3

// read gives seed's card of model in dir, ok false where dir has none.
func read(dir, model string, seed int) (c card, ok bool, err error) {
	paths := []string{filepath.Join(dir, fmt.Sprintf("seed-%d", seed), model, "card.json")}
	if seed == 1 {
		paths = append(paths, filepath.Join(dir, model, "card.json"))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return c, false, err
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return c, false, fmt.Errorf("%s: %w", p, err)
		}
		return c, true, nil
	}
	return c, false, nil
}

// thousands writes n with a comma every three digits (3,500).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var rows = []struct{ model, key, name string }{
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

func main() {
	dirs := os.Args[1:]
	if len(dirs) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run lengths.go FOLDER... (two or more folders of cards, shortest run first)")
		os.Exit(2)
	}
	// cards[length][model][seed-1], nil where that seed has no card.
	cards := make([]map[string][]*card, len(dirs))
	steps := make([]string, len(dirs))
	for i, d := range dirs {
		cards[i] = map[string][]*card{}
		for _, model := range []string{"eqf", "fm"} {
			cards[i][model] = make([]*card, maxSeeds)
			for k := 1; k <= maxSeeds; k++ {
				c, ok, err := read(d, model, k)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				if ok {
					cards[i][model][k-1] = &c
					if steps[i] == "" {
						steps[i] = thousands(c.Steps) + " steps"
					} else if steps[i] != thousands(c.Steps)+" steps" {
						fmt.Fprintf(os.Stderr, "%s: cards of %s and %d steps in one folder\n", d, steps[i], c.Steps)
						os.Exit(1)
					}
				}
			}
		}
		if steps[i] == "" {
			fmt.Fprintf(os.Stderr, "%s: no card of eqf or fm\n", d)
			os.Exit(1)
		}
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
	for _, r := range rows {
		vals := make([][]float64, len(dirs)) // NaN where a seed has no card
		cells := []string{r.name}
		for i, d := range dirs {
			var have []float64
			var which []string
			for k, c := range cards[i][r.model] {
				v := math.NaN()
				if c != nil {
					m, ok := c.Metrics[r.key]
					if !ok {
						fmt.Fprintf(os.Stderr, "%s, seed %d, in %s: no metric %s\n", r.model, k+1, d, r.key)
						os.Exit(1)
					}
					v = m
					have = append(have, v)
					which = append(which, fmt.Sprint(k+1))
				}
				vals[i] = append(vals[i], v)
			}
			switch len(have) {
			case 0:
				cells = append(cells, "—")
			case 1:
				cells = append(cells, fmt.Sprintf("%.4g (seed %s only)", have[0], which[0]))
			case maxSeeds:
				m, s := stat.MeanStdDev(have, nil)
				cells = append(cells, fmt.Sprintf("%.4g ± %.2g", m, s))
			default:
				m, s := stat.MeanStdDev(have, nil)
				cells = append(cells, fmt.Sprintf("%.4g ± %.2g (seeds %s)", m, s, strings.Join(which, ", ")))
			}
		}
		for i := 0; i+1 < len(dirs); i++ {
			var diffs []float64
			var which []string
			for k := range maxSeeds {
				if d := vals[i+1][k] - vals[i][k]; !math.IsNaN(d) {
					diffs = append(diffs, d)
					which = append(which, fmt.Sprint(k+1))
				}
			}
			switch n := len(diffs); n {
			case 0:
				cells = append(cells, "—")
			case 1:
				cells = append(cells, fmt.Sprintf("%+.3g (seed %s only: no interval)", diffs[0], which[0]))
			default:
				m, s := stat.MeanStdDev(diffs, nil)
				t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
				h := t * s / math.Sqrt(float64(n))
				v := ""
				if m-h > 0 || m+h < 0 {
					v = " **differs**"
				}
				of := ""
				if n < maxSeeds {
					of = " (seeds " + strings.Join(which, ", ") + ")"
				}
				cells = append(cells, fmt.Sprintf("%+.3g [%+.3g, %+.3g]%s%s", m, m-h, m+h, v, of))
			}
		}
		fmt.Println("| " + strings.Join(cells, " | ") + " |")
	}
}
