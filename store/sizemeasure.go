package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// settleAge is how long a table or an older value-log file must have gone
// unmodified before its size is taken as final.
const settleAge = 10 * time.Second

// storeFiles measures the store's size on disk. Most of a store's files
// never change once written: Badger's tables (.sst) are immutable, and a
// value-log file is appended to only while it is the newest; both are
// deleted, never rewritten. Their blocks are remembered once they have
// settled, so a measurement stats only the files that may still grow (the
// newest value log, the memtables, the manifest) and the new ones: a
// status after a write measured the store by a stat of every file, which
// grows with the store (91 files at 200,000 workspace files).
type storeFiles struct {
	mu      sync.Mutex
	settled map[string]int64 // path -> blocks in bytes
	stats   int              // files stat'ed (for tests)
}

// measure adds up the blocks of the files under dir (but the reserve).
func (f *storeFiles) measure(dir string, now time.Time) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var n int64
	seen := make(map[string]bool, len(f.settled))
	newest := map[string]int{} // directory -> its newest value-log file's number
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || d.Name() == reserveName {
			return nil
		}
		if b, ok := f.settled[path]; ok {
			seen[path] = true
			n += b
			return nil
		}
		f.stats++
		info, err := d.Info()
		if err != nil {
			return nil
		}
		b := blocksOf(info)
		n += b
		if final(d.Name(), filepath.Dir(path), newest) && now.Sub(info.ModTime()) >= settleAge {
			if f.settled == nil {
				f.settled = map[string]int64{}
			}
			f.settled[path] = b
			seen[path] = true
		}
		return nil
	})
	for p := range f.settled {
		if !seen[p] {
			delete(f.settled, p) // deleted (a compaction, a value-log GC)
		}
	}
	return n
}

// final reports whether the file name in dir no longer changes once it has
// settled: a table, or a value-log file that is not the newest. newest
// remembers each directory's newest value-log file, listed once.
func final(name, dir string, newest map[string]int) bool {
	if strings.HasSuffix(name, ".sst") {
		return true
	}
	id, ok := logID(name)
	if !ok {
		return false
	}
	top, listed := newest[dir]
	if !listed {
		top = -1
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if other, ok := logID(e.Name()); ok && other > top {
				top = other
			}
		}
		newest[dir] = top
	}
	return id < top
}

// logID is the number of a value-log file's name.
func logID(name string) (int, bool) {
	num, ok := strings.CutSuffix(name, ".vlog")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(num)
	return id, err == nil
}

// blocksOf is what a file holds on disk: its blocks, not its apparent
// size (Badger preallocates).
func blocksOf(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
