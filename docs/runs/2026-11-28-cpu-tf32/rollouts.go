//go:build ignore

// rollouts.go: the paper recipe's FM Euler card rollouts (8 clips × 100 frames, clip seed 7,
// D = 20) of training seeds 1–3, scored as the cards score them, with the colour drift on both
// measures: the one of 2026-11-28 (sliced 1-Wasserstein, eqflib.ColourDrift) and the one before
// (total variation of pooled 8-bin histograms, re-implemented here as oldDrift). Run from a tree
// with tf32.patch applied (git apply docs/runs/2026-11-28-cpu-tf32/tf32.patch on commit
// 5391593), with and without EQF_TF32_EMULATE=1:
//
//	go run docs/runs/2026-11-28-cpu-tf32/rollouts.go -zoo out/models -seeds 1,2,3
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

func oldDrift(gen, real *eqflib.Window, chunk int) []float64 {
	B, T, C, H, W := gen.Shape[0], gen.Shape[1], gen.Shape[2], gen.Shape[3], gen.Shape[4]
	hw := H * W
	hist := func(x *eqflib.Window, s int) []float64 {
		h := make([]float64, 512)
		n := 0
		for b := 0; b < B; b++ {
			for t := s; t < s+chunk; t++ {
				fr := x.Data[(b*T+t)*C*hw : (b*T+t+1)*C*hw]
				for i := 0; i < hw; i++ {
					cell := 0
					for c := 0; c < C; c++ {
						k := int(fr[c*hw+i] * 8)
						cell = cell*8 + min(max(k, 0), 7)
					}
					h[cell]++
					n++
				}
			}
		}
		for i := range h {
			h[i] /= float64(n)
		}
		return h
	}
	var d []float64
	for s := 0; s+chunk <= T; s += chunk {
		p, q := hist(gen, s), hist(real, s)
		var tv float64
		for i := range p {
			tv += math.Abs(p[i] - q[i])
		}
		d = append(d, tv/2)
	}
	return d
}

func ratio(d []float64) float64 {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m / d[0]
}

func main() {
	dir := flag.String("zoo", "/work/main/out/models", "zoo")
	seeds := flag.String("seeds", "1,2,3", "training seeds")
	clips := flag.Int("clips", 0, "clips (0: recipe)")
	clipSeed := flag.Uint64("clip-seed", 0, "clip seed (0: recipe)")
	flag.Parse()
	fmt.Printf("EQF_TF32_EMULATE=%q\n", os.Getenv("EQF_TF32_EMULATE"))
	r, err := zoo.RecipeByName("paper")
	if err != nil {
		panic(err)
	}
	base := &zoo.Zoo{Dir: *dir, Recipe: r}
	for _, s := range strings.Split(*seeds, ",") {
		k, _ := strconv.Atoi(s)
		z := base.WithTrainSeed(k)
		net, err := z.LoadActionNet()
		if err != nil {
			panic(err)
		}
		m, err := z.Load("fm")
		if err != nil {
			panic(err)
		}
		for _, es := range zoo.Samplers(m, z.Recipe.Eval.Guidance) {
			fs := es.Sampler
			ec := z.Recipe.Eval
			ec.Sampler, ec.Name, ec.Guidance = &fs, es.Name, es.Guidance
			if *clips > 0 {
				ec.Clips = *clips
			}
			if *clipSeed > 0 {
				ec.Seed = *clipSeed
			}
			q, err := z.Evaluate(m, net, ec)
			if err != nil {
				panic(err)
			}
			hw := q.Rollout.Shape[3] * q.Rollout.Shape[4]
			g := &eqflib.Window{Shape: q.Rollout.Shape, Data: m.Stats.Denormalise(q.Rollout.Data, hw)}
			tr := &eqflib.Window{Shape: q.Truth.Shape, Data: m.Stats.Denormalise(q.Truth.Data, hw)}
			od := oldDrift(g, tr, 25)
			fmt.Printf("seed %d %s: agreement %.4f drift %v ratio %.4f | old drift %s ratio %.4f | FVD %.2f | psnr %.3f\n",
				k, es.Key, q.Agreement.Ratio, fmtv(q.Drift), q.DriftRatio, fmtv(od), ratio(od), q.FVD, q.NextChunk.PSNR)
		}
	}
}

func fmtv(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprintf("%.4f", x))
	}
	return strings.Join(s, " ")
}
