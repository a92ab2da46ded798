package store

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Reader reads one consistent snapshot of the store.
type Reader struct {
	txn    *badger.Txn
	recent *recentContents // delta bases kept (recent.go); nil reads none
}

// Entry is the path's current state.
func (r *Reader) Entry(path string) (State, bool, error) {
	item, err := r.txn.Get(entryKey(path))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, err
	}
	var st State
	err = item.Value(func(b []byte) error {
		st, _, err = decodeState(b)
		return err
	})
	return st, err == nil, err
}

// Entries calls fn for every current entry whose path starts with prefix.
func (r *Reader) Entries(prefix string, fn func(path string, st State) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = entryKey(prefix)
	opts.PrefetchSize = 256
	it := r.txn.NewIterator(opts)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		path := string(item.Key()[1:])
		var st State
		err := item.Value(func(b []byte) (err error) {
			st, _, err = decodeState(b)
			return err
		})
		if err != nil {
			return err
		}
		if err := fn(path, st); err != nil {
			return err
		}
	}
	return nil
}

// StateAt is the path's state as of journal seq: its latest version with a
// seq no greater than seq, or Absent.
func (r *Reader) StateAt(path string, seq uint64) (State, error) {
	sk := r.NewSeeker()
	defer sk.Close()
	return sk.StateAt(path, seq)
}

// Seeker answers many StateAt questions with one iterator: a diff asks two
// for every changed path, and an iterator costs more than a seek.
type Seeker struct{ it *badger.Iterator }

// NewSeeker returns a Seeker; Close it before the Reader's view ends.
func (r *Reader) NewSeeker() *Seeker {
	opts := badger.DefaultIteratorOptions
	opts.Reverse = true
	opts.PrefetchValues = false
	opts.Prefix = []byte{prefixPath}
	return &Seeker{it: r.txn.NewIterator(opts)}
}

// StateAt is like Reader.StateAt.
func (s *Seeker) StateAt(path string, seq uint64) (State, error) {
	key := pathKey(path, seq)
	s.it.Seek(key)
	if !s.it.Valid() || !bytes.HasPrefix(s.it.Item().Key(), key[:len(path)+2]) {
		return State{}, nil
	}
	var st State
	err := s.it.Item().Value(func(b []byte) (err error) {
		st, _, err = decodeState(b)
		return err
	})
	return st, err
}

// Close releases the iterator.
func (s *Seeker) Close() { s.it.Close() }

// Changes calls fn for each journal entry with from < seq <= to, in order.
func (r *Reader) Changes(from, to uint64, fn func(Change) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte{prefixJournal}
	// No prefetching: Badger fetches each prefetched value in a goroutine
	// of its own, which costs more than the entry (a few hundred bytes,
	// nearly always in the LSM tree) is worth: a drift of tens of
	// thousands of entries started as many goroutines.
	opts.PrefetchValues = false
	it := r.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(journalKey(from + 1)); it.Valid(); it.Next() {
		item := it.Item()
		seq := binary.BigEndian.Uint64(item.Key()[1:])
		if seq > to {
			break
		}
		var c Change
		err := item.Value(func(b []byte) (err error) {
			c, err = decodeChange(seq, b)
			return err
		})
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// Checkpoint returns the checkpoint with this id.
func (r *Reader) Checkpoint(id string) (Checkpoint, error) {
	var cp Checkpoint
	err := getJSON(r.txn, checkpointKey(id), &cp)
	return cp, err
}

// Checkpoints calls fn for checkpoints newest first until fn returns false.
func (r *Reader) Checkpoints(fn func(Checkpoint) (bool, error)) error {
	return r.checkpointsFrom(^uint64(0), fn)
}

// CheckpointBefore is the newest checkpoint whose seq is < seq.
func (r *Reader) CheckpointBefore(seq uint64) (Checkpoint, error) {
	if seq == 0 {
		return Checkpoint{}, ErrNotFound
	}
	var found *Checkpoint
	err := r.checkpointsFrom(seq-1, func(cp Checkpoint) (bool, error) {
		found = &cp
		return false, nil
	})
	if err != nil {
		return Checkpoint{}, err
	}
	if found == nil {
		return Checkpoint{}, ErrNotFound
	}
	return *found, nil
}

// checkpointsFrom walks checkpoints with seq <= maxSeq, newest first.
func (r *Reader) checkpointsFrom(maxSeq uint64, fn func(Checkpoint) (bool, error)) error {
	opts := badger.DefaultIteratorOptions
	opts.Reverse = true
	opts.Prefix = []byte{prefixCkptBySeq}
	it := r.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(ckptBySeqKey(maxSeq, ^uint64(0))); it.Valid(); it.Next() {
		var id []byte
		err := it.Item().Value(func(b []byte) error { id = bytes.Clone(b); return nil })
		if err != nil {
			return err
		}
		cp, err := r.Checkpoint(string(id))
		if err != nil {
			return err
		}
		more, err := fn(cp)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// Workspace is the workspace state; ErrNotFound before the first import.
func (r *Reader) Workspace() (WorkspaceState, error) {
	var ws WorkspaceState
	return ws, getJSON(r.txn, metaKey(metaWorkspace), &ws)
}

// Active is who changes are attributed to now.
func (r *Reader) Active() (Active, error) {
	var a Active
	err := getJSON(r.txn, metaKey(metaActive), &a)
	if errors.Is(err, ErrNotFound) {
		err = nil
	}
	return a, err
}

// Intent is the unfinished restore, or ErrNotFound.
func (r *Reader) Intent() (Intent, error) {
	var in Intent
	return in, getJSON(r.txn, metaKey(metaIntent), &in)
}

// LastRestore is the last restore, or ErrNotFound.
func (r *Reader) LastRestore() (LastRestore, error) {
	var lr LastRestore
	return lr, getJSON(r.txn, metaKey(metaLastRestore), &lr)
}

// Run is a run's persisted baseline, or ErrNotFound.
func (r *Reader) Run(session, run string) (Run, error) {
	var rn Run
	return rn, getJSON(r.txn, runKey(session, run), &rn)
}

// ToolWindow is a tool call's window, or ErrNotFound.
func (r *Reader) ToolWindow(session, run, call string) (ToolWindow, error) {
	var tw ToolWindow
	return tw, getJSON(r.txn, toolKey(session, run, call), &tw)
}

// LastRun is the most recently started run, or ErrNotFound.
func (r *Reader) LastRun() (Run, error) {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte{prefixRun}
	it := r.txn.NewIterator(opts)
	defer it.Close()
	var last Run
	found := false
	for it.Rewind(); it.Valid(); it.Next() {
		var rn Run
		if err := it.Item().Value(func(b []byte) error { return jsonUnmarshal(b, &rn) }); err != nil {
			return Run{}, err
		}
		if !found || rn.StartedAt.After(last.StartedAt) {
			last, found = rn, true
		}
	}
	if !found {
		return Run{}, ErrNotFound
	}
	return last, nil
}
