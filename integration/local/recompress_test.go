package local

import (
	"context"
	"fmt"
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

// An embedded command's reconcile runs under the import's memory limit
// too, and gives it back when done.
func TestEmbeddedScanRunsUnderTheImportLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(old)

	root := t.TempDir()
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	scanning := false
	var during []int64
	progress := func(done, total int) { // called by the scan's ingest: over 1,000 files
		if scanning {
			during = append(during, debug.SetMemoryLimit(-1))
		}
	}
	e, err := Embedded(context.Background(), cfg, root, progress, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Workspace().Close()
	for i := range 1200 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scanning = true
	st, err := e.Status(context.Background())
	if err != nil || len(st.Changes) != 1200 {
		t.Fatalf("status: %d changes, %v", len(st.Changes), err)
	}
	if len(during) == 0 {
		t.Fatal("the scan reported no progress")
	}
	for _, l := range during {
		if l > 2*ImportMemoryLimit {
			t.Errorf("memory limit during an embedded scan = %d MiB, want about ImportMemoryLimit (%d MiB)", l>>20, ImportMemoryLimit>>20)
		}
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after the scan = %d, want the one before (none)", got)
	}
}
