package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// fastTestContents: text that S2 shrinks, incompressible bytes (stored
// raw), an empty content, and one of over a chunk (two chunks).
func fastTestContents() [][]byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var text bytes.Buffer
	for i := 0; text.Len() < ChunkSize+ChunkSize/3; i++ {
		fmt.Fprintf(&text, "func f%d(x int) int { return x * %d } // line %d\n", i, rng.IntN(100), i)
	}
	return [][]byte{
		[]byte("package main\n\nfunc main() { println(\"hello, hello, hello, hello\") }\n"),
		confRandBytes(rng, 5000),
		{},
		text.Bytes(),
		text.Bytes()[:70000],
	}
}

// TestFastBlobRoundTrip: contents stored with the first import's codec
// read back as they were, beside contents stored with zstd (the codec of
// every store written before), in the same store, across a reopen.
func TestFastBlobRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	contents := fastTestContents()
	fast := make([]Hash, len(contents))
	confMustWrite(t, s, func(w *Writer) error {
		for i, c := range contents {
			fast[i] = HashBytes(c)
			if err := w.PutBlob(fast[i], EncodeBlobFast(c)); err != nil {
				return err
			}
			// The same content with a byte more, the old way.
			old := append(bytes.Clone(c), 'z')
			if err := w.PutBlob(HashBytes(old), EncodeBlob(old)); err != nil {
				return err
			}
		}
		return nil
	})
	if got := EncodeBlobFast(contents[0])[0][0]; got != codecS2 {
		t.Errorf("a text chunk's codec is %d, want S2 (%d)", got, codecS2)
	}
	if got := EncodeBlobFast(contents[1])[0][0]; got != codecRaw {
		t.Errorf("an incompressible chunk's codec is %d, want raw", got)
	}
	if n := len(EncodeBlobFast(contents[3])); n != 2 {
		t.Errorf("a content of 1.3 chunks encodes to %d chunks, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	assertContents(t, s, contents)
}

func assertContents(t *testing.T, s *Store, contents [][]byte) {
	t.Helper()
	confMustView(t, s, func(r *Reader) error {
		for i, c := range contents {
			for _, want := range [][]byte{c, append(bytes.Clone(c), 'z')} {
				got, err := r.Blob(HashBytes(want))
				if err != nil {
					return fmt.Errorf("content %d (%d bytes): %w", i, len(want), err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("content %d (%d bytes) read back as %d other bytes", i, len(want), len(got))
				}
			}
		}
		return nil
	})
}

// TestDeltaAgainstFastBase: a new version of a file imported with the fast
// codec is stored as a delta against it, and reads back.
func TestDeltaAgainstFastBase(t *testing.T) {
	s := openTestStore(t)
	base := fastTestContents()[4]
	next := append(bytes.Clone(base[:30000]), append([]byte("an edit\n"), base[30000:]...)...)
	bh, nh := HashBytes(base), HashBytes(next)
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(bh, EncodeBlobFast(base)) })
	var db DeltaBase
	confMustView(t, s, func(r *Reader) (err error) { db, err = r.DeltaBase(bh); return err })
	chunks := EncodeBlobAgainst(next, db)
	if chunks[0][0] != codecDelta {
		t.Fatalf("a small edit of a fast-coded content is stored with codec %d, want a delta", chunks[0][0])
	}
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(nh, chunks) })
	confMustView(t, s, func(r *Reader) error {
		got, err := r.Blob(nh)
		if err == nil && !bytes.Equal(got, next) {
			t.Error("the delta read back wrong")
		}
		return err
	})
}

