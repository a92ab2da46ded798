package store

import (
	"bufio"
	"bytes"
	"os"
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
	// The tables too: an import's compactions read and write them
	// through mappings (up to 120 MB of them resident at 200k files).
	releaseMapped(s.dbDir(), ".vlog", ".sst")
}

// releaseMapped drops from this process the resident pages of every
// mapping of a file in dir whose name ends in one of suffixes, as
// /proc/self/maps lists them, in one reading of it. Errors are ignored:
// releasing is an economy, never needed. The lines are parsed in place:
// the recompression releases every 16 chunks it reads, 11,000 times for
// a 200,000-file import's store, and splitting each line into strings
// made 830 MB of garbage there (6 allocations a release now, 138 before).
func releaseMapped(dir string, suffixes ...string) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	prefix := []byte(dir + string(os.PathSeparator))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		start, end, shared, path, ok := parseMapsLine(sc.Bytes())
		if !ok || !shared || !bytes.HasPrefix(path, prefix) || !hasAnySuffix(path, suffixes) {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}

// parseMapsLine splits a line of /proc/PID/maps ("start-end perms offset
// dev inode path") into its range, whether the mapping is shared, and
// its path (empty for an anonymous one), without allocating.
func parseMapsLine(line []byte) (start, end uint64, shared bool, path []byte, ok bool) {
	var fields [5][]byte
	rest := line
	for i := range fields {
		rest = bytes.TrimLeft(rest, " ")
		n := bytes.IndexByte(rest, ' ')
		if n < 0 && i == len(fields)-1 {
			n = len(rest) // an anonymous mapping: the inode ends the line
		}
		if n <= 0 {
			return 0, 0, false, nil, false
		}
		fields[i], rest = rest[:n], rest[n:]
	}
	lo, hi, found := bytes.Cut(fields[0], []byte{'-'})
	start, ok1 := parseHex(lo)
	end, ok2 := parseHex(hi)
	if !found || !ok1 || !ok2 || end <= start {
		return 0, 0, false, nil, false
	}
	return start, end, bytes.IndexByte(fields[1], 's') >= 0, bytes.TrimSpace(rest), true
}

// parseHex parses a non-empty lowercase or uppercase hexadecimal number.
func parseHex(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | uint64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

func hasAnySuffix(b []byte, suffixes []string) bool {
	for _, s := range suffixes {
		if len(b) >= len(s) && string(b[len(b)-len(s):]) == s {
			return true
		}
	}
	return false
}
