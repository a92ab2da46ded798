//go:build linux

package watcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mmapWrite writes data at the start of the file at abs through a shared
// mapping, after closing the file, and msyncs: no inotify event reports it.
func mmapWrite(t testing.TB, abs, data string) {
	t.Helper()
	f, err := os.OpenFile(abs, os.O_RDWR, 0)
	must(t, err)
	m, err := unix.Mmap(int(f.Fd()), 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	must(t, f.Close())
	must(t, err)
	copy(m, data)
	must(t, unix.Msync(m, unix.MS_SYNC))
	must(t, unix.Munmap(m))
}

// TestRescanFindsWhatNoEventReports: a write through a shared mapping
// after close raises no inotify event, so Sync never sees it; Rescan
// re-walks the workspace and does, and only Rescan walks.
func TestRescanFindsWhatNoEventReports(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "mapped.bin", "hello world\n")
	writeFile(t, root, "other", "o\n")
	h := start(t, root, Options{})
	walks := func() int {
		h.sink.mu.Lock()
		defer h.sink.mu.Unlock()
		return h.sink.reconciles
	}
	h.check("after the start")
	before := walks()

	mmapWrite(t, filepath.Join(root, "mapped.bin"), "HELLO")
	time.Sleep(50 * time.Millisecond) // an event, if there were one, would be queued by now
	h.sync()
	if got := h.sink.snapshot()["mapped.bin"].data; got != "hello world\n" {
		t.Fatalf("Sync saw the write through the mapping (%q): this test cannot tell Rescan from Sync", got)
	}
	if walks() != before {
		t.Fatalf("Sync re-walked the workspace (%d walks, %d before)", walks(), before)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	must(t, h.w.Rescan(ctx))
	if got := h.sink.snapshot()["mapped.bin"].data; got != "HELLO world\n" {
		t.Fatalf("after Rescan the sink holds %q, want the write through the mapping", got)
	}
	if walks() != before+1 {
		t.Errorf("Rescan: %d walks, want %d", walks(), before+1)
	}
	h.check("after Rescan")
}

// TestRescanStopped: Rescan of a watcher that is not running fails.
func TestRescanStopped(t *testing.T) {
	w, err := New(t.TempDir(), nil, newFakeSink(t.TempDir()), Options{})
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := w.Rescan(ctx); err == nil {
		t.Fatal("Rescan of a watcher never run: nil error")
	}
}
