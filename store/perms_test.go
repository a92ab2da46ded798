package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Every file of a store is 0600 and every directory 0700, whatever the
// umask: Badger alone creates its files 0666 less the umask.
func TestStoreFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, lazy := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "store")
		open := Open
		if lazy {
			open = OpenLazy
		}
		s, err := open(dir, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(func(w *Writer) error { return w.PutActive(Active{Runs: []ActiveRun{{Session: "s", Run: "r"}}}) }); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		assertPrivate(t, dir, "after Sync")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		assertPrivate(t, dir, "after Close")
	}
}

func assertPrivate(t *testing.T, dir, when string) {
	t.Helper()
	files := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		perm := info.Mode().Perm()
		switch {
		case d.IsDir() && perm != 0o700:
			t.Errorf("%s: directory %s has mode %04o, want 0700", when, p, perm)
		case d.Type().IsRegular():
			files++
			if perm != 0o600 {
				t.Errorf("%s: file %s has mode %04o, want 0600", when, p, perm)
			}
		}
		return nil
	})
	if files < 3 {
		t.Errorf("%s: only %d files in %s: is this the store?", when, files, dir)
	}
}

// TestSyncNarrowsNewFiles: Sync, which no longer stats the tables and
// value logs it found private before, still narrows a table or value log
// of a new name, and a file of an old name that is not one of those (the
// manifest, which Badger rewrites under its name).
func TestSyncNarrowsNewFiles(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	wide := []string{filepath.Join(s.dbDir(), "999999.sst"), filepath.Join(s.dbDir(), "999999.vlog"), filepath.Join(s.dbDir(), "MANIFEST")}
	for _, p := range wide[:2] {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(wide[2], 0o644); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		for _, p := range wide {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("after Sync %d: %s has mode %04o, want 0600", round+1, p, fi.Mode().Perm())
			}
		}
		if round == 0 {
			// The manifest widened again: looked at at every Sync.
			if err := os.Chmod(wide[2], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
