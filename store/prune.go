package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// This file holds the store's side of pruning: the deletes (batched like
// every other write, so no transaction outgrows Badger's limits) and the
// reclaiming of the space they free. Which checkpoints go is the caller's
// decision (snapshot.Workspace.Prune).

// prefixReclaim is the key of the sentinel Reclaim writes, then drops to
// flush Badger's memtables.
const prefixReclaim = 'z'

// deleteKey deletes one key, committing first if the open transaction is
// full.
func (w *Writer) deleteKey(key []byte) error {
	if err := w.room(estimate(key, nil)); err != nil {
		return err
	}
	if err := w.txn.Delete(key); err != nil {
		return fmt.Errorf("store delete: %w", err)
	}
	w.size += estimate(key, nil)
	w.count++
	return nil
}

// deleteKeys deletes keys, in as many transactions as they need.
func (w *Writer) deleteKeys(keys [][]byte) error {
	for _, k := range keys {
		if err := w.deleteKey(k); err != nil {
			return err
		}
	}
	return nil
}

// scan commits what the writer holds, then calls fn for every key with
// prefix in a read-only snapshot of the store. fn may delete through the
// writer as it goes: the snapshot does not see those deletes, and the
// writer's commits do not disturb the iteration. Keys and values passed to
// fn are only valid during the call.
func (w *Writer) scan(prefix []byte, values bool, fn func(key []byte, item *badger.Item) error) error {
	if w.count > 0 {
		if err := w.commit(true); err != nil {
			return err
		}
	}
	txn := w.s.db.NewTransaction(false)
	defer txn.Discard()
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.PrefetchValues = values
	opts.PrefetchSize = 256
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if err := fn(it.Item().Key(), it.Item()); err != nil {
			return err
		}
	}
	return nil
}

// DeleteCheckpoints deletes checkpoint records (by id and from the journal
// order). Missing ones are skipped.
func (w *Writer) DeleteCheckpoints(cps []Checkpoint) error {
	for _, cp := range cps {
		if err := w.deleteKeys([][]byte{checkpointKey(cp.ID), ckptBySeqKey(cp.Seq, cp.Ord)}); err != nil {
			return err
		}
	}
	return nil
}

// CompactHistory forgets the history at and below journal seq floor that
// no position at or above floor needs: every journal entry with seq <=
// floor, and for each path every path-index entry older than its newest
// one at or below floor (that one too, when it stands for Absent). The
// state of every path at every seq >= floor is unchanged; Changes over a
// range that reaches below floor sees no changes there. It returns how many
// journal and path-index entries it deleted.
func (w *Writer) CompactHistory(floor uint64) (journal, paths int, err error) {
	if floor == 0 {
		return 0, 0, nil
	}
	last := journalKey(floor)
	err = w.scan([]byte{prefixJournal}, false, func(key []byte, _ *badger.Item) error {
		if bytes.Compare(key, last) > 0 {
			return errStop
		}
		journal++
		return w.deleteKey(bytes.Clone(key))
	})
	if err != nil && !errors.Is(err, errStop) {
		return journal, paths, err
	}

	// Path index: 'p' path 0x00 seq, each path's entries in seq order.
	var (
		pending    []byte // newest entry at or below floor of the current path
		pendingAbs bool   // it stands for Absent
		curPath    []byte
	)
	settle := func() error {
		if pending != nil && pendingAbs {
			paths++
			if err := w.deleteKey(pending); err != nil {
				return err
			}
		}
		pending = nil
		return nil
	}
	err = w.scan([]byte{prefixPath}, false, func(key []byte, item *badger.Item) error {
		if len(key) < 10 || key[len(key)-9] != 0 {
			return fmt.Errorf("store: malformed path-index key %q", key)
		}
		path, seq := key[1:len(key)-9], binary.BigEndian.Uint64(key[len(key)-8:])
		if !bytes.Equal(path, curPath) {
			if err := settle(); err != nil {
				return err
			}
			curPath = append(curPath[:0], path...)
		}
		if seq > floor {
			return settle()
		}
		if pending != nil {
			paths++
			if err := w.deleteKey(pending); err != nil {
				return err
			}
		}
		pending = bytes.Clone(key)
		return item.Value(func(v []byte) error {
			k, err := stateKind(v)
			pendingAbs = k == Absent
			return err
		})
	})
	if err == nil {
		err = settle()
	}
	return journal, paths, err
}

var errStop = errors.New("stop")

// SweepBlobs deletes every blob that nothing refers to any more: no
// path-index entry, no entry, no restore intent, and no kept blob stored as
// a delta against it (directly or down a chain). It returns how many
// blobs (not chunks) it deleted. The caller makes sure no capture runs
// meanwhile (a capture may count on a blob it saw stored).
func (w *Writer) SweepBlobs() (int, error) {
	live := map[Hash]struct{}{}
	mark := func(_ []byte, item *badger.Item) error {
		return item.Value(func(v []byte) error {
			st, _, err := decodeState(v)
			if err != nil {
				return err
			}
			if st.Exists() {
				live[st.Hash] = struct{}{}
			}
			return nil
		})
	}
	if err := w.scan([]byte{prefixPath}, true, mark); err != nil {
		return 0, err
	}
	if err := w.scan([]byte{prefixEntry}, true, mark); err != nil {
		return 0, err
	}
	in, err := w.Intent()
	switch {
	case err == nil:
		for _, a := range in.Actions {
			if a.State.Exists() {
				live[a.State.Hash] = struct{}{}
			}
		}
	case !errors.Is(err, ErrNotFound):
		return 0, err
	}
	if err := w.keepBases(live); err != nil {
		return 0, err
	}
	n := 0
	err = w.scan([]byte{prefixBlob}, false, func(key []byte, _ *badger.Item) error {
		if len(key) != 29 {
			return fmt.Errorf("store: malformed blob key %x", key)
		}
		h := Hash{
			H1:   binary.BigEndian.Uint64(key[1:]),
			H2:   binary.BigEndian.Uint64(key[9:]),
			Size: int64(binary.BigEndian.Uint64(key[17:])),
		}
		if _, ok := live[h]; ok {
			return nil
		}
		if binary.BigEndian.Uint32(key[25:]) == 0 {
			n++
		}
		return w.deleteKey(bytes.Clone(key))
	})
	return n, err
}

