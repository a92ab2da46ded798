package store

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Change is the journal entry with this seq, or ErrNotFound (never
// written, or pruned).
func (r *Reader) Change(seq uint64) (Change, error) {
	item, err := r.txn.Get(journalKey(seq))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return Change{}, ErrNotFound
	}
	if err != nil {
		return Change{}, err
	}
	var c Change
	err = item.Value(func(b []byte) (err error) {
		c, err = decodeChange(seq, b)
		return err
	})
	return c, err
}

// Versions calls fn with each path-index entry of path, the seq that wrote
// it and the state it left, newest first, until fn returns false: one
// range scan of the path index.
func (r *Reader) Versions(path string, fn func(seq uint64, st State) (bool, error)) error {
	return r.versions(path, true, 0, fn)
}

// VersionsAfter is like Versions for the entries with a seq above from,
// oldest first.
func (r *Reader) VersionsAfter(path string, from uint64, fn func(seq uint64, st State) (bool, error)) error {
	return r.versions(path, false, from, fn)
}

func (r *Reader) versions(path string, newestFirst bool, from uint64, fn func(uint64, State) (bool, error)) error {
	prefix := pathKey(path, 0)
	prefix = prefix[:len(prefix)-8]
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.Reverse = newestFirst
	it := r.txn.NewIterator(opts)
	defer it.Close()
	start := pathKey(path, from+1)
	if newestFirst {
		start = pathKey(path, ^uint64(0))
	}
	for it.Seek(start); it.Valid(); it.Next() {
		key := it.Item().Key()
		if len(key) != len(prefix)+8 || !bytes.HasPrefix(key, prefix) {
			continue
		}
		seq := binary.BigEndian.Uint64(key[len(prefix):])
		var st State
		err := it.Item().Value(func(b []byte) (err error) {
			st, _, err = decodeState(b)
			return err
		})
		if err != nil {
			return err
		}
		more, err := fn(seq, st)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// OldestCheckpoint is the checkpoint at the lowest journal position (the
// first cut among those), or ErrNotFound.
func (r *Reader) OldestCheckpoint() (Checkpoint, error) { return r.CheckpointFrom(0) }

// CheckpointFrom is the oldest checkpoint whose seq is >= seq, or
// ErrNotFound.
func (r *Reader) CheckpointFrom(seq uint64) (Checkpoint, error) {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte{prefixCkptBySeq}
	it := r.txn.NewIterator(opts)
	defer it.Close()
	it.Seek(ckptBySeqKey(seq, 0))
	if !it.Valid() {
		return Checkpoint{}, ErrNotFound
	}
	var id []byte
	if err := it.Item().Value(func(b []byte) error { id = bytes.Clone(b); return nil }); err != nil {
		return Checkpoint{}, err
	}
	return r.Checkpoint(string(id))
}
