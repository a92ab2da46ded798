package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// statAll is the measurement without the cache: every file's blocks.
func statAll(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && info.Name() != reserveName {
			n += blocksOf(info)
		}
		return nil
	})
	return n
}

// TestStoreFilesStatsOnlyWhatMayChange: once tables and older value-log
// files have settled, a measurement stats only the files that may still
// grow and new ones, and still adds up to a stat of every file as files
// are written, added and deleted.
func TestStoreFilesStatsOnlyWhatMayChange(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	if err := os.Mkdir(db, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	write := func(name string, size int, mtime time.Time) {
		t.Helper()
		p := filepath.Join(db, name)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	const tables = 40
	for i := range tables {
		write(pad(i)+".sst", 5000, old)
	}
	write("000001.vlog", 9000, old)
	write("000002.vlog", 9000, old) // the newest: appended to, whatever its age
	write("00001.mem", 4096, time.Now())
	write("MANIFEST", 100, old)
	write(reserveName, 20000, old)
	os.WriteFile(filepath.Join(dir, "root"), []byte("/w"), 0o600)

	var f storeFiles
	check := func(step string, maxStats int) {
		t.Helper()
		f.stats = 0
		if got, want := f.measure(dir, time.Now()), statAll(t, dir); got != want {
			t.Fatalf("%s: measured %d bytes, a stat of every file says %d", step, got, want)
		}
		if f.stats > maxStats {
			t.Fatalf("%s: %d files stat'ed, want at most %d", step, f.stats, maxStats)
		}
	}
	check("first", tables+10)
	// the newest value log, the memtable, the manifest and root.
	check("settled", 4)
	write("000002.vlog", 50000, old)
	check("the newest value log grew", 4)
	write("000003.vlog", 10, time.Now()) // 000002 is older now: it settles
	check("a new value log", 5)
	check("again", 4)
	os.Remove(filepath.Join(db, pad(3)+".sst"))
	os.Remove(filepath.Join(db, "000001.vlog"))
	write(pad(tables)+".sst", 7000, time.Now()) // not settled yet
	check("tables replaced", 5)
	check("a young table is stat'ed again", 5)
}

func pad(i int) string { return fmt.Sprintf("%06d", i) }
