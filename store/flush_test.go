package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// logUsage is what du counts for the store's memtable logs and tables.
func logUsage(t *testing.T, s *Store) (mem, sst int64) {
	t.Helper()
	ents, err := os.ReadDir(s.dbDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		n := info.Sys().(*syscall.Stat_t).Blocks * 512
		switch filepath.Ext(e.Name()) {
		case ".mem":
			mem += n
		case ".sst":
			sst += n
		}
	}
	return mem, sst
}

// TestFlushIdle: records a daemon commits stay in the memtable's log,
// uncompressed, until a flush; FlushIdle writes them to a (compressed)
// table and the log's space goes, once enough was committed and the store
// has been idle long enough, and not before; everything reads as before.
func TestFlushIdle(t *testing.T) {
	s := openTestStore(t)
	const n = 6000
	confMustWrite(t, s, func(w *Writer) error {
		for i := range n {
			st := confFileState(fmt.Sprint(i), false)
			p := fmt.Sprintf("src/pkg%d/%s/file%04d.go", i%10, strings.Repeat("dir", 3), i)
			if _, err := w.Record(Change{Path: p, Kind: Added, State: st, Attr: Attr{Session: "s1", Run: "r1"}}, Fingerprint{}); err != nil {
				return err
			}
		}
		return nil
	})
	memBefore, sstBefore := logUsage(t, s)
	if did, err := s.FlushIdle(time.Hour); err != nil || did {
		t.Fatalf("FlushIdle right after a commit: %v, %v; want no flush", did, err)
	}
	if did, err := s.FlushIdle(0); err != nil || !did {
		t.Fatalf("FlushIdle after %d records: %v, %v; want a flush", n, did, err)
	}
	mem, sst := logUsage(t, s)
	t.Logf("logs %d -> %d bytes, tables %d -> %d", memBefore, mem, sstBefore, sst)
	if memBefore < 1<<20 || mem*4 > memBefore || sst == 0 || sst+mem >= memBefore {
		t.Errorf("memtable logs %d -> %d bytes, tables %d -> %d: want the logs' space gone into smaller tables", memBefore, mem, sstBefore, sst)
	}
	if did, err := s.FlushIdle(0); err != nil || did {
		t.Errorf("a second FlushIdle with nothing committed: %v, %v; want no flush", did, err)
	}
	confMustView(t, s, func(r *Reader) error {
		c, err := r.Change(n)
		if err != nil || !strings.HasSuffix(c.Path, fmt.Sprintf("file%04d.go", n-1)) {
			t.Errorf("the last change after the flush: %+v, %v", c, err)
		}
		return err
	})
}
