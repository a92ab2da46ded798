package local

import (
	"context"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/watcher"
)

// The first import runs under ImportMemoryLimit, and the limit is given
// back when it ends.
func TestFirstImportRunsUnderTheImportLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(old)

	root := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	ctx := context.Background()
	ws, err := OpenStore(ctx, cfg, root, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	w := &watcher.Walker{Root: root, Ignorer: Ignorer(cfg, root)}
	var during int64
	walk := func(ctx context.Context, visit func(string, fs.FileInfo) error) error {
		during = debug.SetMemoryLimit(-1)
		if !Importing() {
			t.Error("Importing() is false during the first import")
		}
		return w.Walk(ctx, visit)
	}
	if err := FirstImport(ctx, cfg, ws, walk, nil); err != nil {
		t.Fatal(err)
	}
	if during == 0 || during > 2*ImportMemoryLimit {
		t.Errorf("memory limit during the import = %d MiB, want about ImportMemoryLimit (%d MiB)", during>>20, ImportMemoryLimit>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit after the import = %d, want the one before (none)", got)
	}
	if Importing() {
		t.Error("Importing() is still true after the import")
	}
}

// Overlapping imports keep the limit until the last one ends; with
// GOMEMLIMIT set the runtime's limit is left alone.
func TestLimitImportMemoryNestsAndHonoursGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	old := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(old)

	first := LimitImportMemory()
	second := LimitImportMemory()
	first()
	first() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got >= 1<<40 {
		t.Errorf("limit after the first of two imports ended = %d, want it still held", got)
	}
	second()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("limit after both ended = %d, want %d", got, int64(1<<40))
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	restore := LimitImportMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set the import changed the limit to %d", got)
	}
	if Importing() {
		t.Error("with GOMEMLIMIT set the import still claims the limit")
	}
	restore()
}
