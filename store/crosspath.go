package store

import (
	"bytes"

	"github.com/dgraph-io/badger/v4"
)

// A new path has no previous version to be a delta against, but its
// content is often a version of another path's: a file moved or renamed,
// a copy edited, a sibling of the same kind. The capture names a few such
// contents (SimilarEntries, the paths it deletes) and EncodeBlobAgainstAny
// keeps the smallest delta. The delta format does not change: a delta
// names its base by hash whatever path holds it, a read follows the chain
// the same way, and pruning keeps every base a kept delta names.

// siblingScanLimit bounds the entries SimilarEntries reads in one
// directory, subdirectories skipped.
const siblingScanLimit = 256

// SimilarEntries calls fn with the stored files directly in dir (""
// for the workspace's root) whose name ends in ext, at most
// siblingScanLimit entries read: a subdirectory's entries are skipped with
// one seek.
func (r *Reader) SimilarEntries(dir, ext string, fn func(path string, st State)) error {
	prefix := entryKey("")
	if dir != "" {
		prefix = entryKey(dir + "/")
	}
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	it := r.txn.NewIterator(opts)
	defer it.Close()
	read := 0
	for it.Rewind(); it.Valid() && read < siblingScanLimit; read++ {
		key := it.Item().Key()
		rest := key[len(prefix):]
		if i := bytes.IndexByte(rest, '/'); i >= 0 {
			// A subdirectory: on to the first key after its entries.
			next := append(append(append([]byte(nil), prefix...), rest[:i]...), '/'+1)
			it.Seek(next)
			continue
		}
		if bytes.HasSuffix(rest, []byte(ext)) {
			var st State
			err := it.Item().Value(func(b []byte) (err error) {
				st, _, err = decodeState(b)
				return err
			})
			if err != nil {
				return err
			}
			if st.Kind == File && st.Stored {
				fn(string(key[1:]), st)
			}
		}
		it.Next()
	}
	return nil
}

// EncodeBlobAgainstAny is EncodeBlobAgainst with the smallest of the
// deltas against each base: content that fits one chunk is stored as a
// delta when that is less than half its plain encoding.
func EncodeBlobAgainstAny(b []byte, bases []DeltaBase) [][]byte {
	if len(b) > ChunkSize {
		return EncodeBlob(b)
	}
	var best []byte
	for _, base := range bases {
		if base.content == nil || base.depth >= maxDeltaDepth {
			continue
		}
		limit := len(b) / 2
		if best != nil {
			limit = len(best) - 1
		}
		if d := encodeDeltaChunk(b, base, limit); d != nil {
			best = d
		}
	}
	if best != nil && len(best)*sureDelta <= len(b) {
		return [][]byte{best}
	}
	plain := EncodeBlob(b)
	if best != nil && 2*len(best) < len(plain[0]) {
		return [][]byte{best}
	}
	return plain
}
