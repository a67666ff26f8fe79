// Command eqf is the Equilibrium Forcing toolkit's command line.
//
//	eqf demo [flags]         train EqF and h_ω on the maze world and roll out a video (make demo)
//	eqf train [flags]        train a DiT on a world with one of the objectives
//	eqf sample [flags]       roll out a checkpoint or a zoo model over a clip's actions
//	eqf models [flags]       train (or -list) the model zoo that experiments and notebooks load
//	eqf paper [flags] NAME   run a paper experiment (list, NAME…, all) into out/paper
//	eqf paper compare A B    two runs' saved results side by side, with intervals over training seeds
//	eqf oracle-demo [flags]  sample Gaussian data with the exact oracle and several samplers
//	eqf repl [flags]         an interactive Go REPL (yaegi) with eqflib, data, plots and GoMLX preloaded
//	eqf run FILE.go …        run Go files (or a folder's, or a script) with the REPL's preloads
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage: eqf <command> [flags]

commands:
  demo         train EqF (small preset) and its readout on the maze world, then roll out an
               action-conditioned video with closed-loop NAG into out/demo (about 6 minutes)
  train        train a DiT on a world, or on your clips (-data DIR), with one objective (-set key=value overrides)
  sample       roll out a trained checkpoint (-ckpt) or zoo model (-model eqf) over a clip's actions
               (a world's, the held-out clip of a -data run, or -clip PATH)
  models       train the model zoo into out/models (make models; -seeds 3: training seeds 1…3; -recipe quick: tiny),
               skipping what is trained and resuming what was interrupted; -list shows the cards
  compare      100-frame action-conditioned rollouts of an FM and an EqF checkpoint (or a zoo's:
               -recipe paper-70k -train-seed 2) with FM Euler, EqF GD, closed-loop EqF NAG and
               budget-adaptive NAG: FVD (maze-I3D features), NFE; runs trained on your clips (-data)
               or another world are rolled out over their held-out clips or that world's, FVD on pooled pixels;
               several training runs (-fm F1,F2,F3 -eqf E1,E2,E3, or -recipe paper -train-seeds 3):
               means over the runs and EqF − FM differences with 95 % intervals over them
  paper        run the paper's experiments (list, NAME…, all) into out/paper: numbers beside
               the paper's, figures as PNG and HTML; "paper compare DIR_A DIR_B" sets two runs'
               saved results side by side (B − A with 95 % intervals over training seeds)
  oracle-demo  sample N(m, s²I) data with the exact oracle fields and several samplers,
               and print each sampler's moments against the data and its network evaluations
  repl         an interactive Go REPL (yaegi) with eqflib, data, plots, GoMLX's graph and
               tensors preloaded and the backend created; reads stdin line by line when it is
               not a terminal (echo 'expr' | eqf repl)
  run          run FILE.go (package main, or a script of REPL lines) with the same preloads;
               several Go files, or a folder's, run as one program, and the words after it
               are its arguments, as go run does

run "eqf <command> -h" for a command's flags`)
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "demo":
		err = runDemo(os.Args[2:])
	case "train":
		err = runTrain(os.Args[2:])
	case "sample":
		err = runSample(os.Args[2:])
	case "oracle-demo":
		err = runOracleDemo(os.Args[2:])
	case "models":
		err = runModels(os.Args[2:])
	case "compare":
		err = runCompare(os.Args[2:])
	case "paper":
		err = runPaper(os.Args[2:])
	case "repl":
		err = runREPL(os.Args[2:])
	case "run":
		err = runScript(os.Args[2:])
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "eqf: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) {
		return // -h: the flag set printed its usage
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eqf:", err)
		os.Exit(1)
	}
}
