package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
)

// The Badger user-meta byte of a blob chunk says how it was encoded, so
// that Recompress and Repack find the chunks to rewrite by their keys
// alone, without reading the value log. Chunks written before these marks
// have 0 (Repack reads their codec byte).
const (
	metaFast  byte = 1 // the first import's codec (codecS2)
	metaDelta byte = 2 // a delta
	metaFinal byte = 3 // the final encoding (compressFinal): nothing to redo
	metaPlain byte = 4 // whole, as a capture writes it (zstd SpeedFastest or raw)
	// metaDeltaFinal: a delta whose op stream Repack compressed again at
	// the final level (or found no better way to store).
	metaDeltaFinal byte = 5
)

func chunkMeta(val []byte) byte {
	switch {
	case len(val) == 0:
		return metaPlain
	case val[0] == codecS2:
		return metaFast
	case val[0] == codecDelta:
		return metaDelta
	case val[0] == codecZstdDict:
		return metaFinal
	}
	return metaPlain
}

// setChunk sets a blob chunk, marked with how it is encoded.
func (w *Writer) setChunk(key, val []byte) error {
	return w.setChunkMeta(key, val, chunkMeta(val))
}

func (w *Writer) setChunkMeta(key, val []byte, meta byte) error {
	if err := w.txn.SetEntry(badger.NewEntry(key, val).WithMeta(meta)); err != nil {
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
// codec (EncodeBlobFast) in the final encoding (compressFinal: zstd
// against the store's dictionary, made from the first step's contents if
// the store has none), a step of about recompressBatch bytes at a time;
// between steps it calls pause (the caller's pacing: the daemon yields
// the CPU to its work) and checks ctx. The contents, and so the keys, do
// not change: a read during it sees either chunk. When every chunk is
// done, it gives the replaced chunks' space back (Reclaim) and removes the
// pending mark.
func (s *Store) Recompress(ctx context.Context, pause func()) (RecompressStats, error) {
	rs, err := s.rewriteAll(ctx, pause, true)
	if err != nil {
		return rs, err
	}
	if rs.Chunks > 0 {
		// The old chunks' space: rewritten chunks leave their first
		// version in the value log until its GC.
		if _, err := s.Reclaim(); err != nil {
			return rs, err
		}
		s.releaseLogPages()
	}
	err = os.Remove(filepath.Join(s.dir, fastMarkName))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return rs, err
}

// releaseEvery is how many chunks rewriteAll reads between two releases
// of the value log's pages. It reads them in key (hash) order, which is
// all over the value log, and each read of a page not mapped yet maps the
// kernel's read-around of it: 750 KB a chunk on average on a 200,000-file
// store (read-ahead 8 MiB), so that the first 8 MiB step mapped 600 MB.
// Every 16 chunks, the step's peak stayed under 50 MB, for half as much
// time again in its reads (not in its encoding, most of a step).
const releaseEvery = 16

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
