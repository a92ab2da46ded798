package store

import (
	"bytes"
	"encoding/binary"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// prefixReview holds review marks: one per (session, run, path).
const prefixReview = 'v'

// Review is a person's mark on one file of a run: "accepted" or
// "rejected".
type Review struct {
	Session string    `json:"session_id"`
	Run     string    `json:"run_id"`
	Path    string    `json:"path"`
	Mark    string    `json:"mark"`
	At      time.Time `json:"at"`
}

func reviewPrefix(session, run string) []byte {
	b := append([]byte{prefixReview}, session...)
	b = append(b, 0)
	b = append(b, run...)
	return append(b, 0)
}

func reviewKey(session, run, path string) []byte {
	return append(reviewPrefix(session, run), path...)
}

// PutReview records a review mark; an empty Mark removes the path's mark.
func (w *Writer) PutReview(rv Review) error {
	key := reviewKey(rv.Session, rv.Run, rv.Path)
	if rv.Mark == "" {
		return w.txn.Delete(key)
	}
	return w.setJSON(key, rv)
}

// Reviews calls fn with every review mark of the run, by path.
func (r *Reader) Reviews(session, run string, fn func(Review) error) error {
	return r.eachJSON(reviewPrefix(session, run), func(b []byte) error {
		var rv Review
		if err := jsonUnmarshal(b, &rv); err != nil {
			return err
		}
		return fn(rv)
	})
}

// Runs calls fn with every run record, in key order (session, then run).
func (r *Reader) Runs(fn func(Run) error) error {
	return r.eachJSON([]byte{prefixRun}, func(b []byte) error {
		var rn Run
		if err := jsonUnmarshal(b, &rn); err != nil {
			return err
		}
		return fn(rn)
	})
}

// ToolWindows calls fn with every tool window of the run, by call id.
func (r *Reader) ToolWindows(session, run string, fn func(ToolWindow) error) error {
	prefix := append(append(append([]byte{prefixTool}, session...), 0), run...)
	prefix = append(prefix, 0)
	return r.eachJSON(prefix, func(b []byte) error {
		var tw ToolWindow
		if err := jsonUnmarshal(b, &tw); err != nil {
			return err
		}
		return fn(tw)
	})
}

// eachJSON calls fn with the value of every key under prefix.
func (r *Reader) eachJSON(prefix []byte, fn func([]byte) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = bytes.Clone(prefix)
	it := r.txn.NewIterator(opts)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		if err := it.Item().Value(fn); err != nil {
			return err
		}
	}
	return nil
}

// CheckpointsIn calls fn with the checkpoints whose seq is in [from, to],
// oldest first (by seq, then in the order they were cut), until fn
// returns false: one iterator, however many there are.
func (r *Reader) CheckpointsIn(from, to uint64, fn func(Checkpoint) (bool, error)) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte{prefixCkptBySeq}
	it := r.txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(ckptBySeqKey(from, 0)); it.Valid(); it.Next() {
		key := it.Item().Key()
		if len(key) < 9 || binary.BigEndian.Uint64(key[1:9]) > to {
			return nil
		}
		var id []byte
		if err := it.Item().Value(func(b []byte) error { id = bytes.Clone(b); return nil }); err != nil {
			return err
		}
		cp, err := r.Checkpoint(string(id))
		if err != nil {
			return err
		}
		if more, err := fn(cp); err != nil || !more {
			return err
		}
	}
	return nil
}
