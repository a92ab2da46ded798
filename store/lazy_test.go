package store

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lazyStore opens a new, empty store with OpenLazy. The database is created
// and closed first: OpenLazy opens a store that does not exist yet
// read-write at once, and these tests are about the read-only start.
func lazyStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = OpenLazy(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !s.readOnly {
		t.Fatal("OpenLazy of an existing, cleanly closed store did not open it read-only")
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformanceLazy(t *testing.T) {
	RunConformance(t, lazyStore)
}

// dbFiles lists the database's files with their sizes and modification
// times.
func dbFiles(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(s.dbDir(), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[d.Name()] = info.ModTime().String() + " " + info.Mode().String() + " " + time.Duration(info.Size()).String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func recordFile(t *testing.T, s *Store, path string, content []byte) Hash {
	t.Helper()
	h := HashBytes(content)
	confMustWrite(t, s, func(w *Writer) error {
		if err := w.PutBlob(h, EncodeBlob(content)); err != nil {
			return err
		}
		st := State{Kind: File, Mode: 0o644, Hash: h, Stored: true}
		_, err := w.Record(Change{Path: path, Kind: Added, State: st}, Fingerprint{Sum: h.H1, Count: 1})
		return err
	})
	return h
}

func TestLazyReadLeavesTheFilesAlone(t *testing.T) {
	s := lazyStore(t)
	recordFile(t, s, "f", []byte("content"))
	dir := s.Dir()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := OpenLazy(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := dbFiles(t, s)
	time.Sleep(20 * time.Millisecond) // a rewritten file would show a new mtime
	err = s.View(func(r *Reader) error {
		_, _, err := r.Entry("f")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after := dbFiles(t, s)
	for name, was := range before {
		if now, ok := after[name]; !ok || now != was {
			t.Errorf("%s: %q before a read-only session, %q after", name, was, now)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("a read-only session created %s", name)
		}
	}
}

// Every embedded command that writes is one session of its own. Whatever
// their number, the open that follows must not find more and more files.
func TestLazyWriteSessionsKeepTheFileCountBounded(t *testing.T) {
	s := lazyStore(t)
	dir := s.Dir()
	s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var hashes []Hash
	for i := range 3 * l0CompactAt {
		s, err := OpenLazy(dir, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// Incompressible, and over ValueThreshold: a value-log value in a
		// store opened with Open.
		content := make([]byte, 64<<10)
		for j := range content {
			content[j] = byte(rng.Uint32())
		}
		hashes = append(hashes, recordFile(t, s, "f"+strings.Repeat("x", i), content))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		var logs, tables int
		for name := range dbFiles(t, s) {
			switch filepath.Ext(name) {
			case ".vlog":
				logs++
			case ".sst":
				tables++
			}
		}
		// Badger keeps the newest value-log file, and the one it starts
		// at the next open, even when empty.
		if logs > 2 {
			t.Errorf("after %d write sessions: %d value-log files", i+1, logs)
		}
		if tables > l0CompactAt+1 {
			t.Errorf("after %d write sessions: %d tables", i+1, tables)
		}
	}
	s, err := OpenLazy(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l0 := s.db.Levels()[0].NumTables; l0 >= l0CompactAt {
		t.Errorf("level 0 holds %d tables, want fewer than %d", l0, l0CompactAt)
	}
	err = s.View(func(r *Reader) error {
		for _, h := range hashes {
			b, err := r.Blob(h)
			if err != nil {
				return err
			}
			if HashBytes(b) != h {
				t.Errorf("blob %v reads back as %v", h, HashBytes(b))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The first write reopens the database while other goroutines run Views:
// the swap must wait for those running, and none may fail or see a closed
// database.
func TestLazyUpgradeUnderConcurrentViews(t *testing.T) {
	s := lazyStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				err := s.View(func(r *Reader) error {
					return r.Entries("", func(string, State) error { return nil })
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	h := recordFile(t, s, "f", []byte("after the upgrade"))
	recordFile(t, s, "g", []byte("and once more"))
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("view during the upgrade: %v", err)
	}
	if s.readOnly {
		t.Error("the store is still read-only after writes")
	}
	err := s.View(func(r *Reader) error {
		st, _, err := r.Entry("f")
		if err == nil && st.Hash != h {
			t.Errorf("entry f: %v, want %v", st.Hash, h)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A process killed with its memtable unflushed leaves a log that Badger
// must truncate: OpenLazy cannot open that read-only, and opens it
// read-write, keeping every synced write.
func TestLazyOpenAfterAKill(t *testing.T) {
	s := openTestStore(t)
	recordFile(t, s, "f", []byte("synced before the kill"))
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	// The directory as a kill -9 would leave it: copied while open.
	image := t.TempDir()
	if out, err := exec.Command("cp", "-a", s.Dir()+"/.", image).CombinedOutput(); err != nil {
		t.Fatalf("copy the store: %v: %s", err, out)
	}
	mems, _ := filepath.Glob(filepath.Join(image, "db", "*.mem"))
	if len(mems) == 0 {
		t.Fatal("the image has no memtable log: the test no longer tests a recovery")
	}
	s2, err := OpenLazy(image, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.readOnly {
		t.Error("a store with an unflushed memtable log was opened read-only")
	}
	if got := s2.Head(); got != 1 {
		t.Errorf("head after the kill: %d, want 1", got)
	}
	if _, err := os.Stat(filepath.Join(image, "lock")); err != nil {
		t.Fatal(err)
	}
}

// Contents that short sessions wrote live in the LSM tree, not in the
// value log: retention must give their space back all the same.
func TestLazyReclaimShrinks(t *testing.T) {
	const sessions, perSession, size = 8, 5, 256 << 10
	const data = sessions * perSession * size
	s := lazyStore(t)
	dir := s.Dir()
	s.Close()
	rng := rand.NewChaCha8([32]byte{3})
	for range sessions {
		s, err := OpenLazy(dir, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		confMustWrite(t, s, func(w *Writer) error {
			for range perSession {
				b := pruneRandBytes(rng, size)
				if err := w.PutBlob(HashBytes(b), EncodeBlob(b)); err != nil {
					return err
				}
			}
			return nil
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenLazy(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := s.Size()
	if before < data {
		t.Fatalf("disk usage %d after storing %d bytes", before, data)
	}
	var n int
	confMustWrite(t, s, func(w *Writer) (err error) { n, err = w.SweepBlobs(); return err })
	if n != sessions*perSession {
		t.Fatalf("swept %d blobs, want %d", n, sessions*perSession)
	}
	if _, err := s.Reclaim(); err != nil {
		t.Fatal(err)
	}
	after := s.Size()
	t.Logf("disk usage %d -> %d", before, after)
	if after > data/10 {
		t.Errorf("disk usage is %d bytes after reclaiming %d, want under %d", after, data, data/10)
	}
}
