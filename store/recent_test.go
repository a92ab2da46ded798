package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// recentPut stores content as the next version after prev the way
// capture does (snapshot's encode): the base from DeltaBase, the encoding
// kept with KeepRecent.
func recentPut(t *testing.T, s *Store, content []byte, prev Hash) Hash {
	t.Helper()
	h := HashBytes(content)
	var base DeltaBase
	confMustView(t, s, func(r *Reader) (err error) {
		if prev != (Hash{}) {
			base, err = r.DeltaBase(prev)
		}
		return err
	})
	chunks := EncodeBlobAgainst(content, base)
	s.KeepRecent(h, content, chunks, base)
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, chunks) })
	return h
}

// uncachedBase is DeltaBase read from the store alone.
func uncachedBase(t *testing.T, s *Store, h Hash) DeltaBase {
	t.Helper()
	var b DeltaBase
	err := s.db.View(func(txn *badger.Txn) (err error) {
		b, err = (&Reader{txn: txn}).DeltaBase(h)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameBase(a, b DeltaBase) bool {
	return a.hash == b.hash && a.depth == b.depth && bytes.Equal(a.content, b.content)
}

// TestRecentBasesAreTheStoredOnes: along chains longer than maxDeltaDepth,
// each version's delta base comes from the contents kept, and is the one
// the store's chain gives (content, hash and depth); every version reads
// back.
func TestRecentBasesAreTheStoredOnes(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewPCG(21, 22))
	content := confSourceText(rng, 200)
	var (
		prev     Hash
		versions [][]byte
		hashes   []Hash
	)
	for i := range 3*maxDeltaDepth + 5 {
		content = append(bytes.Clone(content), fmt.Sprintf("// edit %d\n", i)...)
		if prev != (Hash{}) {
			var hit bool
			confMustView(t, s, func(r *Reader) error {
				_, hit = r.recentBase(prev)
				return nil
			})
			if !hit {
				t.Fatalf("version %d: the base is not among the contents kept", i)
			}
			var got DeltaBase
			confMustView(t, s, func(r *Reader) (err error) {
				got, err = r.DeltaBase(prev)
				return err
			})
			if want := uncachedBase(t, s, prev); !sameBase(got, want) {
				t.Fatalf("version %d: kept base %x at depth %d, the store's %x at depth %d",
					i, got.hash.H1, got.depth, want.hash.H1, want.depth)
			}
		}
		prev = recentPut(t, s, content, prev)
		versions, hashes = append(versions, content), append(hashes, prev)
	}
	if d := confDepth(t, s, prev); d == 0 {
		t.Fatalf("the last version is stored whole: no chain was built")
	}
	for i, h := range hashes {
		if got := confReadBlob(t, s, h); !bytes.Equal(got, versions[i]) {
			t.Fatalf("version %d reads back wrong", i)
		}
	}
}

// TestRecentBaseOfARewrittenBlob: a content kept while its blob was a
// delta is not used at that depth once the blob is stored otherwise (a
// rewrite), nor at all once it is gone (a sweep): the next version is
// still readable, and its chain consistent.
func TestRecentBaseOfARewrittenBlob(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewPCG(23, 24))
	v1 := confSourceText(rng, 200)
	v2 := append(bytes.Clone(v1), "// two\n"...)
	v3 := append(bytes.Clone(v2), "// three\n"...)
	h1 := recentPut(t, s, v1, Hash{})
	h2 := recentPut(t, s, v2, h1)
	if d := confDepth(t, s, h2); d != 1 {
		t.Fatalf("v2 at depth %d, want 1", d)
	}
	// v2 rewritten whole, as no capture would: depth 0 now.
	confMustWrite(t, s, func(w *Writer) error {
		if err := w.deleteKey(blobKey(h2, 0)); err != nil {
			return err
		}
		return w.putChunks(h2, EncodeBlob(v2))
	})
	if got, want := func() DeltaBase {
		var b DeltaBase
		confMustView(t, s, func(r *Reader) (err error) { b, err = r.DeltaBase(h2); return err })
		return b
	}(), uncachedBase(t, s, h2); !sameBase(got, want) || got.depth != 0 {
		t.Fatalf("after the rewrite: base at depth %d, the store's at %d, want 0", got.depth, want.depth)
	}
	h3 := recentPut(t, s, v3, h2)
	if d := confDepth(t, s, h3); d != 1 {
		t.Fatalf("v3 at depth %d, want 1 (against v2, whole)", d)
	}
	if got := confReadBlob(t, s, h3); !bytes.Equal(got, v3) {
		t.Fatal("v3 reads back wrong")
	}
	// v3 swept: no base, as from the store.
	confMustWrite(t, s, func(w *Writer) error { return w.deleteKey(blobKey(h3, 0)) })
	confMustView(t, s, func(r *Reader) error {
		b, err := r.DeltaBase(h3)
		if err != nil || b.content != nil {
			t.Fatalf("the base of a swept blob: %d bytes, %v; want none", len(b.content), err)
		}
		return nil
	})
}

// TestRecentContentsBounded: the contents kept stay within recentBytes,
// the newest kept, the oldest forgotten; a content over recentLargest is
// not kept.
func TestRecentContentsBounded(t *testing.T) {
	var c recentContents
	var last Hash
	for i := range 2 * recentBytes / (64 << 10) {
		b := bytes.Repeat([]byte{byte(i)}, 64<<10)
		b[0] = byte(i >> 8)
		last = HashBytes(b)
		c.put(last, b, 0, last)
		if c.bytes > recentBytes {
			t.Fatalf("after %d contents: %d bytes kept, bound %d", i+1, c.bytes, recentBytes)
		}
	}
	if _, ok := c.get(last); !ok {
		t.Fatal("the newest content was forgotten")
	}
	if len(c.byKey) != recentBytes/(64<<10) || c.lru.Len() != len(c.byKey) {
		t.Fatalf("%d contents kept (%d in the list), want %d", len(c.byKey), c.lru.Len(), recentBytes/(64<<10))
	}
	big := make([]byte, recentLargest+1)
	c.put(HashBytes(big), big, 0, HashBytes(big))
	if _, ok := c.get(HashBytes(big)); ok {
		t.Fatal("a content over recentLargest was kept")
	}
}
