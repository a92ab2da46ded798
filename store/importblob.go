package store

// ImportedBlobs remembers, approximately, the contents one first import
// has stored, so that its writer asks Badger whether a content is stored
// only when the import may have stored it itself: a lookup searches the
// memtables and every level's tables, and at 200,000 files, nearly all of
// them distinct contents, the lookups were 4% of the import's CPU. It is a
// Bloom filter of a fixed size (2 MiB), whatever the tree's size: at a
// million distinct contents, one in about 200 new ones is looked up
// needlessly; a content it has seen is always looked up.
type ImportedBlobs struct {
	bits []uint64
}

// importFilterBits is the filter's size in bits (a power of two).
const importFilterBits = 1 << 24

// NewImportedBlobs returns an empty filter.
func NewImportedBlobs() *ImportedBlobs {
	return &ImportedBlobs{bits: make([]uint64, importFilterBits/64)}
}

// probes are the filter's bit positions for h: three, from the two
// independent hashes a Hash carries (double hashing).
func (f *ImportedBlobs) probes(h Hash) [3]uint64 {
	a, b := h.H1^uint64(h.Size), h.H2|1
	var p [3]uint64
	for i := range p {
		p[i] = (a + uint64(i)*b) & (importFilterBits - 1)
	}
	return p
}

func (f *ImportedBlobs) mayHold(h Hash) bool {
	for _, p := range f.probes(h) {
		if f.bits[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}

func (f *ImportedBlobs) add(h Hash) {
	for _, p := range f.probes(h) {
		f.bits[p/64] |= 1 << (p % 64)
	}
}

// PutImportedBlob is PutBlob for the first import of a store that holds no
// entry, whose contents all go through seen: a content seen has its
// lookup, as in PutBlob; one not seen is written without it. The store
// holds no content but what imports put there, and one put there by an
// import cut short before it recorded any entry is written again, the
// same chunks over the same keys, which a read cannot tell from once.
func (w *Writer) PutImportedBlob(seen *ImportedBlobs, h Hash, chunks [][]byte) error {
	if seen.mayHold(h) {
		return w.PutBlob(h, chunks)
	}
	seen.add(h)
	if err := w.putDeltaRef(h, chunks); err != nil {
		return err
	}
	return w.putChunks(h, chunks)
}
