package snapshot

import (
	"cmp"
	"path"
	"slices"

	"github.com/ckptdev/ckpt/store"
)

// A new path's content is stored as a delta against a similar stored
// content when that saves at least half (store.EncodeBlobAgainstAny): the
// bases tried are, closest in size first, up to two contents the same
// capture deletes under the same name (a file moved to another directory)
// and up to two stored files in the same directory with the same
// extension (a sibling of the same kind), each between half and twice
// the new content's size. The first import (the fast
// codec) tries none: it would read a base for every file.

// crossCandidates bounds the bases tried from each source.
const crossCandidates = 2

// minCrossSize: smaller contents are stored whole (a delta saves little).
const minCrossSize = 256

// goneByName is the stored contents a capture deletes, by base name.
type goneByName map[string][]store.Hash

func newGoneByName(gone map[string]store.State) goneByName {
	g := goneByName{}
	for p, st := range gone {
		if st.Kind == store.File && st.Stored && st.Hash.Size >= minCrossSize && st.Hash.Size <= store.ChunkSize {
			g[path.Base(p)] = append(g[path.Base(p)], st.Hash)
		}
	}
	return g
}

// crossBases reads the bases a new path's content of size bytes may be a
// delta against.
func crossBases(r *store.Reader, p string, size int64, gone goneByName) ([]store.DeltaBase, error) {
	closest := func(hs []store.Hash) []store.Hash {
		// A delta under half the content needs a base of about its
		// size: others cost their read and the attempt for nothing.
		hs = slices.DeleteFunc(slices.Clone(hs), func(h store.Hash) bool { return 2*h.Size < size || h.Size > 2*size })
		slices.SortFunc(hs, func(a, b store.Hash) int { return cmp.Compare(absDiff(a.Size, size), absDiff(b.Size, size)) })
		return hs[:min(len(hs), crossCandidates)]
	}
	hashes := closest(gone[path.Base(p)])
	if ext := path.Ext(p); ext != "" {
		dir := path.Dir(p)
		if dir == "." {
			dir = ""
		}
		var sibs []store.Hash
		err := r.SimilarEntries(dir, ext, func(q string, st store.State) {
			if q != p && st.Hash.Size >= minCrossSize && st.Hash.Size <= store.ChunkSize {
				sibs = append(sibs, st.Hash)
			}
		})
		if err != nil {
			return nil, err
		}
		hashes = append(hashes, closest(sibs)...)
	}
	var bases []store.DeltaBase
	seen := map[store.Hash]bool{}
	for _, h := range hashes {
		if seen[h] {
			continue
		}
		seen[h] = true
		b, err := r.DeltaBase(h)
		if err != nil {
			return nil, err
		}
		bases = append(bases, b)
	}
	return bases, nil
}

func absDiff(a, b int64) int64 {
	if a < b {
		return b - a
	}
	return a - b
}

// encodeNew is encode for a path with no stored previous version: nil
// when the content is stored already, else a delta against a similar
// content (crossBases) when that saves enough, else whole.
func (ws *Workspace) encodeNew(data content, c candidate) [][]byte {
	if data.hash.Size < minCrossSize || data.hash.Size > store.ChunkSize {
		chunks := store.EncodeBlob(data.bytes)
		ws.st.KeepRecent(data.hash, data.bytes, chunks, store.DeltaBase{})
		return chunks
	}
	var (
		bases  []store.DeltaBase
		stored bool
	)
	err := ws.st.View(func(r *store.Reader) (err error) {
		if stored, err = r.HasBlob(data.hash); err != nil || stored {
			return err
		}
		bases, err = crossBases(r, c.path, data.hash.Size, c.gone)
		return err
	})
	if err == nil && stored {
		return nil
	}
	// An error here costs only the delta: the write reports its own.
	chunks := store.EncodeBlobAgainstAny(data.bytes, bases)
	// The next version of the file is likely encoded against this one.
	ws.st.KeepRecentAny(data.hash, data.bytes, chunks, bases)
	return chunks
}
