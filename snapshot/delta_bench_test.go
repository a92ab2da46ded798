package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// BenchmarkCapture1000Edited captures 1000 files that each got a line
// appended (the bench harness's "checkpoint, 1000 files changed"): with
// deltas, each one also reads its previous version.
func BenchmarkCapture1000Edited(b *testing.B) {
	ws, paths := benchWorkspace(b, 1000)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		benchAppend(b, ws.root, paths, fmt.Sprint(i))
		i++
		b.StartTimer()
		if err := ws.Capture(context.Background(), paths); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestore1000Edited restores 1000 files back and forth between
// two checkpoints, after every file was edited and captured 16 times: the
// worst case for reads, each version at the end of a delta chain as long
// as it gets (16 and 15 deltas).
func BenchmarkRestore1000Edited(b *testing.B) {
	ws, paths := benchWorkspace(b, 1000)
	ctx := context.Background()
	var cps []store.Checkpoint
	for k := range 16 {
		benchAppend(b, ws.root, paths, fmt.Sprint(k))
		if err := ws.Capture(ctx, paths); err != nil {
			b.Fatal(err)
		}
		cp, err := ws.Cut(ReasonManual, "", store.Attr{})
		if err != nil {
			b.Fatal(err)
		}
		cps = append(cps, cp)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		res, err := ws.Restore(ctx, cps[len(cps)-1-i%2], RestoreOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if i > 0 && len(res.Restored) != len(paths) {
			b.Fatalf("restored %d paths, want %d", len(res.Restored), len(paths))
		}
		i++
	}
}

// benchAppend appends a line to each path.
func benchAppend(b *testing.B, root string, paths []string, tag string) {
	b.Helper()
	for _, p := range paths {
		f, err := os.OpenFile(filepath.Join(root, p), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "// edited %s\n", tag)
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
