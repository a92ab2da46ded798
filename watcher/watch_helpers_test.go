package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fileState is what the fake sink records of a file: its type and
// permission bits, and its content (a symlink's target).
type fileState struct {
	mode fs.FileMode
	data string
}

func readState(abs string) (fileState, bool, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return fileState{}, false, err
	}
	st := fileState{mode: fi.Mode() & (fs.ModeType | fs.ModePerm)}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(abs)
		st.data = t
		return st, true, err
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(abs)
		st.data = string(b)
		return st, true, err
	}
	return st, false, nil // a directory or another type
}

// fakeSink is an in-memory Sink. Capture lstat's what it is given: a file
// is recorded, a missing path deletes it and everything under it, and a
// directory re-checks the recorded paths under it (it never discovers new
// files: that is the watcher's job). Reconcile rebuilds from the walk.
type fakeSink struct {
	root string

	mu         sync.Mutex
	files      map[string]fileState
	under      map[string]int // recorded files below each directory
	bad        []string       // paths the watcher must never send
	captures   int
	reconciles int
	block      chan struct{} // if set, Capture waits for it to close
	failNext   int           // Capture calls left to fail
}

func newFakeSink(root string) *fakeSink {
	return &fakeSink{root: root, files: map[string]fileState{}, under: map[string]int{}}
}

// set records or (ok false) forgets p, keeping under in step.
func (s *fakeSink) set(p string, st fileState, ok bool) {
	_, had := s.files[p]
	if ok {
		s.files[p] = st
	} else {
		delete(s.files, p)
	}
	d := 0
	switch {
	case ok && !had:
		d = 1
	case !ok && had:
		d = -1
	}
	for dir := parentDir(p); d != 0; dir = parentDir(dir) {
		s.under[dir] += d
		if dir == "" {
			break
		}
	}
}

func (s *fakeSink) Capture(ctx context.Context, paths []string) error {
	s.mu.Lock()
	block := s.block
	s.mu.Unlock()
	if block != nil {
		<-block
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.captures++
	if s.failNext > 0 {
		s.failNext--
		return errors.New("fake sink: capture failed")
	}
	for _, p := range paths {
		if p == "" || strings.Contains(p, InternalPrefix) || strings.HasPrefix(p, ".git/") || p == ".git" {
			s.bad = append(s.bad, p)
			continue
		}
		st, isFile, err := readState(filepath.Join(s.root, p))
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err
		case isFile:
			s.set(p, st, true)
			s.dropUnder(p, false)
		case err != nil: // gone
			s.set(p, st, false)
			s.dropUnder(p, false)
		default: // a directory now
			s.set(p, st, false)
			s.dropUnder(p, true)
		}
	}
	return nil
}

// dropUnder forgets the recorded paths below dir; with recheck, those that
// still exist are re-read instead.
func (s *fakeSink) dropUnder(dir string, recheck bool) {
	if s.under[dir] == 0 {
		return
	}
	for p := range s.files {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		st, ok, _ := readState(filepath.Join(s.root, p))
		s.set(p, st, recheck && ok)
	}
}

func (s *fakeSink) Reconcile(ctx context.Context, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error {
	next := map[string]fileState{}
	var bad []string
	err := walk(ctx, func(rel string, info fs.FileInfo) error {
		if strings.Contains(rel, InternalPrefix) || strings.HasPrefix(rel, ".git/") {
			bad = append(bad, rel)
			return nil
		}
		st, ok, err := readState(filepath.Join(s.root, rel))
		if ok && err == nil {
			next[rel] = st
		}
		return nil
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bad = append(s.bad, bad...)
	s.reconciles++
	if err != nil {
		return err
	}
	s.files, s.under = map[string]fileState{}, map[string]int{}
	for p, st := range next {
		s.set(p, st, true)
	}
	return nil
}

func (s *fakeSink) snapshot() map[string]fileState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.files)
}

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
	opts.Logf = func(format string, args ...any) { t.Logf(format, args...) }
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
