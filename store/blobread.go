package store

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// prefixDeltaRef keys the base-reference index: 'd' blob base, no value,
// one key for each blob stored as a delta. SweepBlobs reads it to keep the
// bases of the blobs it keeps without decoding any blob.
const prefixDeltaRef = 'd'

func deltaRefKey(blob, base Hash) []byte {
	k := make([]byte, 49)
	k[0] = prefixDeltaRef
	putHash(k[1:], blob)
	putHash(k[25:], base)
	return k
}

// HasBlob reports whether the content is stored, and so can be read: a
// stored delta's base is kept as long as the delta is (SweepBlobs).
func (r *Reader) HasBlob(h Hash) (bool, error) {
	_, err := r.txn.Get(blobKey(h, 0))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Blob returns the content with hash h.
func (r *Reader) Blob(h Hash) ([]byte, error) {
	b, _, err := r.blob(h)
	return b, err
}

// DeltaBase reads the content with hash h as the base for a new version of
// it (EncodeBlobAgainst). It returns no base (and no error) when there is
// none to use: h is not stored or does not fit one chunk. When h is at the
// end of a chain as long as it may get, the base is the whole blob at the
// chain's root instead: the new version's delta then spans every edit since
// the root, which for a file edited a little at a time is still far smaller
// than a whole copy (EncodeBlobAgainst stores it whole when it is not), and
// the chain starts again at depth 1 rather than with a whole blob.
func (r *Reader) DeltaBase(h Hash) (DeltaBase, error) {
	if h.Size < 0 || h.Size > ChunkSize {
		return DeltaBase{}, nil
	}
	if base, ok := r.recentBase(h); ok {
		return base, nil
	}
	b, depth, root, err := r.assembleChain(h, true)
	if err == nil && HashBytes(b) != h {
		err = fmt.Errorf("store: blob %x: %w", h.H1, errDamaged)
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return DeltaBase{}, nil
	case err != nil:
		return DeltaBase{}, err
	case depth >= maxDeltaDepth:
		if HashBytes(root.content) != root.hash {
			return DeltaBase{}, fmt.Errorf("store: blob %x: %w", root.hash.H1, errDamaged)
		}
		r.keepRecent(root.hash, root.content, 0, root.hash)
		r.keepRecent(h, b, depth, root.hash)
		return root, nil
	}
	base := DeltaBase{hash: h, content: b, depth: depth, root: root.hash}
	r.keepRecent(h, b, depth, root.hash)
	return base, nil
}

// errDamaged is a content whose bytes, read back, do not hash to its key.
var errDamaged = errors.New("its content read back does not match its hash: the store is damaged")

// blob reads the content with hash h, and how many deltas it took, and
// checks the bytes against h: whatever the codecs (raw chunks and deltas
// carry no checksum of their own), nothing is restored or diffed from a
// content that is not the one recorded.
func (r *Reader) blob(h Hash) ([]byte, int, error) {
	b, depth, err := r.assemble(h)
	if err == nil && HashBytes(b) != h {
		return nil, 0, fmt.Errorf("store: blob %x: %w", h.H1, errDamaged)
	}
	return b, depth, err
}

// assemble reads the content with hash h. A blob that fits one chunk is
// read with one lookup per link of its chain: first down the chain to the
// whole blob at its root, then each delta applied on the way back up, so
// each link is read and decoded once.
func (r *Reader) assemble(h Hash) ([]byte, int, error) {
	b, depth, _, err := r.assembleChain(h, false)
	return b, depth, err
}

// assembleChain is assemble; with wantRoot, it also returns the whole blob
// at the root of a chain of maxDeltaDepth deltas (a copy of its content).
func (r *Reader) assembleChain(h Hash, wantRoot bool) ([]byte, int, DeltaBase, error) {
	var root DeltaBase
	if h.Size < 0 {
		return nil, 0, root, ErrNotFound
	}
	if h.Size > ChunkSize {
		b, err := r.chunkedBlob(h)
		return b, 0, root, err
	}
	var (
		links []deltaChunk
		out   []byte
		room  = h.Size // the longest content on the chain: buffers for all
		cur   = h
	)
	for {
		var link *deltaChunk
		err := r.chunk0(cur, func(v []byte) (err error) {
			if len(v) > 0 && v[0] == codecDelta {
				d, err := parseDeltaChunk(v)
				link = &d
				return err
			}
			out, err = r.decodeChunk(make([]byte, 0, room), v)
			return err
		})
		if errors.Is(err, ErrNotFound) && len(links) > 0 {
			return nil, 0, root, fmt.Errorf("store: blob %x: the base %x of its delta chain is missing", h.H1, cur.H1)
		}
		if err != nil {
			return nil, 0, root, err
		}
		if link == nil {
			if int64(len(out)) != cur.Size {
				return nil, 0, root, errors.New("store: blob has the wrong size")
			}
			break
		}
		if len(links) == maxDeltaDepth {
			return nil, 0, root, fmt.Errorf("store: blob %x: delta chain longer than %d", h.H1, maxDeltaDepth)
		}
		links = append(links, *link)
		cur = link.base
		room = max(room, cur.Size)
	}
	root.hash, root.root = cur, cur
	if wantRoot && len(links) >= maxDeltaDepth {
		root.content = bytes.Clone(out)
	}
	var spare []byte
	if len(links) > 1 {
		spare = make([]byte, 0, room)
	}
	for i := len(links) - 1; i >= 0; i-- {
		size := h.Size
		if i > 0 {
			size = links[i-1].base.Size
		}
		if links[i].depth != len(links)-i {
			return nil, 0, root, fmt.Errorf("store: blob %x: %w (depth %d at %d from the root)", h.H1, errCorruptDelta, links[i].depth, len(links)-i)
		}
		next, err := applyDelta(spare, out, links[i].delta, int(size))
		if err != nil {
			return nil, 0, root, fmt.Errorf("store: blob %x: %w", h.H1, err)
		}
		if int64(len(next)) != size {
			return nil, 0, root, errors.New("store: blob has the wrong size")
		}
		out, spare = next, out
	}
	return out, len(links), root, nil
}

// decodeChunk is decodeChunk, reading chunks encoded against a
// dictionary too.
func (r *Reader) decodeChunk(dst, v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == codecZstdDict {
		return decodeDictChunk(r.txn, dst, v)
	}
	return decodeChunk(dst, v)
}

// chunk0 calls fn with the value of the blob's first chunk, valid only
// during the call.
func (r *Reader) chunk0(h Hash, fn func([]byte) error) error {
	item, err := r.txn.Get(blobKey(h, 0))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return item.Value(fn)
}

// chunkedBlob reads a blob of more than one chunk: never a delta.
func (r *Reader) chunkedBlob(h Hash) ([]byte, error) {
	out := make([]byte, 0, min(h.Size, 2*ChunkSize))
	opts := badger.DefaultIteratorOptions
	opts.Prefix = blobKey(h, 0)[:25]
	it := r.txn.NewIterator(opts)
	defer it.Close()
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		err := it.Item().Value(func(b []byte) (err error) {
			out, err = r.decodeChunk(out, b)
			return err
		})
		if err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, ErrNotFound
	}
	if int64(len(out)) != h.Size {
		return nil, errors.New("store: blob has the wrong size")
	}
	return out, nil
}

