package store

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// releaseLogEvery is how many bytes the store commits between two
// releases of the value log's pages. Badger writes the value log through
// a shared memory mapping and keeps every file of it mapped, so each
// content written stays resident in the writing process: a daemon that
// imported 200k files (1.3 GB of value log) kept 1.3 GB of RSS for as
// long as it ran. Releasing the pages (madvise MADV_DONTNEED) unmaps them
// from the process only: a shared file mapping's pages stay in the page
// cache, dirty ones are written back as usual, and a later read faults
// them in again from the file. At 64 MiB a 200,000-file import's RSS
// still swung by 60 MB of value log between two releases; a release
// parses /proc/self/maps once, so every 16 MiB costs nothing to speak of;
// at 16 MiB the import's file-backed RSS still swung by 50 MB (the value
// log written and the tables its compactions read and wrote since the
// last release), at 8 MiB by 30 MB.
var releaseLogEvery int64 = 8 << 20

// noteCommitted counts bytes committed since the last release, and
// releases the value log's pages when enough were. A commit calls it
// holding s.mu once Badger has written it: no value-log write (whose file
// rotation may move a mapping) runs then, as every write goes through
// s.mu, and holding s.gate keeps Close and a reopen out. A background
// commit (a Repack's) leaves the store idle (idle.go).
func (s *Store) noteCommitted(n int64, background bool) {
	s.unflushed += n
	if !background {
		s.lastCommit = time.Now()
		s.sinceReclaim += n
	}
	s.logWritten += n
	if s.logWritten < releaseLogEvery {
		return
	}
	s.logWritten = 0
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.db == nil || s.readOnly {
		return
	}
	releaseMapped(s.dbDir(), ".vlog")
	// The tables too: an import's compactions read and write them
	// through mappings (up to 120 MB of them resident at 200k files).
	releaseMapped(s.dbDir(), ".sst")
}

// releaseMapped drops from this process the resident pages of every
// mapping of a file in dir whose name ends in suffix, as /proc/self/maps
// lists them. Errors are ignored: releasing is an economy, never needed.
func releaseMapped(dir, suffix string) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	prefix := dir + string(os.PathSeparator)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], prefix) || !strings.HasSuffix(fields[5], suffix) ||
			!strings.Contains(fields[1], "s") {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}