// TestRecompress: Recompress rewrites every fast-coded chunk as zstd
// (smaller), leaves the contents as they were, skips one deleted
// meanwhile, and clears the pending mark; a second run finds nothing.
func TestRecompress(t *testing.T) {
	s := openTestStore(t)
	contents := fastTestContents()
	if err := s.MarkFast(); err != nil {
		t.Fatal(err)
	}
	var fastBytes int64
	confMustWrite(t, s, func(w *Writer) error {
		for _, c := range contents {
			for _, b := range [][]byte{c, append(bytes.Clone(c), 'z')} {
				chunks := EncodeBlobFast(b)
				for _, ch := range chunks {
					if ch[0] == codecS2 {
						fastBytes += int64(len(ch))
					}
				}
				if err := w.PutBlob(HashBytes(b), chunks); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if !s.RecompressPending() {
		t.Fatal("RecompressPending is false after MarkFast")
	}
	defer func(was int) { recompressBatch = was }(recompressBatch)
	recompressBatch = 1 << 20
	pauses := 0
	rs, err := s.Recompress(context.Background(), func() { pauses++ })
	if err != nil {
		t.Fatal(err)
	}
	// The short text, the long text's two chunks and its 70 kB prefix,
	// each with and without its 'z': 8 chunks in S2; the random ones and
	// the empty one (and "z") are raw.
	if rs.Chunks != 8 || rs.Before != fastBytes || rs.After >= rs.Before {
		t.Errorf("Recompress: %+v, want 8 chunks of %d bytes, fewer after", rs, fastBytes)
	}
	if pauses == 0 {
		t.Error("Recompress of over 2 MiB in steps of 1 MiB never paused")
	}
	if s.RecompressPending() {
		t.Error("RecompressPending after a Recompress that finished")
	}
	assertContents(t, s, contents)
	confMustView(t, s, func(r *Reader) error {
		for _, c := range contents {
			v, err := r.txn.Get(blobKey(HashBytes(c), 0))
			if err != nil {
				return err
			}
			if v.UserMeta() == metaFast {
				t.Errorf("a %d-byte content is still marked fast after Recompress", len(c))
			}
		}
		return nil
	})
	rs, err = s.Recompress(context.Background(), nil)
	if err != nil || rs.Chunks != 0 {
		t.Errorf("a second Recompress: %+v, %v; want nothing to do", rs, err)
	}
}

// TestRecompressSkipsDeleted: a chunk deleted between the read and the
// write of a step is not written back.
func TestRecompressSkipsDeleted(t *testing.T) {
	s := openTestStore(t)
	c := fastTestContents()[0]
	h := HashBytes(c)
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, EncodeBlobFast(c)) })
	batch, _, err := s.chunksToRewrite([]byte{prefixBlob}, true)
	if err != nil || len(batch.keys) != 1 {
		t.Fatalf("chunksToRewrite: %d keys, %v", len(batch.keys), err)
	}
	confMustWrite(t, s, func(w *Writer) error { return w.deleteKey(blobKey(h, 0)) })
	var rs RecompressStats
	var d *zdict
	if err := s.rewriteChunks(batch, &d, false, &rs); err != nil {
		t.Fatal(err)
	}
	confMustView(t, s, func(r *Reader) error {
		if ok, _ := r.HasBlob(h); ok || rs.Chunks != 0 {
			t.Errorf("a deleted chunk came back (HasBlob %v, %d rewritten)", ok, rs.Chunks)
		}
		return nil
	})
}

// TestDecodeS2DeclaredSize: a corrupt S2 chunk that declares a huge
// content fails without allocating it.
func TestDecodeS2DeclaredSize(t *testing.T) {
	// An S2 block starts with its decoded length as a uvarint.
	chunk := []byte{codecS2, 0x80, 0x80, 0x80, 0x80, 0x01, 'x'} // 256 MiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeChunk(nil, chunk)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("an S2 chunk that declares 256 MiB and holds 1 byte decoded without error")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > ChunkSize {
		t.Errorf("decoding a corrupt chunk allocated %d MiB", grew>>20)
	}
	for _, b := range fastTestContents() {
		ch := EncodeBlobFast(b)[0]
		ch = ch[:len(ch)/2]
		if _, err := decodeChunk(nil, ch); err == nil && len(b) > 0 && ch[0] == codecS2 {
			t.Errorf("a truncated S2 chunk of a %d-byte content decoded without error", len(b))
		}
	}
}
