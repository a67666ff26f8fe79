package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

var commands = map[string]func([]string) error{
	"demo": runDemo, "train": runTrain, "sample": runSample, "models": runModels, "compare": runCompare,
	"oracle-demo": runOracleDemo, "repl": runREPL, "run": runScript, "paper": runPaper,
}

// output runs f with *stream (os.Stdout or os.Stderr) going to a pipe and returns what f wrote
// to it (a command's usage or list: less than the pipe's buffer).
func output(stream **os.File, f func()) string {
	r, w, _ := os.Pipe()
	saved := *stream
	*stream = w
	f()
	*stream = saved
	w.Close()
	out, _ := io.ReadAll(r)
	return string(out)
}

// flagsOf lists a command's flags from its -h output.
func flagsOf(t *testing.T, cmd string) []string {
	t.Helper()
	out := output(&os.Stderr, func() { _ = commands[cmd]([]string{"-h"}) })
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	sort.Strings(flags)
	return flags
}

// TestBadFlags has one row per flag of every command: a value out of its range (or of the wrong
// kind, for booleans and seeds) must be refused before any work starts, by an error that names
// the flag and says what it must be. A flag without a row fails the test.
func TestBadFlags(t *testing.T) {
	t.Chdir(t.TempDir()) // a check makes default output folders (out/…): not in the source tree
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := filepath.Join(file, "dir") // a path below a file: cannot be created
	ckpt := t.TempDir()                 // exists (the checks before loading only need that)
	rows := map[string][]string{
		"demo -clips":            {"-clips", "0"},
		"demo -frames":           {"-frames", "-3"},
		"demo -guidance":         {"-guidance", "-1"},
		"demo -out":              {"-out", under},
		"demo -recipe":           {"-recipe", "nope"},
		"train -ckpt-every":      {"-ckpt-every", "0"},
		"train -ckpt-minutes":    {"-ckpt-minutes", "-1"},
		"train -data":            {"-data", filepath.Join(ckpt, "missing")},
		"train -eval-every":      {"-eval-every", "-1"},
		"train -frames":          {"-frames", "0"},
		"train -objective":       {"-objective", "nope"},
		"train -out":             {"-out", under},
		"train -preset":          {"-preset", "nope"},
		"train -readout-steps":   {"-readout-steps", "-1"},
		"train -resume":          {"-resume=maybe"},
		"train -seed":            {"-seed", "-1"},
		"train -val":             {"-val", filepath.Join(ckpt, "missing")},
		"train -set":             {"-set", "nope=1"},
		"train -steps":           {"-steps", "0"},
		"train -train":           {"-train", "nope"},
		"train -world":           {"-world", "nope"},
		"sample -ckpt":           {"-ckpt", filepath.Join(ckpt, "missing")},
		"sample -clip":           {"-ckpt", ckpt, "-clip", filepath.Join(ckpt, "missing")},
		"sample -clips":          {"-ckpt", ckpt, "-clips", "0"},
		"sample -context":        {"-ckpt", ckpt, "-context", "4"},
		"sample -frames":         {"-ckpt", ckpt, "-frames", "0"},
		"sample -guidance":       {"-ckpt", ckpt, "-guidance", "-1"},
		"sample -model":          {"-model", "gphi"},
		"sample -recipe":         {"-model", "eqf", "-recipe", "nope"},
		"sample -train-seed":     {"-model", "eqf", "-train-seed", "0"},
		"sample -out":            {"-ckpt", ckpt, "-out", under},
		"sample -sampler":        {"-ckpt", ckpt, "-sampler", "heun"},
		"sample -seed":           {"-seed", "x"},
		"sample -steps":          {"-ckpt", ckpt, "-steps", "0"},
		"sample -window":         {"-ckpt", ckpt, "-window", "1"},
		"sample -world":          {"-ckpt", ckpt, "-world", "nope"},
		"models -dir":            {"-dir", under},
		"models -list":           {"-list=maybe"},
		"models -no-wait":        {"-no-wait=maybe"},
		"models -recipe":         {"-recipe", "nope"},
		"models -seed":           {"-seed", "-2"},
		"models -seeds":          {"-seeds", "0"},
		"compare -clip-frames":   {"-fm", ckpt, "-eqf", ckpt, "-clip-frames", "0"},
		"compare -clips":         {"-fm", ckpt, "-eqf", ckpt, "-clips", "0"},
		"compare -context":       {"-fm", ckpt, "-eqf", ckpt, "-context", "-1"},
		"compare -depth":         {"-fm", ckpt, "-eqf", ckpt, "-depth", "0"},
		"compare -eqf":           {"-fm", ckpt, "-eqf", filepath.Join(ckpt, "missing")},
		"compare -feature-steps": {"-fm", ckpt, "-eqf", ckpt, "-feature-steps", "0"},
		"compare -features":      {"-fm", ckpt, "-eqf", ckpt, "-features", filepath.Join(under, "net.eqf")},
		"compare -fm":            {"-fm", filepath.Join(ckpt, "missing"), "-eqf", ckpt},
		"compare -frames":        {"-fm", ckpt, "-eqf", ckpt, "-frames", "0"},
		"compare -horizon":       {"-fm", ckpt, "-eqf", ckpt, "-horizon", "0"},
		"compare -momentum":      {"-fm", ckpt, "-eqf", ckpt, "-momentum", "1.5"},
		"compare -onnx":          {"-fm", ckpt, "-eqf", ckpt, "-onnx", filepath.Join(ckpt, "missing.onnx"), "-onnx-name", "I3D"},
		"compare -onnx-layout":   {"-fm", ckpt, "-eqf", ckpt, "-onnx-layout", "TCHW"},
		"compare -onnx-name":     {"-fm", ckpt, "-eqf", ckpt, "-onnx", file},
		"compare -onnx-output":   {"-fm", ckpt, "-eqf", ckpt, "-onnx-output", "logits"},
		"compare -onnx-size":     {"-fm", ckpt, "-eqf", ckpt, "-onnx-size", "-224"},
		"compare -out":           {"-fm", ckpt, "-eqf", ckpt, "-out", under},
		"compare -recipe":        {"-recipe", "nope"},
		"compare -seed":          {"-seed", "-7"},
		"compare -train-seed":    {"-train-seed", "2"},
		"compare -train-seeds":   {"-recipe", "quick", "-train-seeds", "-1"},
		"compare -stride":        {"-fm", ckpt, "-eqf", ckpt, "-horizon", "4", "-stride", "3"},
		"compare -time-chunk":    {"-fm", ckpt, "-eqf", ckpt, "-time-chunk", "4"},
		"compare -warp":          {"-fm", ckpt, "-eqf", ckpt, "-warp", "nope"},
		"oracle-demo -d":         {"-d", "0"},
		"oracle-demo -mu":        {"-mu", "1"},
		"oracle-demo -n":         {"-n", "0"},
		"oracle-demo -s":         {"-s", "0"},
		"oracle-demo -seed":      {"-seed", "1.5"},
		"oracle-demo -steps":     {"-steps", "0"},
		"repl -dir":              {"-dir", under},
		"paper -clips":           {"-clips", "-1"},
		"paper -models":          {"-models", "fm,gphi", "minecraft_main"},
		"paper -out":             {"-out", under, "eqm_weighting"},
		"paper -rollouts-of":     {"-quick", "-rollouts-of", under, "bowls"},
		"paper -recipe":          {"-recipe", "cpu", "eqm_weighting"},
		"paper -resume":          {"-resume=maybe"},
		"paper -quick":           {"-quick=maybe"},
		"paper -seeds":           {"-seeds", "-1"},
		"paper -stride":          {"-stride", "-1"},
		"paper -train-seeds":     {"-train-seeds", "101"},
		"paper -train-seed":      {"-train-seed", "-1"},
		"run -dir":               {"-dir", under, file},
	}
	var names []string
	for cmd := range commands {
		names = append(names, cmd)
	}
	sort.Strings(names)
	covered := 0
	for _, cmd := range names {
		flags := flagsOf(t, cmd)
		if len(flags) == 0 {
			t.Fatalf("%s -h lists no flags", cmd)
		}
		for _, f := range flags {
			key := cmd + " -" + f
			args, ok := rows[key]
			if !ok {
				t.Errorf("%s: no row in the bad-flag table", key)
				continue
			}
			covered++
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s %v panicked: %v", cmd, args, r)
					}
				}()
				return commands[cmd](args)
			}()
			t.Logf("eqf %s %s: %v", cmd, strings.Join(args, " "), err)
			if err == nil || !strings.Contains(err.Error(), "-"+f) {
				t.Errorf("eqf %s %s: error %v, want one naming -%s", cmd, strings.Join(args, " "), err, f)
			}
		}
	}
	if covered != len(rows) {
		t.Errorf("%d rows for %d flags: a row names a flag that no longer exists", len(rows), covered)
	}
}

