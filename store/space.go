package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
)

// Why a full disk needs care (see doc.go, "A full disk"): Badger writes its
// write-ahead log, its value log and every new table through shared memory
// mappings of files it sized with ftruncate, which allocates nothing. The
// file system finds the blocks only when a page is first written (on tmpfs,
// also when a hole is first read); when it has none left the kernel answers
// the page fault with SIGBUS, and the process dies. Badger never sees an
// error it could return. So the store checks the free space itself before
// it lets Badger write, keeps a reserve for what Badger must be able to
// finish (the memtable flush of a close, the replay of an open), and trims
// the unbacked tails of the logs before Badger maps them.
var (
	// WriteHeadroom is the free space a write needs beyond its own bytes:
	// the memtable flush (a level-0 table of up to the larger memtable) and the
	// compaction it may start, so that no write Badger accepts can make
	// it touch a page the file system cannot back.
	WriteHeadroom = 2 * max(MemTableSize, ShortMemTableSize)
	// ReserveSize is the space held in the reserve file: what a close (or
	// the open after a crash) needs to flush a full memtable (see
	// flushNeed for what one needs as it is).
	ReserveSize = max(MemTableSize, ShortMemTableSize) + 2<<20
)

// reserveName is the reserve file in the store's directory: allocated
// (fallocate) space that the store gives back to the file system when it
// is full, so that Badger can finish a flush it cannot skip.
const reserveName = "reserve"

// FullError is a write refused because the file system holding the store
// has too little free space. It matches syscall.ENOSPC with errors.Is.
type FullError struct {
	Dir  string // the state directory
	Free int64  // bytes free for an unprivileged writer
	Need int64  // bytes the write needed free
}

func (e *FullError) Error() string {
	return fmt.Sprintf("the state directory is full: %d MiB free at %s (writing needs %d MiB)", e.Free>>20, e.Dir, (e.Need+1<<20-1)>>20)
}

// Unwrap makes errors.Is(err, fault.Full) (syscall.ENOSPC) true.
func (e *FullError) Unwrap() error { return fault.Full }

// IsFull reports whether err is the store (or anything under it) running
// out of space: of kind fault.Full.
func IsFull(err error) bool { return errors.Is(err, fault.Full) }

