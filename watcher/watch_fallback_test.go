package watcher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIgnoreChange makes a directory ignored, then not ignored, by editing
// .gitignore and .ckptignore: captured paths and watches follow the rules.
func TestIgnoreChange(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "build/out.o", "o")
	writeFile(t, root, "build/sub/x.o", "x")
	writeFile(t, root, "src/main.go", "package main")
	h := start(t, root, Options{})
	h.check("initial")
	dirs := h.w.Stats().WatchedDirs // root, build, build/sub, src

	writeFile(t, root, ".gitignore", "build/\n")
	h.check("build ignored")
	if _, ok := h.sink.snapshot()["build/out.o"]; ok {
		t.Fatal("build/out.o still captured after it became ignored")
	}
	if got := h.w.Stats().WatchedDirs; got != dirs-2 {
		t.Errorf("WatchedDirs = %d, want %d: ignored directories are not watched", got, dirs-2)
	}
	writeFile(t, root, "build/new.o", "n")
	h.check("write in ignored dir")

	writeFile(t, root, "src/.ckptignore", "*.tmp\n")
	writeFile(t, root, "src/a.tmp", "t")
	h.check("ckptignore")

	must(t, os.Remove(filepath.Join(root, ".gitignore")))
	h.check("build unignored")
	if _, ok := h.sink.snapshot()["build/new.o"]; !ok {
		t.Fatal("build/new.o not captured after build was unignored")
	}
	// The watches came back: a write below is an event again.
	writeFile(t, root, "build/sub/later.o", "l")
	h.check("write in unignored dir")

	// An ignore file arriving with a moved-in directory applies at once.
	outside := t.TempDir()
	writeFile(t, outside, "pkg/.gitignore", "secret\n")
	writeFile(t, outside, "pkg/secret", "s")
	writeFile(t, outside, "pkg/public", "p")
	must(t, os.Rename(filepath.Join(outside, "pkg"), filepath.Join(root, "pkg")))
	h.check("moved-in ignore file")
}

// TestWatchLimit simulates ENOSPC from inotify for one directory: the error
// is recorded with the sysctl hint, and Sync stays exact by re-walking.
func TestWatchLimit(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "ok/f", "f")
	writeFile(t, root, "full/f", "f")
	h := start(t, root, Options{}, func(w *Watcher) {
		w.addFn = func(abs string) error {
			if filepath.Base(abs) == "full" {
				return syscall.ENOSPC
			}
			return w.fsw.Add(abs) // set by Run before any watch is added
		}
	})
	st := h.w.Stats()
	if !strings.Contains(st.LastError, "sudo sysctl fs.inotify.max_user_watches=") {
		t.Fatalf("LastError = %q, want the sysctl hint", st.LastError)
	}
	writeFile(t, root, "full/g", "unwatched directory")
	writeFile(t, root, "ok/g", "watched directory")
	h.check("degraded")
	if got := h.w.Stats().Rewalks; got < 2 {
		t.Errorf("Rewalks = %d: a degraded Sync must re-walk", got)
	}
}

// TestCaptureFailure: a sink that fails makes the watcher re-walk rather
// than forget the paths.
func TestCaptureFailure(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, Options{})
	h.sink.mu.Lock()
	h.sink.failNext = 1
	h.sink.mu.Unlock()
	writeFile(t, root, "a", "a")
	h.check("after a failed capture")
	if st := h.w.Stats(); st.LastError == "" || st.Rewalks < 2 {
		t.Errorf("stats %+v: want the error recorded and a re-walk", st)
	}
}

// TestShutdownDelivers: events received before Run returns reach the sink.
func TestShutdownDelivers(t *testing.T) {
	root := t.TempDir()
	sink := newFakeSink(root)
	w, err := New(root, nil, sink, Options{Debounce: time.Hour, MaxDelay: time.Hour})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	<-w.Ready()
	writeFile(t, root, "f", "x")
	deadline := time.Now().Add(5 * time.Second)
	for w.Stats().QueueDepth == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	must(t, <-ran)
	checkNoLeaks(t)
	if _, ok := sink.snapshot()["f"]; !ok {
		t.Fatal("a pending path was not delivered at shutdown")
	}
	if err := w.Sync(context.Background()); err == nil {
		t.Fatal("Sync after Run returned: want an error")
	}
}

func TestPeriodicRescan(t *testing.T) {
	root := t.TempDir()
	h := start(t, root, Options{RescanInterval: 30 * time.Millisecond})
	deadline := time.Now().Add(5 * time.Second)
	for h.w.Stats().Rewalks < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v: no periodic re-walks", h.w.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	writeFile(t, root, "f", "x")
	h.check("with periodic re-walks")
}
