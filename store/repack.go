package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Repack rewrites every whole blob chunk not in the final encoding yet
// (compressFinal: the first import's, which Recompress would do too, and
// those captures wrote with zstd at SpeedFastest) in it, a step of about
// recompressBatch bytes at a time, pause called between steps. Deltas are
// left as they are. It does not give the replaced chunks' space back: the
// caller reclaims (ckpt gc does, last). A second Repack finds nothing to
// do but what was written since.
func (s *Store) Repack(ctx context.Context, pause func()) (RecompressStats, error) {
	return s.rewriteAll(ctx, pause, false)
}

// rewriteAll is Recompress (fastOnly) or Repack without the reclaim.
func (s *Store) rewriteAll(ctx context.Context, pause func(), fastOnly bool) (RecompressStats, error) {
	var rs RecompressStats
	from := []byte{prefixBlob}
	var d *zdict
	if err := s.View(func(r *Reader) (err error) { d, err = storeDict(r.txn); return err }); err != nil {
		return rs, err
	}
	first := true
	for {
		if err := ctx.Err(); err != nil {
			return rs, err
		}
		batch, next, err := s.chunksToRewrite(from, fastOnly)
		if err != nil {
			return rs, err
		}
		s.releaseLogPages()
		if err := s.rewriteChunks(batch, &d, first, &rs); err != nil {
			return rs, err
		}
		first = false
		if next == nil {
			return rs, nil
		}
		from = next
		if pause != nil {
			pause()
		}
	}
}

// rewriteBatch is chunks to rewrite, read in one step.
type rewriteBatch struct {
	keys, vals [][]byte
	metas      []byte
}

// rewritable reports whether a chunk with this user-meta byte is to be
// rewritten; for chunks written before the marks (0), it reads the
// codec byte.
func rewritable(item *badger.Item, fastOnly bool) (bool, error) {
	switch m := item.UserMeta(); {
	case m == metaFast:
		return true, nil
	case fastOnly || m != 0 && m != metaPlain && m != metaDelta:
		return false, nil
	case m == metaPlain || m == metaDelta:
		return true, nil
	}
	var ok bool
	err := item.Value(func(v []byte) error {
		ok = len(v) > 0 && (v[0] == codecZstd || v[0] == codecRaw)
		return nil
	})
	return ok, err
}

// chunksToRewrite reads, from key from on, chunks to rewrite until their
// bytes reach recompressBatch. next is where to go on from, nil at the end.
func (s *Store) chunksToRewrite(from []byte, fastOnly bool) (b rewriteBatch, next []byte, err error) {
	err = s.View(func(r *Reader) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = []byte{prefixBlob}
		it := r.txn.NewIterator(opts)
		defer it.Close()
		size := 0
		for it.Seek(from); it.Valid(); it.Next() {
			item := it.Item()
			if ok, err := rewritable(item, fastOnly); err != nil || !ok {
				if err != nil {
					return err
				}
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
			b.keys, b.vals, b.metas = append(b.keys, item.KeyCopy(nil)), append(b.vals, v), append(b.metas, item.UserMeta())
			size += len(v)
			if len(b.keys)%releaseEvery == 0 {
				s.releaseLogPages()
			}
		}
		return nil
	})
	return b, next, err
}

// rewriteChunks encodes the chunks in the final encoding and stores them
// where they were, unless a chunk has been deleted (a prune) or rewritten
// meanwhile. In the first step of a store with no dictionary (*d nil), it
// makes one from the step's contents, if they are enough to pay for it,
// and stores it in the same write, before the first chunk that needs it.
func (s *Store) rewriteChunks(b rewriteBatch, d **zdict, first bool, rs *RecompressStats) error {
	if len(b.keys) == 0 {
		return nil
	}
	contents := make([][]byte, len(b.vals))
	for i, v := range b.vals {
		if b.metas[i] == metaDelta {
			continue // its op stream, below
		}
		content, err := decodeChunk(nil, v)
		if err != nil {
			return fmt.Errorf("store: recompress chunk %x: %w", b.keys[i], err)
		}
		contents[i] = content
	}
	var newDict []byte
	if *d == nil && first {
		if raw := makeDict(contents); raw != nil {
			nd, err := newZdict(dictID(raw), raw)
			if err != nil {
				return err
			}
			*d, newDict = nd, raw
		}
	}
	out := make([][]byte, len(contents))
	for i, c := range contents {
		if b.metas[i] == metaDelta {
			var err error
			if out[i], err = recompressDelta(b.vals[i]); err != nil {
				return fmt.Errorf("store: recompress delta %x: %w", b.keys[i], err)
			}
			continue
		}
		out[i] = compressFinal(c, *d)
	}
	return s.write(func(w *Writer) error {
		if newDict != nil {
			if err := w.set(dictKey((*d).id), compress(nil, newDict)); err != nil {
				return err
			}
		}
		for i, k := range b.keys {
			item, err := w.txn.Get(k)
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if item.UserMeta() != b.metas[i] {
				continue
			}
			if err := w.room(w.estimate(k, out[i])); err != nil {
				return err
			}
			meta := metaFinal
			if b.metas[i] == metaDelta {
				meta = metaDeltaFinal
			}
			if err := w.setChunkMeta(k, out[i], meta); err != nil {
				return err
			}
			rs.Chunks++
			rs.Before += int64(len(b.vals[i]))
			rs.After += int64(len(out[i]))
		}
		return nil
	}, true)
}

// recompressDelta is a delta chunk with its op stream compressed at the
// final level, or the chunk as it was when that is not smaller. The
// header (base, depth) is unchanged.
func recompressDelta(v []byte) ([]byte, error) {
	d, err := parseDeltaChunk(v)
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, len(v)), v[:deltaHeaderLen]...)
	out = finalEncoder().EncodeAll(d.delta, append(out, codecZstd))
	if len(out) >= len(v) {
		return v, nil
	}
	return out, nil
}
