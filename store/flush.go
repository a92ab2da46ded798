package store

import (
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// A daemon's memtables fill slowly: at MemTableSize (a few MiB) a long agent
// session may not fill one for hours, and every record it writes stays in the
// memtable's write-ahead log (.mem), uncompressed, for as long as the
// daemon runs: a 500-turn session's log was 1.9 MB where its LSM table,
// once flushed, was a third of that. FlushIdle writes the memtables out
// as level-0 tables (compressed), and Badger deletes their logs; the
// daemon calls it when the store has been idle a while.

// FlushAfter is how many bytes must have been committed since the last
// flush for FlushIdle to flush.
var FlushAfter int64 = 1 << 20

// FlushIdle flushes the memtables to the LSM tree when at least FlushAfter
// bytes were committed since the last flush and nothing for idle, and no
// Reclaim runs. It reports whether it flushed.
func (s *Store) FlushIdle(idle time.Duration) (bool, error) {
	if !s.reclaiming.TryLock() {
		return false, nil // a Reclaim flushes, and flattens meanwhile
	}
	defer s.reclaiming.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.unflushed < FlushAfter || time.Since(s.lastCommit) < idle {
		return false, nil
	}
	return true, s.flushLocked()
}

// flushLocked flushes the memtables (the caller holds s.mu): Badger's
// DropPrefix flushes them before it drops anything, and the sentinel it
// drops is written first, so there is always something to flush.
func (s *Store) flushLocked() error {
	if err := s.writable(); err != nil {
		return err
	}
	// WriteHeadroom, which checkRoom always leaves, covers a flush.
	if err := s.checkRoom(0, false); err != nil {
		return err
	}
	sentinel := []byte{prefixReclaim}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(sentinel, []byte{1}) }); err != nil {
		return fmt.Errorf("store flush: %w", err)
	}
	if err := s.db.DropPrefix(sentinel); err != nil {
		return fmt.Errorf("store flush: %w", err)
	}
	s.unflushed = 0
	return nil
}