// TestFlagPlaceholders: each flag's line in a command's -h names the kind of value it takes (int,
// string, …) or nothing for a boolean. Go's flag package takes the first back-quoted words of a
// usage for that name, so a usage quoting a command (`eqf paper pool`) printed
// "-train-seed eqf paper pool" as if the flag took those words.
func TestFlagPlaceholders(t *testing.T) {
	kinds := map[string]bool{"": true, "int": true, "uint": true, "float": true, "string": true, "duration": true, "value": true}
	line := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)([^\t\n]*)`)
	for cmd := range commands {
		out := output(&os.Stderr, func() { _ = commands[cmd]([]string{"-h"}) })
		for _, m := range line.FindAllStringSubmatch(out, -1) {
			if kind := strings.TrimPrefix(m[2], " "); !kinds[kind] {
				t.Errorf("eqf %s -h: flag -%s shows the placeholder %q, want one of int, uint, float, string, duration, value or none: a usage's back-quoted words are taken for it", cmd, m[1], kind)
			}
		}
	}
}

// TestStrayArguments: a command that takes flags only refuses a word after them, and one that
// takes names refuses a flag after the names, before any work starts and naming the word. Go's
// flag package stops at the first word that is not a flag, so either would otherwise be dropped
// (with every flag after it) or taken for a name. `run` gives the words after its program to the
// program, as go run does; a program that is not there is refused before its folder is made.
func TestStrayArguments(t *testing.T) {
	dir := t.TempDir()
	rows := map[string]struct {
		args []string
		want string
	}{
		"demo":        {[]string{"-out", filepath.Join(dir, "demo"), "paper"}, `unexpected argument "paper"`},
		"train":       {[]string{"-out", filepath.Join(dir, "train"), "paper", "-steps", "10"}, `unexpected argument "paper"`},
		"sample":      {[]string{"-out", filepath.Join(dir, "sample"), "nag"}, `unexpected argument "nag"`},
		"compare":     {[]string{"-out", filepath.Join(dir, "compare"), "fm", "eqf"}, `unexpected argument "fm"`},
		"oracle-demo": {[]string{"16"}, `unexpected argument "16"`},
		"repl":        {[]string{"-dir", filepath.Join(dir, "repl"), "script.go"}, `unexpected argument "script.go"`},
		"models":      {[]string{"-dir", filepath.Join(dir, "models"), "fm", "-seeds", "3"}, "flag -seeds after the names"},
		"paper":       {[]string{"-out", filepath.Join(dir, "paper"), "bowls", "-quick"}, "flag -quick after the names"},
		"run":         {[]string{"-dir", filepath.Join(dir, "run"), "missing.go", "-n", "3"}, "missing.go: no such file"},
	}
	for cmd, run := range commands {
		row, ok := rows[cmd]
		if !ok {
			t.Errorf("%s: no row in the stray-argument table", cmd)
			continue
		}
		err := run(row.args)
		if err == nil || !strings.Contains(err.Error(), row.want) {
			t.Errorf("eqf %s %s: error %v, want one containing %s", cmd, strings.Join(row.args, " "), err, row.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a refused command created %s in its output folder", entries[0].Name())
	}
}

// TestDemoGuidanceNeedsDropout: a guided demo on a recipe trained without condition dropout (the
// paper's) is refused before any training, naming -guidance and the way out.
func TestDemoGuidanceNeedsDropout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo")
	err := runDemo([]string{"-recipe", "paper", "-out", out})
	if err == nil || !strings.Contains(err.Error(), "-guidance") || !strings.Contains(err.Error(), "condition dropout") {
		t.Fatalf("eqf demo -recipe paper: error %v, want one naming -guidance and condition dropout", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("eqf demo -recipe paper created %s before refusing (stat: %v)", out, err)
	}
}

// TestBadSettings has one row per -set key of eqf train: an out-of-range value is refused before
// training starts, naming -set and the setting.
func TestBadSettings(t *testing.T) {
	bad := map[string][]string{
		"lr": {"-1", "NaN"}, "warmup": {"-1", "2.5"}, "batch": {"0"}, "ema": {"1.5"}, "weight_decay": {"-1"}, "clip_norm": {"-1"}, "min_lr": {"-1", "2"},
		"max_context": {"-1"}, "cond_dropout": {"1", "-0.1"}, "devices": {"-2"}, "hidden": {"0"}, "depth": {"0"}, "heads": {"0", "5"}, "patch": {"0", "5"},
		"mlp_ratio": {"0"},
	}
	for _, k := range trainSettable {
		if len(bad[k]) == 0 {
			t.Errorf("-set %s: no row in the bad-setting table", k)
		}
		for _, v := range bad[k] {
			err := runTrain([]string{"-out", t.TempDir(), "-set", k + "=" + v})
			t.Logf("-set %s=%s: %v", k, v, err)
			if err == nil || !strings.Contains(err.Error(), "-set") {
				t.Errorf("-set %s=%s: error %v, want one naming -set", k, v, err)
			}
		}
	}
	if len(bad) != len(trainSettable) {
		t.Errorf("%d rows for %d settable keys", len(bad), len(trainSettable))
	}
}

// TestFirstRunSaysWhatToDo: eqf sample and eqf compare run with no flags in a folder where nothing
// is trained say what they need and how to get it, not only that a default path is missing.
func TestFirstRunSaysWhatToDo(t *testing.T) {
	t.Chdir(t.TempDir())
	for cmd, want := range map[string][]string{
		"sample":  {"-ckpt: out/train does not exist", "`eqf train`", "-model eqf", "make models"},
		"compare": {"-fm: out/models/fm does not exist", "-fm and -eqf", "-recipe paper", "make models"},
	} {
		err := commands[cmd](nil)
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("eqf %s: error %v, want one saying %q", cmd, err, w)
			}
		}
	}
}

// A refused eqf run leaves the process's command line and flag set as they were: go test
// -count=2 panicked ("Verbose called before Parse") after TestBadFlags' in-process run replaced
// the flag set before its -dir check.
func TestRefusedRunKeepsFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prog.go")
	os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644)
	args, set := os.Args, flag.CommandLine
	err := runScript([]string{"-dir", filepath.Join(file, "dir"), file, "-n", "3"})
	if err == nil || !strings.Contains(err.Error(), "-dir") || flag.CommandLine != set || !slices.Equal(os.Args, args) {
		t.Errorf("eqf run with a -dir below a file: %v; flag set kept: %v, os.Args %v (was %v)", err, flag.CommandLine == set, os.Args, args)
	}
}

// commandLine writes arguments as a shell reads them back: quoted where a shell would read them
// otherwise, an empty one as a pair of single quotes.
func TestCommandLine(t *testing.T) {
	got := commandLine("eqf train", []string{"-data", "walks.npy[3]", "-set", "patch=4", "-out", "my run", "-x", "", "-y", "it's"})
	want := `eqf train -data 'walks.npy[3]' -set patch=4 -out 'my run' -x '' -y 'it'\''s'`
	if got != want {
		t.Errorf("commandLine:\n got %s\nwant %s", got, want)
	}
}
