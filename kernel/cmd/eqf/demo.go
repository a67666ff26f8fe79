package main

import (
	"fmt"
	"time"
)

// runDemo is `make demo`: train EqF (small preset) and its readout h_ω on the maze world, then
// roll out an action-conditioned video with closed-loop NAG; everything lands in out/demo.
func runDemo(args []string) error {
	start := time.Now()
	d := defaultTrain
	d.preset, d.steps, d.readoutSteps, d.out, d.ckptEvery, d.evalEvery = "small", 1200, 300, "out/demo", 400, 200
	a, err := parseTrainArgs("demo", args, d)
	if err != nil {
		return err
	}
	a.set["lr"], a.set["ema"] = "2e-3", "0.995"
	if _, err := train(a); err != nil {
		return err
	}
	s := defaultSample
	s.ckpt, s.out = a.out, a.out
	if err := sample(&s); err != nil {
		return err
	}
	fmt.Printf("demo done in %v: %s/loss.png, history.csv, rollout.gif, rollout.png, truth.png\n", time.Since(start).Round(time.Second), a.out)
	return nil
}
