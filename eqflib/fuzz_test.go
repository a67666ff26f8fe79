package eqflib

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

// FuzzCheckpoint feeds hostile checkpoint files to every checkpoint loader. The fuzzed bytes are
// the file's body (magic, header length, JSON header, tensors) and the SHA-256 is appended, so
// the fuzzer reaches the parsing behind the integrity check: a file that forged its hash must
// still give an error, never a panic or an allocation its size does not justify.
// `go test -fuzz FuzzCheckpoint ./eqflib/` runs it; `go test` replays the seeds.
func FuzzCheckpoint(f *testing.F) {
	cfg := DiTConfig{Channels: 1, Height: 4, Width: 4, Patch: 2, Hidden: 8, Depth: 1, Heads: 2, MLPRatio: 1, CondDim: 0, LevelFreqs: 4}
	d, err := NewDiT(cfg, false, 1, dtypes.Float32)
	if err != nil {
		f.Fatal(err)
	}
	file, err := encodeStore(ckptHeader{Step: 3, Objective: "eqf", Config: cfg, DType: "float32"}, d.Store)
	if err != nil {
		f.Fatal(err)
	}
	body := file[:len(file)-sha256.Size]
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Add([]byte(checkpointMagic + "\xff\xff\xff\xff\xff\xff\xff\x7f{}"))
	f.Add([]byte(checkpointMagic + "\x40\x00\x00\x00\x00\x00\x00\x00" +
		`{"step":1,"config":{"Channels":1,"Height":65536,"Width":65536,"Patch":1,"Hidden":65536,"Depth":1024,"Heads":1,"MLPRatio":4,"LevelFreqs":2}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		path := filepath.Join(t.TempDir(), "ckpt-00000001.eqf")
		if err := os.WriteFile(path, append(append([]byte(nil), body...), sum[:]...), 0o644); err != nil {
			t.Fatal(err)
		}
		CheckpointInfo(path)
		LoadDiT(path)
		LoadActionNet(path)
		LoadNoisePredictor(path)
	})
}
