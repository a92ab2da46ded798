package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
)

// ErrBusy means another process holds the store and did not let go in time
// (of kind fault.Busy).
var ErrBusy = fault.Sentinel(fault.Busy, "store is busy")

// Store is one workspace's database. It is safe for concurrent use; writes
// are serialized by the Store itself.
type Store struct {
	dir  string
	lock *os.File

	mu   sync.Mutex // serializes writers
	head uint64     // last journal seq, guarded by mu for writers
	fp   Fingerprint

	// db changes once at most: OpenLazy opens it read-only, and the first
	// write reopens it read-write (writable) once the Views running on it
	// have ended. gate guards db, readOnly and readers.
	gate     sync.Mutex
	drained  *sync.Cond // signalled when readers drops to 0 and when a swap ends
	readers  int        // Views running on db
	swapping bool       // a writer waits for readers to drain: new Views wait
	db       *badger.DB
	readOnly bool

	valueThreshold int64 // db's; changes with db, under mu
	memTableSize   int64 // db's; changes with db, under mu

	size    sizeCache    // Size, measured at most once per sizeTTL
	lastRun lastRunCache // LastRun, kept at each commit
	files   storeFiles   // what measureSize knows of the store's files

	// recent: the delta bases kept for the next capture (recent.go).
	recent recentContents
	// private: the store files Sync found private already (perms.go).
	private privateSet
	// logWritten: bytes committed since the value log's pages were last
	// released (release.go), under mu.
	logWritten int64
	// unflushed: bytes committed since the memtables were last flushed
	// by FlushIdle, and lastCommit when the last commit was (flush.go),
	// under mu.
	unflushed  int64
	lastCommit time.Time
	// sinceReclaim: bytes committed (not by a background rewrite) since
	// the last Reclaim began (idle.go), under mu.
	sinceReclaim int64
	reclaiming   sync.Mutex // held by Reclaim; FlushIdle does not wait for it
}

// Open opens (creating if needed) the store in dir for reading and
// writing. If another process holds it, Open waits up to wait, then fails
// with ErrBusy.
func Open(dir string, wait time.Duration) (*Store, error) {
	return OpenContext(context.Background(), dir, wait, false)
}

// OpenLazy is Open for a short-lived process that may well only read (an
// embedded ckpt command): it opens the database read-only and reopens it
// read-write at the first write. A command that writes nothing then leaves
// the store's files as they were, and skips what a read-write open and
// close cost (options.go says what). A store that cannot be opened
// read-only (a new one, or one that a crash left needing repair) is opened
// read-write at once.
func OpenLazy(dir string, wait time.Duration) (*Store, error) {
	return OpenContext(context.Background(), dir, wait, true)
}