// freeBytes is the space an unprivileged process may still allocate on the
// file system holding dir.
func freeBytes(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// SpaceError is a FullError when the store could not write now (less free
// space than a write needs, or no reserve and no room to make one), else
// nil. It only asks the file system.
func (s *Store) SpaceError() error {
	return s.checkRoom(0, false)
}

// checkRoom fails with a FullError unless a write of need bytes may go to
// Badger: the reserve is held (made here when there is room for it) and
// WriteHeadroom+need bytes are free besides. create says whether it may
// create the reserve.
func (s *Store) checkRoom(need int64, create bool) error {
	free, err := freeBytes(s.dir)
	if err != nil {
		return err
	}
	if !s.hasReserve() {
		if free < ReserveSize+WriteHeadroom+need {
			return &FullError{Dir: s.dir, Free: free, Need: ReserveSize + WriteHeadroom + need}
		}
		if !create {
			return nil
		}
		if err := s.makeReserve(); err != nil {
			if IsFull(err) {
				return &FullError{Dir: s.dir, Free: free, Need: ReserveSize + WriteHeadroom + need}
			}
			return err
		}
		free -= ReserveSize
	}
	if free < WriteHeadroom+need {
		return &FullError{Dir: s.dir, Free: free, Need: WriteHeadroom + need}
	}
	return nil
}

// roomToFinish makes sure that need bytes are free for work Badger cannot
// be stopped from doing (flushing the memtable at close, replaying and
// flushing a crashed session's log at open): when they are not, the
// reserve is given back. It reports whether need bytes are free then.
func (s *Store) roomToFinish(need int64) bool {
	free, err := freeBytes(s.dir)
	if err != nil {
		return true // nothing to go by: let Badger try
	}
	if free >= need {
		return true
	}
	if s.hasReserve() && os.Remove(s.reservePath()) == nil {
		free, err = freeBytes(s.dir)
		return err != nil || free >= need
	}
	return false
}

func (s *Store) reservePath() string { return filepath.Join(s.dir, reserveName) }

func (s *Store) hasReserve() bool {
	info, err := os.Stat(s.reservePath())
	return err == nil && info.Size() >= ReserveSize
}

// makeReserve allocates the reserve file's blocks (fallocate, so that the
// space is taken now: a sparse file would reserve nothing).
func (s *Store) makeReserve() error {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	err = fsutil.WriteAtomic(root, reserveName, 0o600, func(f *os.File) error {
		return unix.Fallocate(int(f.Fd()), 0, 0, ReserveSize)
	})
	if err != nil {
		return fmt.Errorf("reserve space in %s: %w", s.dir, err)
	}
	return nil
}

// trimLogs prepares Badger's write-ahead (.mem) and value-log (.vlog)
// files for mapping after a session that did not close them (a crash, or
// a close on a full disk): each is cut at its first hole, and one with no
// data at all is removed. Badger sizes these files far beyond what it
// wrote and truncates them at close; an unclosed one keeps its unbacked
// tail, which Badger's replay reads into (bufio reads past the last entry)
// and which, on a full tmpfs, faults even when read. The tail holds
// nothing: Badger zeroes the header after the last entry, reading stops
// at it, and a hole reads as zeros. Data is contiguous from the start,
// since both logs are written in order. A zero-length log (a process
// killed between creating and sizing it, seen in the storm tests) would
// make the next Open fail with "Create a new file"; nothing can point
// into it.
func trimLogs(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || filepath.Ext(name) != ".mem" && filepath.Ext(name) != ".vlog" {
			continue
		}
		if err := trimLog(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func trimLog(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	end := int64(0)
	if info.Size() > 0 {
		end, err = unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
		if err != nil {
			return nil // no hole support: nothing to trim
		}
	}
	switch {
	case end == 0:
		return os.Remove(path)
	case end < info.Size():
		return f.Truncate(end)
	}
	return nil
}

// fullError is the FullError for the space free now.
func (s *Store) fullError(need int64) error {
	free, err := freeBytes(s.dir)
	if err != nil {
		return err
	}
	return &FullError{Dir: s.dir, Free: free, Need: need}
}

// closeDB closes Badger. A read-write session flushes its memtable at
// close, which on a full file system would fault: the reserve is given
// back first. If even that leaves too little room, the logs are synced
// and the database is left unclosed, as a crash would leave it: the next
// open replays the logs (trimLogs makes that safe), and nothing synced is
// lost. A database whose directory was removed while it was open is
// left unclosed too: Badger would retry writing its memtable into the
// missing directory for ever, and there is nothing left to save. Called
// with s.gate held.
func (s *Store) closeDB() error {
	if s.readOnly {
		return s.db.Close()
	}
	if _, err := os.Stat(s.dbDir()); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store %s: its directory was removed while the store was open: nothing could be saved", s.dir)
	}
	need := flushNeed(s.dbDir())
	if s.db.Opts().CompactL0OnClose {
		lsm, _ := s.db.Size()
		need += lsm // the compaction rewrites level 0 and what it overlaps
	}
	if s.roomToFinish(need) {
		return s.db.Close()
	}
	return s.db.Sync()
}

// flushNeed is the free space that flushing every memtable of the
// database in dir takes: a table holds what the write-ahead logs (.mem)
// hold, and the logs' allocated blocks are what was written to them
// (trimLogs has cut an unclosed one's tail); 1 MiB more covers each
// table's index and filter and the first pages of the new logs an open
// creates.
func flushNeed(dir string) int64 {
	need := int64(1 << 20)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".mem" {
			continue
		}
		if info, err := e.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				need += st.Blocks * 512
			}
		}
	}
	return need
}

// FullMessage is the line that says the store is full: the FullError's
// own text when err holds one (without what wrapped it), else err's text.
func FullMessage(err error) string {
	var fe *FullError
	if errors.As(err, &fe) {
		return fe.Error()
	}
	return err.Error()
}
