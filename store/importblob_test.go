package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestImportedBlobsFilter: a content the filter was told of is always
// reported as possibly held (else an import would write it twice), and at
// 200,000 distinct contents few new ones are.
func TestImportedBlobsFilter(t *testing.T) {
	f := NewImportedBlobs()
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200000
	for i := 0; i < n; i++ {
		h := Hash{H1: rng.Uint64(), H2: rng.Uint64(), Size: rng.Int64N(1 << 20)}
		if f.mayHold(h) {
			continue // a false positive: looked up, not lost
		}
		f.add(h)
		if !f.mayHold(h) {
			t.Fatalf("a content added is not held: %v", h)
		}
	}
	hits := 0
	for i := 0; i < n; i++ {
		if f.mayHold(Hash{H1: rng.Uint64(), H2: rng.Uint64(), Size: 7}) {
			hits++
		}
	}
	if hits > n/100 {
		t.Errorf("%d of %d new contents reported as held (want under 1%%)", hits, n)
	}
}

// TestPutImportedBlob: contents written through the filter read back; a
// content written a second time in the same import sets no key (it is
// looked up and found); and one an earlier import cut short stored, met
// by a new filter, is written again and still reads back.
func TestPutImportedBlob(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewPCG(7, 8))
	var contents [][]byte
	for i := 0; i < 50; i++ {
		contents = append(contents, []byte(fmt.Sprintf("file %d %x\n", i, rng.Uint64())))
	}
	contents = append(contents, bytes.Repeat([]byte("big "), ChunkSize/3)) // two chunks
	seen := NewImportedBlobs()
	confMustWrite(t, s, func(w *Writer) error {
		for _, c := range contents {
			if err := w.PutImportedBlob(seen, HashBytes(c), EncodeBlobFast(c)); err != nil {
				return err
			}
		}
		for _, c := range contents {
			before := w.count
			if err := w.PutImportedBlob(seen, HashBytes(c), EncodeBlobFast(c)); err != nil {
				return err
			}
			if w.count != before {
				t.Errorf("the second write of a content set %d keys", w.count-before)
			}
		}
		return nil
	})
	again := NewImportedBlobs() // the next import, after one cut short
	confMustWrite(t, s, func(w *Writer) error {
		return w.PutImportedBlob(again, HashBytes(contents[3]), EncodeBlobFast(contents[3]))
	})
	err := s.View(func(r *Reader) error {
		for i, c := range contents {
			got, err := r.Blob(HashBytes(c))
			if err != nil {
				return fmt.Errorf("content %d: %w", i, err)
			}
			if !bytes.Equal(got, c) {
				t.Errorf("content %d reads back different", i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
