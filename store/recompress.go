package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
)

// metaFast is the Badger user-meta byte of a blob chunk written with the
// first import's codec (codecS2): Recompress finds them by their keys
// alone, without reading the value log.
const metaFast byte = 1

// setChunk sets a blob chunk, marking one encoded with codecS2.
func (w *Writer) setChunk(key, val []byte) error {
	if len(val) == 0 || val[0] != codecS2 {
		return w.set(key, val)
	}
	if err := w.txn.SetEntry(badger.NewEntry(key, val).WithMeta(metaFast)); err != nil {
		return fmt.Errorf("store set: %w", err)
	}
	w.size += w.estimate(key, val)
	w.bytes += int64(len(key) + len(val))
	w.count++
	return nil
}

// fastMarkName is the file, in the store's directory, that says the store
// may hold chunks in the first import's codec: written before the import
// stores its first content, removed by a Recompress that found none left.
const fastMarkName = "recompress-pending"

// MarkFast records that chunks in the first import's codec are about to be
// written (RecompressPending).
func (s *Store) MarkFast() error {
	return os.WriteFile(filepath.Join(s.dir, fastMarkName), nil, 0o600)
}

// RecompressPending reports whether the store may hold chunks in the first
// import's codec that Recompress has not rewritten yet.
func (s *Store) RecompressPending() bool {
	_, err := os.Stat(filepath.Join(s.dir, fastMarkName))
	return err == nil
}

// RecompressStats says what a Recompress rewrote.
type RecompressStats struct {
	Chunks int   // chunks rewritten as zstd
	Before int64 // their bytes before
	After  int64 // and after
}

// recompressBatch bounds the chunk bytes one step of a Recompress reads,
// encodes and writes: writers wait only for one step's write.
var recompressBatch = 8 << 20

// Recompress rewrites every blob chunk stored with the first import's
// codec (EncodeBlobFast) as a zstd chunk, a step of about recompressBatch
// bytes at a time; between steps it calls pause (the caller's pacing: the
// daemon yields the CPU to its work) and checks ctx. The contents, and so
// the keys, do not change: a read during it sees either chunk. When every
// chunk is done, it gives the replaced chunks' space back (Reclaim) and
// removes the pending mark.
func (s *Store) Recompress(ctx context.Context, pause func()) (RecompressStats, error) {
	var rs RecompressStats
	from := []byte{prefixBlob}
	for {
		if err := ctx.Err(); err != nil {
			return rs, err
		}
		keys, vals, next, err := s.fastChunks(from)
		if err != nil {
			return rs, err
		}
		s.releaseLogPages()
		if err := s.rewriteChunks(keys, vals, &rs); err != nil {
			return rs, err
		}
		if next == nil {
			break
		}
		from = next
		if pause != nil {
			pause()
		}
	}
	if rs.Chunks > 0 {
		// The old chunks' space: rewritten chunks leave their first
		// version in the value log until its GC.
		if _, err := s.Reclaim(); err != nil {
			return rs, err
		}
		s.releaseLogPages()
	}
	err := os.Remove(filepath.Join(s.dir, fastMarkName))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return rs, err
}

// releaseEvery is how many chunks fastChunks reads between two releases
// of the value log's pages. It reads them in key (hash) order, which is
// all over the value log, and each read of a page not mapped yet maps the
// kernel's read-around of it: 750 KB a chunk on average on a 200,000-file
// store (read-ahead 8 MiB), so that the first 8 MiB step mapped 600 MB.
// Every 16 chunks, the step's peak stayed under 50 MB, for half as much
// time again in its reads (not in its encoding, most of a step).
const releaseEvery = 16

// fastChunks reads, from key from on, chunks in the first import's codec
// until their bytes reach recompressBatch. next is where to go on from, nil
// at the end.
func (s *Store) fastChunks(from []byte) (keys, vals [][]byte, next []byte, err error) {
	err = s.View(func(r *Reader) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte{prefixBlob}
		it := r.txn.NewIterator(opts)
		defer it.Close()
		size := 0
		for it.Seek(from); it.Valid(); it.Next() {
			item := it.Item()
			if item.UserMeta() != metaFast {
				continue
			}
			if size >= recompressBatch {
				next = item.KeyCopy(nil)
				return nil
			}
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			keys, vals = append(keys, item.KeyCopy(nil)), append(vals, v)
			size += len(v)
			if len(keys)%releaseEvery == 0 {
				s.releaseLogPages()
			}
		}
		return nil
	})
	return keys, vals, next, err
}

// rewriteChunks encodes the chunks with zstd and stores them where they
// were, unless a chunk has been deleted (a prune) or rewritten meanwhile.
func (s *Store) rewriteChunks(keys, vals [][]byte, rs *RecompressStats) error {
	if len(keys) == 0 {
		return nil
	}
	out := make([][]byte, len(vals))
	for i, v := range vals {
		content, err := decodeChunk(nil, v)
		if err != nil {
			return fmt.Errorf("store: recompress chunk %x: %w", keys[i], err)
		}
		out[i] = compress(make([]byte, 0, len(v)), content)
	}
	return s.Write(func(w *Writer) error {
		for i, k := range keys {
			item, err := w.txn.Get(k)
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if item.UserMeta() != metaFast {
				continue
			}
			if err := w.room(w.estimate(k, out[i])); err != nil {
				return err
			}
			if err := w.set(k, out[i]); err != nil {
				return err
			}
			rs.Chunks++
			rs.Before += int64(len(vals[i]))
			rs.After += int64(len(out[i]))
		}
		return nil
	})
}

// releaseLogPages drops the value log's pages from this process
// (releaseMapped), holding s.gate so that no close or reopen moves the
// mappings meanwhile.
func (s *Store) releaseLogPages() {
	s.gate.Lock()
	defer s.gate.Unlock()
	if s.db != nil {
		releaseMapped(s.dbDir(), ".vlog")
		releaseMapped(s.dbDir(), ".sst")
	}
}