// ReclaimStats says what Reclaim did.
type ReclaimStats struct {
	// ValueLogFiles is how many value-log files the value-log GC rewrote
	// (and so removed).
	ValueLogFiles int
}

// gcDiscardRatio is the share of a value-log file that must be garbage for
// Reclaim to rewrite it: a quarter, so that pruning a few old checkpoints
// of a store whose contents sit in one or two value-log files (the first
// import's) gives their space back, at the cost of copying the other three
// quarters once.
const gcDiscardRatio = 0.25

// ReclaimGrace is how long Reclaim lets reads that began before it finish
// before it compacts: Badger keeps a deleted version, and so its value,
// while a read that might see it is open.
var ReclaimGrace = time.Second

// Reclaim gives the space of deleted records back to the file system. In
// Badger, a delete is a new record: the old value stays in its value-log
// file until compaction has dropped every version of its key, which is what
// tells the value-log GC that the file holds garbage. So Reclaim waits for
// the reads that began before it (ReclaimGrace), flushes the memtables,
// flattens the LSM tree (so that deletes meet what they delete, and both
// are dropped), then runs the value-log GC until it finds nothing more to
// rewrite. Badger never collects the value-log file it is writing to, so
// Reclaim first reopens the database (rotate), which moves it on to a new
// one: the space is given back while the daemon runs, not at its next
// start. Reclaim may take a while on a large store; writers wait only
// while the database is reopened and while one value-log file is
// rewritten.
func (s *Store) Reclaim() (ReclaimStats, error) {
	return s.reclaim(nil)
}

// reclaim is Reclaim; when stop is not nil, it is asked before each step
// after the grace (the reopen, the flatten, each value-log file) and the
// reclaim ends with errReclaimStopped once it says so.
func (s *Store) reclaim(stop func() bool) (rs ReclaimStats, rerr error) {
	s.reclaiming.Lock() // FlushIdle keeps out of its flatten and GC
	defer s.reclaiming.Unlock()
	defer s.size.invalidate()
	stopped := func() bool { return stop != nil && stop() }
	// Every read that begins after this write sees every delete made so
	// far at an older version than its own.
	sentinel := []byte{prefixReclaim}
	// Compaction and the value-log GC write new tables and files before
	// they free the old ones.
	if err := s.checkRoom(0, true); err != nil {
		return rs, err
	}
	s.mu.Lock()
	// A lazily opened store that has not written yet is still read-only.
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return rs, err
	}
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(sentinel, []byte{1}) })
	written := s.sinceReclaim
	s.sinceReclaim = 0
	s.mu.Unlock()
	if err != nil {
		return rs, fmt.Errorf("store reclaim: %w", err)
	}
	defer func() {
		if rerr != nil { // what was written is still to reclaim
			s.mu.Lock()
			s.sinceReclaim += written
			s.mu.Unlock()
		}
	}()
	time.Sleep(ReclaimGrace)
	if stopped() {
		return rs, errReclaimStopped
	}
	// Reopening flushes the memtables and moves the value log on to a new
	// file, so that the one that held the deleted contents can be
	// collected (rotate). Writers wait meanwhile. The room is checked
	// again: the disk may have filled during the grace, and a flush into
	// a full file system is a SIGBUS.
	s.mu.Lock()
	err = s.checkRoom(0, false)
	if err == nil {
		err = s.db.DropPrefix(sentinel)
	}
	if err == nil {
		err = s.rotate()
	}
	s.mu.Unlock()
	if err != nil {
		return rs, fmt.Errorf("store flush: %w", err)
	}
	if err := s.checkRoom(0, false); err != nil {
		return rs, err
	}
	if stopped() {
		return rs, errReclaimStopped
	}
	if err := s.db.Flatten(max(1, min(2, runtime.NumCPU()/2))); err != nil {
		return rs, fmt.Errorf("store flatten: %w", err)
	}
	return s.valueLogGC(rs, stopped)
}

// valueLogGC runs Badger's value-log GC until it finds no file to
// rewrite, counting the files it rewrote in rs, or until stopped says so
// (errReclaimStopped).
func (s *Store) valueLogGC(rs ReclaimStats, stopped func() bool) (ReclaimStats, error) {
	for !stopped() {
		// Writers wait while a file is rewritten: Badger's GC reads the
		// memtable's version unsynchronized with writes.
		s.mu.Lock()
		err := s.checkRoom(0, false)
		if err == nil {
			err = s.db.RunValueLogGC(gcDiscardRatio)
		}
		s.mu.Unlock()
		// The GC reads a whole value-log file through its mapping and
		// writes what it keeps to the current one: without this, a
		// Reclaim of a large store left every file it read resident.
		s.releaseLogPages()
		switch {
		case err == nil:
			rs.ValueLogFiles++
		case errors.Is(err, badger.ErrNoRewrite):
			return rs, nil
		case errors.Is(err, badger.ErrRejected):
			return rs, nil // another GC is running, or the store is closing
		default:
			return rs, fmt.Errorf("store value-log gc: %w", err)
		}
	}
	return rs, errReclaimStopped
}
