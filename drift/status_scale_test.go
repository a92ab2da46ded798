package drift

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// daemonLike is an engine as the daemon builds it on a workspace of n
// imported files: its Sync captures the paths a test changed (what the
// watcher's cookie round hands the store), never a walk. It returns the
// engine and a function that changes 10 files and queues them.
func daemonLike(t testing.TB, n int) (*Engine, func(round int)) {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		p := filepath.Join(root, fmt.Sprintf("d%03d/f%05d.go", i/100, i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package f\n\n// file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := snapshot.Open(t.TempDir(), root, snapshot.Options{MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	w := &watcher.Walker{Root: root, Ignorer: watcher.NewIgnorer(root, nil)}
	if _, _, err := ws.Import(context.Background(), w.Walk); err != nil {
		t.Fatal(err)
	}
	var queued []string
	e := New(ws, Options{Sync: func(ctx context.Context) error {
		paths := queued
		queued = nil
		return ws.Capture(ctx, paths)
	}})
	change := func(round int) {
		for i := range 10 {
			j := i * (n / 10)
			rel := fmt.Sprintf("d%03d/f%05d.go", j/100, j)
			f, err := os.OpenFile(filepath.Join(root, rel), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "// round %d\n", round)
			f.Close()
			queued = append(queued, rel)
		}
	}
	return e, change
}

// statusAllocs is the fewest allocations of three statuses, each after 10
// files changed (the collector's and Badger's own goroutines allocate
// too: the fewest is the request's).
func statusAllocs(t *testing.T, e *Engine, change func(int)) uint64 {
	t.Helper()
	var fewest uint64
	for round := range 3 {
		change(round)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		st, err := e.Status(context.Background())
		runtime.ReadMemStats(&after)
		if err != nil || len(st.Changes) != 10 {
			t.Fatalf("status: %d changes, %v", len(st.Changes), err)
		}
		if n := after.Mallocs - before.Mallocs; round == 0 || n < fewest {
			fewest = n
		}
	}
	return fewest
}

// TestStatusCostDoesNotGrowWithTheTree: a status with 10 files changed
// (its sync capturing them, as the daemon's does) allocates about as much
// on 5,000 files as on 250. Anything that reads every entry, walks the
// tree or lists the store per request allocates for each and fails this;
// what the changes cost is the same at both sizes. No time is measured.
func TestStatusCostDoesNotGrowWithTheTree(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 5,000 files")
	}
	small, changeSmall := daemonLike(t, 250)
	large, changeLarge := daemonLike(t, 5000)
	a, b := statusAllocs(t, small, changeSmall), statusAllocs(t, large, changeLarge)
	t.Logf("allocations per status, 10 changed: %d at 250 files, %d at 5,000", a, b)
	if b > a*3/2+500 {
		t.Fatalf("a status allocates %d times at 5,000 files against %d at 250: it does work for every entry", b, a)
	}
}

// BenchmarkStatusTenChanged is a status with 10 files changed, the sync
// capturing them, at two tree sizes: the two should cost the same.
func BenchmarkStatusTenChanged(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			e, change := daemonLike(b, n)
			b.ReportAllocs()
			round := 0
			for b.Loop() {
				change(round)
				round++
				if _, err := e.Status(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
