package watcher

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
		case errors.Is(err, syscall.ENAMETOOLONG):
			// The real sink reads such a path one directory at a time;
			// this one cannot name it.
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
