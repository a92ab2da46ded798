package store

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// rotate closes and reopens a read-write database, so that the value-log
// file being written to becomes an old one: Badger's value-log GC never
// rewrites the file it is appending to, so without this the space of
// deleted contents in it (all of them, in a store younger than one
// value-log file, ValueLogFileSize) would come back only once the file
// fills up or the process restarts. Closing also flushes the memtables,
// so the deletes reach the LSM tree. Writers wait (the caller holds s.mu);
// Views that start meanwhile wait for the swap, as in writable.
func (s *Store) rotate() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.db == nil {
		return errClosed
	}
	if s.readOnly {
		return nil
	}
	s.swapping = true
	defer func() { s.swapping = false; s.drained.Broadcast() }()
	for s.readers > 0 {
		s.drained.Wait()
	}
	opts := s.db.Opts()
	if !s.roomToFinish(flushNeed(s.dbDir())) {
		return s.fullError(flushNeed(s.dbDir()))
	}
	err := s.db.Close()
	s.db = nil
	if err != nil {
		return fmt.Errorf("close store %s to reclaim space: %w", s.dir, err)
	}
	db, err := badger.Open(opts)
	if err != nil {
		return fmt.Errorf("reopen store %s after reclaiming space: %w", s.dir, err)
	}
	s.db = db
	return privateFiles(s.dir)
}
