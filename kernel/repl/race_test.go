//go:build race

package repl

// raceDetector is whether the tests run with the race detector (go test -race).
const raceDetector = true
