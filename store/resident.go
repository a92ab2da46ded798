package store

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Badger maps its value-log and table files into memory and writes the
// value log through the mapping, so every page a large import writes stays
// in the process's resident set (its RSS grew by the store's size: 1.3 GB
// for a 200,000-file import) until the kernel needs the memory back. The
// pages are the page cache's either way; dropping them from the process's
// page tables (madvise MADV_DONTNEED, which on a shared file mapping keeps
// a dirty page dirty in the page cache, so nothing is lost and the kernel
// writes it back as usual) bounds the RSS without a byte more of I/O: a
// later read of such a page maps it again from the page cache.

// releaseEvery is how many bytes the store commits between releases.
var releaseEvery int64 = 64 << 20

// noteCommitted counts committed bytes and releases the mapped pages of
// the store's files every releaseEvery.
func (s *Store) noteCommitted(n int64) {
	if s.sinceRelease.Add(n) < releaseEvery {
		return
	}
	s.sinceRelease.Store(0)
	s.ReleaseMapped()
}

// ReleaseMapped drops the store's mapped value-log and table pages from
// the process's resident set (see above). It is safe at any time.
func (s *Store) ReleaseMapped() {
	releaseMappedUnder(s.dir + string(os.PathSeparator))
}

// releaseMappedUnder madvises away every mapping of a .vlog or .sst file
// under prefix, as /proc/self/maps lists them.
func releaseMappedUnder(prefix string) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// "start-end perms offset dev inode path"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || len(fields[1]) < 4 || fields[1][3] != 's' {
			continue // only shared mappings: dropping a private one's pages would lose its writes
		}
		path := fields[5]
		if !strings.HasPrefix(path, prefix) || !(strings.HasSuffix(path, ".vlog") || strings.HasSuffix(path, ".sst")) {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}
