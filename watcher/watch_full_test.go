package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fullSink fails its first Reconciles as a store on a full disk does: with
// an error that matches ENOSPC.
type fullSink struct {
	*fakeSink
	fails atomic.Int32
}

func (s *fullSink) Reconcile(ctx context.Context, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error {
	if s.fails.Add(-1) >= 0 {
		return fmt.Errorf("the state directory is full: %w", syscall.ENOSPC)
	}
	return s.fakeSink.Reconcile(ctx, walk)
}

// TestInitialReconcileOutOfSpace: a sink that is out of space at start
// does not stop the watcher. It is ready, Sync reports the error, and the
// retried re-walk catches the sink up once it has room.
func TestInitialReconcileOutOfSpace(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	var full *fullSink
	h := start(t, root, Options{}, func(w *Watcher) {
		full = &fullSink{fakeSink: w.sink.(*fakeSink)}
		full.fails.Store(2) // the initial walk and the first Sync's
		w.sink = full
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.w.Sync(ctx); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Sync while the sink is out of space: %v, want its ENOSPC", err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.txt"), []byte("b"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.check("after the sink has room again")
}