// putDeltaRef checks, before PutBlob writes a delta's chunk, that its base
// is stored. (Stores written before kept an index key for each delta,
// 'd' blob base; a delta's chunk is now marked metaDelta instead, and
// keepBases reads its base from the chunk's header.)
func (w *Writer) putDeltaRef(h Hash, chunks [][]byte) error {
	if len(chunks) == 0 || len(chunks[0]) == 0 || chunks[0][0] != codecDelta {
		return nil
	}
	if len(chunks) > 1 || len(chunks[0]) < deltaHeaderLen {
		return errCorruptDelta
	}
	base := getHash(chunks[0][1:])
	if ok, err := w.HasBlob(base); err != nil || !ok {
		return fmt.Errorf("store: the base %x of a new delta is not stored (%v)", base.H1, err)
	}
	return nil
}

// deltaBases maps every blob stored as a delta to its base: from the
// chunks marked metaDelta (their header) and from the index keys of stores
// written before the marks; indexed holds the index keys' pairs.
func (w *Writer) deltaBases() (baseOf, indexed map[Hash]Hash, err error) {
	baseOf, indexed = map[Hash]Hash{}, map[Hash]Hash{}
	err = w.scan([]byte{prefixDeltaRef}, false, func(key []byte, _ *badger.Item) error {
		if len(key) != 49 {
			return fmt.Errorf("store: malformed delta index key %x", key)
		}
		baseOf[getHash(key[1:])] = getHash(key[25:])
		indexed[getHash(key[1:])] = getHash(key[25:])
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = w.scan([]byte{prefixBlob}, false, func(key []byte, item *badger.Item) error {
		if m := item.UserMeta(); m != metaDelta && m != metaDeltaFinal {
			return nil
		}
		if len(key) != 29 {
			return fmt.Errorf("store: malformed blob key %x", key)
		}
		return item.Value(func(v []byte) error {
			if len(v) < deltaHeaderLen || v[0] != codecDelta {
				return errCorruptDelta
			}
			baseOf[getHash(key[1:])] = getHash(v[1:])
			return nil
		})
	})
	return baseOf, indexed, err
}

// keepBases adds to live the base of every delta in it, and their bases in
// turn, and deletes the index keys of the deltas not in it.
func (w *Writer) keepBases(live map[Hash]struct{}) error {
	baseOf, indexed, err := w.deltaBases()
	if err != nil {
		return err
	}
	roots := make([]Hash, 0, len(live))
	for h := range live {
		roots = append(roots, h)
	}
	for _, h := range roots {
		// A walk stops at a blob already live: its own chain is walked
		// (or will be) from there. Chains are at most maxDeltaDepth long,
		// and a walk could not loop even if a corrupt index made a cycle.
		for b, ok := baseOf[h]; ok; b, ok = baseOf[b] {
			if _, seen := live[b]; seen {
				break
			}
			live[b] = struct{}{}
		}
	}
	for blob, base := range indexed {
		if _, ok := live[blob]; !ok {
			if err := w.deleteKey(deltaRefKey(blob, base)); err != nil {
				return err
			}
		}
	}
	return nil
}
