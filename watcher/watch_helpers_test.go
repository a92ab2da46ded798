package watcher

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// diskState is a fresh walk of the tree (independent of Walker), with a
// fresh Ignorer: what the sink must hold after a Sync.
func diskState(t testing.TB, root string) map[string]fileState {
	t.Helper()
	ig := NewIgnorer(root, nil)
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+"/"))
		if ig.Ignored(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if st, ok, err := readState(p); ok && err == nil {
			out[rel] = st
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// harness runs a Watcher on a temp workspace for one test.
type harness struct {
	t    testing.TB
	root string
	w    *Watcher
	sink *fakeSink
}

// start runs a watcher on root until the test ends; setup may adjust it
// before Run.
func start(t testing.TB, root string, opts Options, setup ...func(*Watcher)) *harness {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = 10 * time.Millisecond
	}
	if opts.MaxDelay == 0 {
		opts.MaxDelay = 100 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(tLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	sink := newFakeSink(root)
	w, err := New(root, NewIgnorer(root, nil), sink, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
		checkNoLeaks(t)
	})
	select {
	case <-w.Ready():
	case err := <-ran:
		t.Fatalf("Run returned before ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("watcher not ready after 10s")
	}
	return &harness{t: t, root: root, w: w, sink: sink}
}

// sync runs Sync with a generous timeout and fails the test on error.
func (h *harness) sync() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.w.Sync(ctx); err != nil {
		h.t.Fatalf("Sync: %v", err)
	}
}

// check syncs and compares the sink with the disk.
func (h *harness) check(what string) {
	h.t.Helper()
	h.sync()
	got, want := h.sink.snapshot(), diskState(h.t, h.root)
	if d := diffStates(got, want); d != "" {
		h.t.Fatalf("%s: sink differs from disk after Sync (stats %+v):\n%s", what, h.w.Stats(), d)
	}
	h.sink.mu.Lock()
	bad := h.sink.bad
	h.sink.mu.Unlock()
	if len(bad) > 0 {
		h.t.Fatalf("%s: internal or .git paths reached the sink: %q", what, bad)
	}
}

func diffStates(got, want map[string]fileState) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		g, ok := got[k]
		switch {
		case !ok:
			fmt.Fprintf(&b, "  missing %s\n", k)
		case g != want[k]:
			fmt.Fprintf(&b, "  stale %s: got %v %q, want %v %q\n", k, g.mode, g.data, want[k].mode, want[k].data)
		}
		if b.Len() > 4000 {
			return b.String() + "  ...\n"
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			fmt.Fprintf(&b, "  extra %s\n", k)
			if b.Len() > 4000 {
				return b.String() + "  ...\n"
			}
		}
	}
	return b.String()
}

func writeFile(t testing.TB, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkNoLeaks fails the test if goroutines of a Watcher or of fsnotify
// outlive Run (tests using it do not run in parallel).
func checkNoLeaks(t testing.TB) {
	t.Helper()
	var stacks string
	for range 200 {
		buf := make([]byte, 1<<20)
		stacks = string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "watcher.(*Watcher)") && !strings.Contains(stacks, "fsnotify.(*inotify)") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("goroutines left running after Run returned:\n%s", stacks)
}

// tLogWriter writes a watcher's log lines to the test's log.
type tLogWriter struct{ t testing.TB }

func (w tLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
