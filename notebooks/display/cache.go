package display

import "github.com/janpfeifer/gonb/cache"

// Cache returns what fn computes for key, computing it only the first time. GoNB runs each cell
// as a fresh program, so a value later cells need (a rollout, a replanning run) is kept on disk
// by GoNB's cache (gob-encoded under a temporary folder) and read back; make the key name
// everything the value depends on (e.g. the model's configuration hash and training time).
// Notebooks call it here rather than importing GoNB's cache package, which a cell could only
// import after a `go get` the filtered module proxy refuses.
func Cache[T any](key string, fn func() T) T { return cache.Cache(key, fn) }
