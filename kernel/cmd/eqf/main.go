// Command eqf is the Equilibrium Forcing toolkit's command line.
//
//	eqf demo [flags]   sample Gaussian data with the exact oracle and several samplers
//
// Later subcommands (train, sample, figure, repl) arrive with the DiT and the kernel.
package main

import (
	"fmt"
	"os"
)

func usage() {
	fmt.Fprintln(os.Stderr, `usage: eqf <command> [flags]

commands:
  demo    sample N(m, s²I) data with the exact oracle fields and several samplers,
          and print each sampler's moments against the data and its network evaluations

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
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "eqf: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "eqf:", err)
		os.Exit(1)
	}
}
