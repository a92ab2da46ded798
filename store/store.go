package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// ErrBusy means another process holds the store and did not let go in time.
var ErrBusy = errors.New("store is busy")

// Store is one workspace's database. It is safe for concurrent use; writes
// are serialized by the Store itself.
type Store struct {
	db   *badger.DB
	dir  string
	lock *os.File

	mu   sync.Mutex // serializes writers
	head uint64     // last journal seq, guarded by mu for writers
	fp   Fingerprint
}

// Open opens (creating if needed) the store in dir. If another process
// holds it, Open waits up to wait, then fails with ErrBusy.
func Open(dir string, wait time.Duration) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockFile(filepath.Join(dir, "lock"), wait)
	if err != nil {
		return nil, err
	}
	if err := removeEmptyLogs(filepath.Join(dir, "db")); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	db, err := badger.Open(badgerOptions(filepath.Join(dir, "db")))
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	s := &Store{db: db, dir: dir, lock: lock}
	err = db.View(func(txn *badger.Txn) error {
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

func lockFile(path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: another ckpt process has held %s for %s", ErrBusy, filepath.Dir(path), wait)
		}
		time.Sleep(delay)
	}
}

// Dir is where the store lives.
func (s *Store) Dir() string { return s.dir }

// Sync makes every write so far durable.
func (s *Store) Sync() error { return s.db.Sync() }

// Close syncs and closes the database and releases the lock.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.lock != nil {
		s.lock.Close()
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

// Size is the store's size on disk in bytes (LSM tree plus value log).
func (s *Store) Size() int64 {
	var n int64
	filepath.WalkDir(s.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				// Blocks, not the apparent size: Badger preallocates.
				if st, ok := info.Sys().(*syscall.Stat_t); ok {
					n += st.Blocks * 512
				} else {
					n += info.Size()
				}
			}
		}
		return nil
	})
	return n
}

// View runs fn in a read-only snapshot.
func (s *Store) View(fn func(*Reader) error) error {
	return s.db.View(func(txn *badger.Txn) error { return fn(&Reader{txn: txn}) })
}
