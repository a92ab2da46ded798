package store

import (
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4/skl"
)

// jsonUnmarshal decodes a stored record (JSON, or binary: recordenc.go).
func jsonUnmarshal(b []byte, v any) error { return unmarshalRecord(b, v) }

// Writer writes to the store. A Write call may commit in several
// transactions when it outgrows one (Badger's ErrTxnTooBig); each commit
// carries the journal head and fingerprint that match the records in it, so
// every committed prefix is consistent.
type Writer struct {
	Reader
	s     *Store
	head  uint64
	fp    Fingerprint
	size  int64
	count int
	bytes int64 // keys and values set since the last commit, as written
	runs  []Run // runs put since the last commit (lastRunCache)
	// background: a rewrite of what is stored (Repack), not new work:
	// its commits leave the store idle (idle.go).
	background bool
}

// Write runs fn with the store's only writer and commits what it wrote.
func (s *Store) Write(fn func(*Writer) error) error {
	return s.write(fn, false)
}

// write is Write; background writes are a rewrite of what is stored.
func (s *Store) write(fn func(*Writer) error, background bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(); err != nil {
		return err
	}
	w := &Writer{s: s, head: s.head, fp: s.fp, background: background}
	w.recent = &s.recent
	w.txn = s.db.NewTransaction(true)
	defer func() { w.txn.Discard() }()
	if err := fn(w); err != nil {
		return err
	}
	defer s.size.invalidate()
	return w.commit(false)
}

// batch limits: Badger refuses a transaction over 15% of a memtable, or of
// more entries than that many bytes hold skiplist nodes; stay well under
// both.
func (w *Writer) full(extra int64) bool {
	limit := w.s.memTableSize * 15 / 100 * 6 / 10
	return w.size+extra > limit || w.count >= int(limit)/skl.MaxNodeSize
}

func (w *Writer) commit(reopen bool) error {
	if err := w.setJSON(metaKey(metaHead), w.head); err != nil {
		return err
	}
	if err := w.setJSON(metaKey(metaFingerprint), w.fp); err != nil {
		return err
	}
	// The commit writes its entries to the write-ahead log and its large
	// values to the value log: twice its bytes at most.
	if err := w.s.checkRoom(2*w.bytes, true); err != nil {
		return err
	}
	if err := w.txn.Commit(); err != nil {
		return fmt.Errorf("store commit: %w", err)
	}
	w.s.head, w.s.fp = w.head, w.fp
	w.s.noteCommitted(w.bytes, w.background)
	w.s.lastRun.committed(w.runs)
	w.size, w.count, w.bytes, w.runs = 0, 0, 0, nil
	if reopen {
		w.txn = w.s.db.NewTransaction(true)
	}
	return nil
}

// room commits the open transaction first if extra bytes would not fit.
func (w *Writer) room(extra int64) error {
	if w.count == 0 || !w.full(extra) {
		return nil
	}
	return w.commit(true)
}

// estimate is what writing val at key adds to a transaction, as Badger
// counts it: a value under the value threshold in full, a larger one as
// the pointer to where the value log holds it. Deletes (no value) cost the
// same at any threshold.
func estimate(key, val []byte) int64 { return estimateAt(key, val, ValueThreshold) }

// estimate is estimate at the threshold of the open database (a store
// reopened by OpenLazy keeps larger values inline).
func (w *Writer) estimate(key, val []byte) int64 {
	return estimateAt(key, val, w.s.valueThreshold)
}

func estimateAt(key, val []byte, threshold int64) int64 {
	n := int64(len(key)) + 12
	if int64(len(val)) < threshold {
		n += int64(len(val))
	} else {
		n += 12
	}
	return n
}

func (w *Writer) set(key, val []byte) error {
	if err := w.txn.Set(key, val); err != nil {
		return fmt.Errorf("store set: %w", err)
	}
	w.size += w.estimate(key, val)
	w.bytes += int64(len(key) + len(val))
	w.count++
	return nil
}

func (w *Writer) setJSON(key []byte, v any) error {
	b, err := marshalRecord(v)
	if err != nil {
		return err
	}
	return w.set(key, b)
}

// Head is the last journal seq as this writer sees it.
func (w *Writer) Head() uint64 { return w.head }

// Fingerprint is the live fingerprint as this writer sees it.
func (w *Writer) Fingerprint() Fingerprint { return w.fp }

