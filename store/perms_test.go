package store

import (
	"io/fs"
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
