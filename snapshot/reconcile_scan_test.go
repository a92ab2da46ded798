package snapshot

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestReconcileHoldsNoVisitedPath checks what a reconcile of an unchanged
// workspace holds at the end of its walk: the entries it loaded, and
// nothing for each path it visited. Holding every visited path's lstat
// info until the walk ended (as a reconcile did) held about 250 bytes a
// file more; every embedded command and every daemon start walks.
func TestReconcileHoldsNoVisitedPath(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20,000 files")
	}
	const n = 20000
	ws, walk := unchangedWorkspace(t, n)
	mustNil(t, ws.Reconcile(context.Background(), walk)) // warm: caches, pools
	var before, atEnd runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	visited := 0
	counted := func(ctx context.Context, visit func(string, fs.FileInfo) error) error {
		return walk(ctx, func(rel string, info fs.FileInfo) error {
			if err := visit(rel, info); err != nil {
				return err
			}
			if visited++; visited == n {
				runtime.GC()
				runtime.ReadMemStats(&atEnd)
			}
			return nil
		})
	}
	mustNil(t, ws.Reconcile(context.Background(), counted))
	if visited != n {
		t.Fatalf("the walk visited %d files, want %d", visited, n)
	}
	perFile := (int64(atEnd.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("held at the end of the walk: %d bytes a file", perFile)
	// The entries' map is about 150 bytes a file (path, state, the map's
	// own slots); the visited paths' infos and list were 250 more.
	if perFile > 250 {
		t.Errorf("a reconcile held %d bytes a visited file at the end of its walk, want at most 250 (the entries alone)", perFile)
	}
}

// unchangedWorkspace is a workspace of n small files, imported, whose
// files are out of the racy window (a reconcile re-hashes none).
func unchangedWorkspace(t *testing.T, n int) (*Workspace, WalkFunc) {
	t.Helper()
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("d%03d/f%05d.go", i/100, i))
		if i%100 == 0 {
			mustNil(t, os.MkdirAll(filepath.Dir(p), 0o755))
		}
		mustNil(t, os.WriteFile(p, []byte(fmt.Sprintf("package f\n\n// file %d\n", i)), 0o644))
		mustNil(t, os.Chtimes(p, old, old))
	}
	ws, err := Open(t.TempDir(), root, Options{MaxFileSize: 1 << 20})
	mustNil(t, err)
	t.Cleanup(func() { ws.Close() })
	walk := modelWalk(root)
	if _, _, err := ws.Import(context.Background(), walk); err != nil {
		t.Fatal(err)
	}
	return ws, walk
}