// Record appends a change to the journal, indexes it, makes its state the
// path's entry and sets the live fingerprint to fp. It returns the seq.
func (w *Writer) Record(c Change, fp Fingerprint) (uint64, error) {
	c.Seq = w.head + 1
	if c.State.Exists() {
		c.State.Seq = c.Seq
	}
	jv := c.encode()
	sv := c.State.appendTo(nil)
	jk, pk, ek := journalKey(c.Seq), pathKey(c.Path, c.Seq), entryKey(c.Path)
	if err := w.room(w.estimate(jk, jv) + w.estimate(pk, sv) + w.estimate(ek, sv)); err != nil {
		return 0, err
	}
	if err := w.set(jk, jv); err != nil {
		return 0, err
	}
	if err := w.set(pk, sv); err != nil {
		return 0, err
	}
	if c.State.Exists() {
		if err := w.set(ek, sv); err != nil {
			return 0, err
		}
	} else {
		if err := w.txn.Delete(ek); err != nil {
			return 0, err
		}
		w.count++
	}
	w.head, w.fp = c.Seq, fp
	return c.Seq, nil
}

// Touch rewrites a path's entry (its stat tuple) without a journal entry:
// the content did not change.
func (w *Writer) Touch(path string, st State) error {
	k, v := entryKey(path), st.appendTo(nil)
	if err := w.room(w.estimate(k, v)); err != nil {
		return err
	}
	return w.set(k, v)
}

// PutBlob stores encoded content (from EncodeBlob or EncodeBlobAgainst)
// unless it is stored.
func (w *Writer) PutBlob(h Hash, chunks [][]byte) error {
	if ok, err := w.HasBlob(h); err != nil || ok {
		return err
	}
	if err := w.putDeltaRef(h, chunks); err != nil {
		return err
	}
	return w.putChunks(h, chunks)
}

// putChunks writes a blob's chunks.
func (w *Writer) putChunks(h Hash, chunks [][]byte) error {
	// Chunk 0 marks the blob as stored (HasBlob), so it goes last: a write
	// split across transactions that stops midway leaves no marker, and
	// the next PutBlob writes every chunk again.
	for i := len(chunks) - 1; i >= 0; i-- {
		c := chunks[i]
		k := blobKey(h, uint32(i))
		if err := w.room(w.estimate(k, c)); err != nil {
			return err
		}
		if err := w.setChunk(k, c); err != nil {
			return err
		}
	}
	return nil
}

// PutCheckpoint stores a checkpoint, giving it the next creation order.
func (w *Writer) PutCheckpoint(cp *Checkpoint) error {
	var ord uint64
	if err := getJSON(w.txn, metaKey(metaOrd), &ord); err != nil && err != ErrNotFound {
		return err
	}
	ord++
	cp.Ord = ord
	if err := w.setJSON(metaKey(metaOrd), ord); err != nil {
		return err
	}
	if err := w.setJSON(checkpointKey(cp.ID), cp); err != nil {
		return err
	}
	return w.set(ckptBySeqKey(cp.Seq, cp.Ord), []byte(cp.ID))
}

// NextOrd is the creation order the next checkpoint will get.
func (w *Writer) NextOrd() (uint64, error) {
	var ord uint64
	if err := getJSON(w.txn, metaKey(metaOrd), &ord); err != nil && err != ErrNotFound {
		return 0, err
	}
	return ord + 1, nil
}

// PutWorkspace stores the workspace state.
func (w *Writer) PutWorkspace(ws WorkspaceState) error {
	return w.setJSON(metaKey(metaWorkspace), ws)
}

// PutActive stores who changes are attributed to now.
func (w *Writer) PutActive(a Active) error { return w.setJSON(metaKey(metaActive), a) }

// PutIntent stores a restore intent.
func (w *Writer) PutIntent(in Intent) error { return w.setJSON(metaKey(metaIntent), in) }

// DeleteIntent removes the restore intent.
func (w *Writer) DeleteIntent() error { return w.txn.Delete(metaKey(metaIntent)) }

// PutLastRestore remembers a restore for undo.
func (w *Writer) PutLastRestore(lr LastRestore) error {
	return w.setJSON(metaKey(metaLastRestore), lr)
}

// PutRun stores a run's baseline record.
func (w *Writer) PutRun(r Run) error {
	if err := w.setJSON(runKey(r.Session, r.Run), r); err != nil {
		return err
	}
	r.Drift = slices.Clone(r.Drift) // the cache's copy: the caller's may change
	w.runs = append(w.runs, r)
	return nil
}

// PutToolWindow stores a tool window.
func (w *Writer) PutToolWindow(t ToolWindow) error {
	return w.setJSON(toolKey(t.Session, t.Run, t.Call), t)
}
