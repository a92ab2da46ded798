package store

import (
	"bytes"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// prefixReplica holds what replication to a remote (store/remote)
// remembers between runs: 'x' remote-id 0x00 name -> value (its cursor,
// the remote names of the blobs it has stored, the hashes of the run
// records it has sent, the store's writer id). Nothing else reads these
// keys, and pruning leaves them alone.
const prefixReplica = 'x'

func replicaKey(remote, name string) []byte {
	b := make([]byte, 0, 2+len(remote)+len(name))
	b = append(b, prefixReplica)
	b = append(b, remote...)
	b = append(b, 0)
	return append(b, name...)
}

// EncodeChange is a journal entry's stored encoding, without its seq: what
// a replica ships and DecodeChange reads back.
func EncodeChange(c Change) []byte { return c.encode() }

// DecodeChange decodes EncodeChange's bytes as the entry at seq.
func DecodeChange(seq uint64, b []byte) (Change, error) { return decodeChange(seq, b) }

// Mark is the value a replicator stored under name for remote, or nil.
func (r *Reader) Mark(remote, name string) ([]byte, error) {
	item, err := r.txn.Get(replicaKey(remote, name))
	if err == badger.ErrKeyNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return item.ValueCopy(nil)
}

// Marks calls fn with every mark of remote under the name prefix.
func (r *Reader) Marks(remote, prefix string, fn func(name string, val []byte) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix = replicaKey(remote, prefix)
	it := r.txn.NewIterator(opts)
	defer it.Close()
	skip := len(replicaKey(remote, ""))
	for it.Rewind(); it.Valid(); it.Next() {
		v, err := it.Item().ValueCopy(nil)
		if err != nil {
			return err
		}
		if err := fn(string(bytes.Clone(it.Item().Key()[skip:])), v); err != nil {
			return err
		}
	}
	return nil
}

// PutMark stores a replicator's mark.
func (w *Writer) PutMark(remote, name string, val []byte) error {
	k := replicaKey(remote, name)
	if err := w.room(w.estimate(k, val)); err != nil {
		return err
	}
	return w.set(k, val)
}

// ImportChange appends a journal entry read from a replica, keeping its
// seq (which must be above the head: a replica's journal has gaps where
// its history was pruned), and sets the live fingerprint to fp.
func (w *Writer) ImportChange(c Change, fp Fingerprint) error {
	if c.Seq <= w.head {
		return fmt.Errorf("import journal entry %d: not above the head %d", c.Seq, w.head)
	}
	w.head = c.Seq - 1
	_, err := w.Record(c, fp)
	return err
}

// ImportCheckpoint stores a checkpoint read from a replica with its own
// creation order, and moves the order counter past it.
func (w *Writer) ImportCheckpoint(cp Checkpoint) error {
	var ord uint64
	if err := getJSON(w.txn, metaKey(metaOrd), &ord); err != nil && err != ErrNotFound {
		return err
	}
	if cp.Ord > ord {
		if err := w.setJSON(metaKey(metaOrd), cp.Ord); err != nil {
			return err
		}
	}
	if err := w.setJSON(checkpointKey(cp.ID), cp); err != nil {
		return err
	}
	return w.set(ckptBySeqKey(cp.Seq, cp.Ord), []byte(cp.ID))
}

// AllToolWindows calls fn with every tool window, in key order.
func (r *Reader) AllToolWindows(fn func(ToolWindow) error) error {
	return r.eachJSON([]byte{prefixTool}, func(b []byte) error {
		var tw ToolWindow
		if err := jsonUnmarshal(b, &tw); err != nil {
			return err
		}
		return fn(tw)
	})
}

// CheckpointsAfterOrd calls fn with every checkpoint at seq fromSeq or
// later whose creation order is above ord, in journal order.
func (r *Reader) CheckpointsAfterOrd(fromSeq, ord uint64, fn func(Checkpoint) error) error {
	return r.CheckpointsIn(fromSeq, ^uint64(0), func(cp Checkpoint) (bool, error) {
		if cp.Ord <= ord {
			return true, nil
		}
		return true, fn(cp)
	})
}

// LastOrd is the creation order of the newest checkpoint (0: none).
func (r *Reader) LastOrd() (uint64, error) {
	var ord uint64
	if err := getJSON(r.txn, metaKey(metaOrd), &ord); err != nil && err != ErrNotFound {
		return 0, err
	}
	return ord, nil
}
