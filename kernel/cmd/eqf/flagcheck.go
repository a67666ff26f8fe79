package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
	"github.com/equilibriumforcing/eqf/zoo"
)

// Every command checks its flags right after parsing, before any work starts, and a bad value is
// refused with the flag's name and what it must be (flags_test.go holds one row per flag).

// flagRule is one flag's check.
type flagRule struct {
	flag string
	ok   bool
	got  any
	want string
}

// checkFlags returns the first failed rule as "-flag = value: must be …".
func checkFlags(rules ...flagRule) error {
	for _, r := range rules {
		if !r.ok {
			return fmt.Errorf("-%s = %v: must be %s", r.flag, r.got, r.want)
		}
	}
	return nil
}

func atLeast(flag string, v, lo int) flagRule {
	return flagRule{flag, v >= lo, v, fmt.Sprintf("≥ %d", lo)}
}

func between(flag string, v, lo, hi int) flagRule {
	return flagRule{flag, v >= lo && v <= hi, v, fmt.Sprintf("in [%d, %d]", lo, hi)}
}

func momentumFlag(flag string, v float64) flagRule {
	return flagRule{flag, v >= 0 && v < 1, v, "in [0, 1) (NAG momentum μ)"}
}

func guidanceFlag(flag string, v float64) flagRule {
	return flagRule{flag, v >= 0 && v <= eqflib.MaxGuidance, v, fmt.Sprintf("in [0, %d] (classifier-free guidance weight; 0: none)", eqflib.MaxGuidance)}
}

func positiveFlag(flag string, v float64) flagRule {
	return flagRule{flag, v > 0 && !math.IsInf(v, 0), v, "> 0 and finite"}
}

// parseFlags parses the arguments of a command that takes flags only and refuses a word left
// after them. Go's flag package stops at the first word that is not a flag, so without it `eqf
// train paper -steps 10` would train the default preset for the default number of steps.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		return err
	}
	return fmt.Errorf("%s: unexpected argument %q: the command takes flags only, and none after it is read (eqf %s -h lists them)",
		fs.Name(), fs.Arg(0), fs.Name())
}

// zooRun is the zoo of -recipe's training run -train-seed, both flags checked.
func zooRun(recipe string, trainSeed int) (*zoo.Zoo, error) {
	z, err := zoo.Open(recipe)
	if err != nil {
		return nil, flagErr("recipe", err)
	}
	if err := checkFlags(between("train-seed", trainSeed, 1, zoo.MaxTrainSeeds)); err != nil {
		return nil, err
	}
	return z.WithTrainSeed(trainSeed), nil
}

// given is the set of flags the command line gave (a default left alone is not in it).
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// flagsFirst refuses a flag written after the names of a command that takes names
// (`eqf models fm -seeds 3`): Go's flag package reads flags only before the first name, so it
// would be taken for a name and refused as an unknown one.
func flagsFirst(fs *flag.FlagSet) error {
	for _, a := range fs.Args() {
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			return fmt.Errorf("%s: flag %s after the names: flags go before them (eqf %s [flags] NAME…)", fs.Name(), a, fs.Name())
		}
	}
	return nil
}

// flagErr names the flag in an error met while checking or using its value.
func flagErr(flag string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("-%s: %w", flag, err)
}

// outDir creates an output folder named by a flag, or says why it cannot.
func outDir(flag, dir string) error {
	if dir == "" {
		return nil
	}
	return flagErr(flag, os.MkdirAll(dir, 0o755))
}

// existing checks that a path named by a flag exists.
func existing(flag, path string) error {
	_, err := os.Stat(path)
	return flagErr(flag, err)
}

// existingClip checks that a clip named by a flag exists: a path, or clip i of a batch of latent
// clips, NAME.npy[i] (data.LoadClips), whose file exists.
func existingClip(flag, path string) error {
	if file, _, ok := data.SplitBatchPath(path); ok {
		if _, err := os.Stat(path); err != nil {
			path = file
		}
	}
	return existing(flag, path)
}

// commandLine is a command and its arguments as a shell reads them back (shellWord).
func commandLine(cmd string, args []string) string {
	words := []string{cmd}
	for _, arg := range args {
		words = append(words, shellWord(arg))
	}
	return strings.Join(words, " ")
}

// shellWord writes a path for a command line a user copies: in single quotes when a shell would
// read it otherwise (walks.npy[0] is a pattern to zsh).
func shellWord(path string) string {
	if path != "" && !strings.ContainsAny(path, " \t[]*?'\"$&;|<>()`\\~#!{}") {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