// OpenContext is Open, or OpenLazy if lazy, whose wait for another process
// ends early, with ctx's error, when ctx is done (the user pressed Ctrl-C).
func OpenContext(ctx context.Context, dir string, wait time.Duration, lazy bool) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockFile(ctx, filepath.Join(dir, "lock"), wait)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, lock: lock, valueThreshold: ValueThreshold, memTableSize: MemTableSize}
	s.drained = sync.NewCond(&s.gate)
	if err := trimLogs(s.dbDir()); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if lazy {
		// Whatever fails here (no database yet, a log that a crash left
		// needing truncation) the read-write open repairs or reports.
		if s.db, err = badger.Open(readOnlyOptions(s.dbDir())); err == nil {
			s.readOnly = true
		}
	}
	if s.db == nil {
		// A read-write open writes at once (new log files, the replay's
		// flush): it needs the room a close does.
		if need := flushNeed(s.dbDir()); !s.roomToFinish(need) {
			lock.Close()
			return nil, s.fullError(need)
		}
		if s.db, err = badger.Open(badgerOptions(s.dbDir())); err != nil {
			lock.Close()
			return nil, fmt.Errorf("open store %s: %w", dir, err)
		}
	}
	if err := privateFiles(dir); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	err = s.db.View(func(txn *badger.Txn) error {
		if err := getJSON(txn, metaKey(metaHead), &s.head); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err := getJSON(txn, metaKey(metaFingerprint), &s.fp); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func lockFile(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	f, err := fsutil.Lock(ctx, path, wait)
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w: another ckpt process has held %s for %s", ErrBusy, filepath.Dir(path), wait)
	}
	return f, err
}

// Dir is where the store lives.
func (s *Store) Dir() string { return s.dir }

// Sync makes every write so far durable. A store that has not written
// since OpenLazy has nothing to sync.
func (s *Store) Sync() error {
	db, err := s.acquire()
	defer s.release()
	if err != nil {
		return err
	}
	if err := db.Sync(); err != nil {
		return err
	}
	return narrowFiles(s.dir, &s.private)
}

func (s *Store) dbDir() string { return filepath.Join(s.dir, "db") }

// writable makes the database writable: a store opened with OpenLazy is
// reopened read-write. The swap waits for the Views running on the
// read-only instance to end; Views that start meanwhile wait for the swap,
// so a stream of overlapping Views cannot starve the writer. A View must
// not write (it would wait for itself). Writers call it holding s.mu.
func (s *Store) writable() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.db == nil {
		return errClosed
	}
	if !s.readOnly {
		return nil
	}
	// Checked before the read-only instance closes: a store that cannot
	// write keeps serving reads.
	if err := s.checkRoom(0, true); err != nil {
		return err
	}
	s.swapping = true
	defer func() { s.swapping = false; s.drained.Broadcast() }()
	for s.readers > 0 {
		s.drained.Wait()
	}
	// Close will flush this session's writes into one more level-0 table.
	opts := shortWriteOptions(s.dbDir(), s.db.Levels()[0].NumTables+1 >= l0CompactAt)
	err := s.db.Close()
	s.db, s.readOnly = nil, false
	if err != nil {
		return fmt.Errorf("close store %s to reopen it for writing: %w", s.dir, err)
	}
	db, err := badger.Open(opts)
	if err != nil {
		return fmt.Errorf("reopen store %s for writing: %w", s.dir, err)
	}
	s.db, s.valueThreshold, s.memTableSize = db, opts.ValueThreshold, opts.MemTableSize
	return privateFiles(s.dir)
}

// errClosed is what a store that is closed, or could not be reopened for
// writing, answers.
var errClosed = errors.New("store: closed")

// Close syncs and closes the database and releases the lock.
func (s *Store) Close() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	var err error
	if s.db != nil {
		err = s.closeDB()
		s.db = nil
		if perr := privateFiles(s.dir); err == nil {
			err = perr
		}
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	return err
}

// Head is the last journal seq.
func (s *Store) Head() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

// Fingerprint is the live fingerprint.
func (s *Store) Fingerprint() Fingerprint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fp
}

// Size is the store's size on disk in bytes (LSM tree plus value log), as
// measured at most sizeTTL ago.
func (s *Store) Size() int64 { return s.size.get(s.measureSize) }

// measureSize adds up the blocks of the store's files.
func (s *Store) measureSize() int64 { return s.files.measure(s.dir, time.Now()) }

// View runs fn in a read-only snapshot.
func (s *Store) View(fn func(*Reader) error) error {
	db, err := s.acquire()
	defer s.release()
	if err != nil {
		return err
	}
	return db.View(func(txn *badger.Txn) error { return fn(&Reader{txn: txn, recent: &s.recent}) })
}

// acquire returns the database for a View (or Sync), which must release
// it: until then a swap waits.
func (s *Store) acquire() (*badger.DB, error) {
	s.gate.Lock()
	defer s.gate.Unlock()
	for s.swapping {
		s.drained.Wait()
	}
	s.readers++
	if s.db == nil {
		return nil, errClosed
	}
	return s.db, nil
}

func (s *Store) release() {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.readers--; s.readers == 0 {
		s.drained.Broadcast()
	}
}
