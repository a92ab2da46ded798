package local

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/watcher"
)

// The recompression of a first import's contents runs under the import's
// memory limit, between its steps too, and gives the limit back at its end.
func TestRecompressRunsUnderTheImportLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(old)

	root := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	// 5 files of 4 MiB that S2 halves: 10 MiB to recompress, two steps.
	for i := range 5 {
		data := make([]byte, 4<<20-1024)
		for j := range data {
			if j%4096 < 2048 {
				data[j] = byte(rng.Uint32())
			} else {
				data[j] = data[j-2048]
			}
		}
		if err := os.WriteFile(filepath.Join(root, string(rune('a'+i))+".bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	cfg.MaxFileSize = 8 << 20
	ctx := context.Background()
	ws, err := OpenStore(ctx, cfg, root, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	w := &watcher.Walker{Root: root, Ignorer: Ignorer(cfg, root)}
	if err := FirstImport(ctx, cfg, ws, w.Walk, nil); err != nil {
		t.Fatal(err)
	}
	var during []int64
	pause := func() {
		during = append(during, debug.SetMemoryLimit(-1))
		if !Importing() {
			t.Error("Importing() is false while the recompression runs")
		}
	}
	rs, err := Recompress(ctx, ws, pause)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Chunks < 5 || len(during) == 0 {
		t.Fatalf("recompressed %d chunks in %d pauses, want 5 in two steps at least", rs.Chunks, len(during))
	}
	for _, l := range during {
		if l > 2*ImportMemoryLimit {
			t.Errorf("memory limit while recompressing = %d MiB, want about ImportMemoryLimit (%d MiB)", l>>20, ImportMemoryLimit>>20)
		}
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after the recompression = %d, want the one before (none)", got)
	}
}
