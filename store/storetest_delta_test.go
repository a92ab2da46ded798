package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"
)

// Conformance cases for blobs stored as deltas against an earlier version.

// confPutVersion stores content as the next version after prev (the zero
// Hash: none), the way capture does, and returns its hash.
func confPutVersion(t testing.TB, s *Store, content []byte, prev Hash) Hash {
	t.Helper()
	h := HashBytes(content)
	var base DeltaBase
	confMustView(t, s, func(r *Reader) (err error) {
		if prev != (Hash{}) {
			base, err = r.DeltaBase(prev)
		}
		return err
	})
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, EncodeBlobAgainst(content, base)) })
	return h
}

// confChunk0 is the stored first chunk of a blob, or nil.
func confChunk0(t testing.TB, s *Store, h Hash) []byte {
	t.Helper()
	var v []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(blobKey(h, 0))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// confDepth is how many deltas away from a whole blob h is stored.
func confDepth(t testing.TB, s *Store, h Hash) int {
	t.Helper()
	v := confChunk0(t, s, h)
	if len(v) > deltaHeaderLen && v[0] == codecDelta {
		return int(v[25])
	}
	return 0
}

// confSourceText is a source-like file of n lines.
func confSourceText(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "func f%d(x int) int { return x*%d + %d } // %x\n", i, rng.IntN(1000), rng.IntN(1000), rng.Uint32())
	}
	return b.Bytes()
}

// confBlobDeltaRoundTrip: every kind of edit reads back exactly, small
// edits are stored as small deltas, and the rest whole.
func confBlobDeltaRoundTrip(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(11, 12))
	v0 := confSourceText(rng, 300)
	mid := len(v0) / 2
	big := bytes.Repeat(v0, ChunkSize/len(v0)+1)
	steps := []struct {
		name  string
		data  []byte
		delta bool // stored as a delta against the step before
	}{
		{"first version", v0, false},
		{"appended line", append(bytes.Clone(v0), "// appended\n"...), true},
		{"line changed in the middle", slicesJoin(v0[:mid], []byte("// changed\n"), v0[mid+20:]), true},
		{"head and tail cut", v0[100 : len(v0)-100], true},
		{"unrelated content", confRandBytes(rng, 20000), false},
		{"tiny", []byte("x\n"), false},
		{"empty", []byte{}, false},
		{"v0 again", v0, false}, // dedup: already stored whole
		{"over one chunk", big, false},
		{"back under one chunk", big[:ChunkSize-10], false}, // base too large
	}
	var prev Hash
	hashes := make([]Hash, len(steps))
	for i, st := range steps {
		hashes[i] = confPutVersion(t, s, st.data, prev)
		if got := confDepth(t, s, hashes[i]) > 0; got != st.delta {
			t.Errorf("%s: stored as a delta = %v, want %v", st.name, got, st.delta)
		}
		if st.delta {
			plain := EncodeBlob(st.data)[0]
			if n := len(confChunk0(t, s, hashes[i])); 2*n >= len(plain) {
				t.Errorf("%s: delta of %d bytes, plain encoding %d", st.name, n, len(plain))
			}
		}
		prev = hashes[i]
	}
	check := func(when string) {
		for i, st := range steps {
			if got := confReadBlob(t, s, hashes[i]); !bytes.Equal(got, st.data) {
				t.Errorf("%s, %s: read back %d bytes that differ from the %d stored", when, st.name, len(got), len(st.data))
			}
		}
	}
	check("after storing")
	s = confReopen(t, s)
	check("after reopen")
	confMustView(t, s, func(r *Reader) error {
		for _, h := range []Hash{HashBytes([]byte("never stored")), hashes[len(hashes)-2], {Size: -1}} {
			base, err := r.DeltaBase(h)
			if err != nil || base.content != nil {
				t.Errorf("DeltaBase(%v) = %d bytes, %v; want no base (missing, over one chunk or corrupt)", h, len(base.content), err)
			}
		}
		return nil
	})
}

func slicesJoin(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// confBlobDeltaChainCap: a file edited again and again is stored as a chain
// of deltas up to maxDeltaDepth; the version after a full chain is a delta
// against the chain's root (depth 1 again), as long as that delta is small;
// once the file has drifted from the root, it is stored whole and starts a
// new chain. Every version reads back.
func confBlobDeltaChainCap(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(13, 14))
	content := confSourceText(rng, 200)
	var (
		prev     Hash
		versions [][]byte
		hashes   []Hash
	)
	put := func(i, want int) {
		t.Helper()
		prev = confPutVersion(t, s, content, prev)
		versions, hashes = append(versions, content), append(hashes, prev)
		if got := confDepth(t, s, prev); got != want {
			t.Fatalf("version %d stored at depth %d, want %d", i, got, want)
		}
	}
	for i := range 3*maxDeltaDepth + 3 {
		content = append(bytes.Clone(content), fmt.Sprintf("// edit %d\n", i)...)
		want := i
		if i > maxDeltaDepth {
			want = (i-1)%maxDeltaDepth + 1
		}
		put(i, want)
	}
	// Rewritten past the chain's end and most of the way: a delta against
	// the root would not be small, so the next full chain ends in a whole blob.
	for i := confDepth(t, s, prev); i < maxDeltaDepth; i++ {
		content = append(bytes.Clone(content), fmt.Sprintf("// more %d\n", i)...)
		put(len(hashes), i+1)
	}
	content = append(confSourceText(rng, 150), content[len(content)/4:]...)
	put(len(hashes), 0)
	for i, h := range hashes {
		if got := confReadBlob(t, s, h); !bytes.Equal(got, versions[i]) {
			t.Fatalf("version %d reads back wrong", i)
		}
	}
}

// confBlobDeltaSweep: SweepBlobs keeps every base a kept blob's chain
// needs, and frees a chain (blobs and index keys) once nothing needs it.
func confBlobDeltaSweep(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(15, 16))
	content := confSourceText(rng, 200)
	var chain []Hash
	var prev Hash
	for i := range 4 {
		content = append(bytes.Clone(content), fmt.Sprintf("// edit %d\n", i)...)
		prev = confPutVersion(t, s, content, prev)
		chain = append(chain, prev)
	}
	if confDepth(t, s, chain[3]) != 3 {
		t.Fatalf("the last version is at depth %d, want 3", confDepth(t, s, chain[3]))
	}
	sweep := func() int {
		var n int
		confMustWrite(t, s, func(w *Writer) (err error) {
			n, err = w.SweepBlobs()
			return err
		})
		return n
	}
	// Only the chain's third link is referred to: it and its bases stay.
	confMustWrite(t, s, func(w *Writer) error {
		st := confFileState("", false)
		st.Hash = chain[2]
		_, err := w.Record(Change{Path: "f", Kind: Added, State: st}, Fingerprint{})
		return err
	})
	if n := sweep(); n != 1 {
		t.Fatalf("first sweep deleted %d blobs, want 1 (the unreferenced last link)", n)
	}
	for i, h := range chain[:3] {
		if got := confReadBlob(t, s, h); got == nil && h.Size > 0 {
			t.Fatalf("link %d unreadable after the sweep", i)
		}
	}
	if n := confCountKeys(t, s, []byte{prefixDeltaRef}); n != 0 {
		t.Fatalf("%d delta index keys, want none (a delta's chunk names its base)", n)
	}
	// Nothing refers to the chain any more.
	confMustWrite(t, s, func(w *Writer) error {
		if _, err := w.Record(Change{Path: "f", Kind: Deleted}, Fingerprint{}); err != nil {
			return err
		}
		_, _, err := w.CompactHistory(w.Head())
		return err
	})
	if n := sweep(); n != 3 {
		t.Fatalf("second sweep deleted %d blobs, want 3", n)
	}
	if n := confCountKeys(t, s, []byte{prefixBlob}) + confCountKeys(t, s, []byte{prefixDeltaRef}); n != 0 {
		t.Fatalf("%d blob and index keys left, want none", n)
	}
}

// confBlobDeltaSweepIndexed: deltas as stores wrote them before their
// chunks were marked (no user-meta byte, an index key 'd' blob base
// each) keep their bases through a sweep, and lose their index keys
// with them once nothing needs the chain.
func confBlobDeltaSweepIndexed(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(25, 26))
	content := confSourceText(rng, 200)
	var chain []Hash
	var prev Hash
	for i := range 3 {
		content = append(bytes.Clone(content), fmt.Sprintf("// edit %d\n", i)...)
		prev = confPutVersion(t, s, content, prev)
		chain = append(chain, prev)
	}
	// Rewrite the two deltas the old way.
	for i := 1; i < 3; i++ {
		v := confChunk0(t, s, chain[i])
		confMustWrite(t, s, func(w *Writer) error {
			if err := w.set(blobKey(chain[i], 0), v); err != nil {
				return err
			}
			return w.set(deltaRefKey(chain[i], chain[i-1]), nil)
		})
	}
	confMustWrite(t, s, func(w *Writer) error {
		st := confFileState("", false)
		st.Hash = chain[2]
		_, err := w.Record(Change{Path: "f", Kind: Added, State: st}, Fingerprint{})
		return err
	})
	sweep := func() int {
		var n int
		confMustWrite(t, s, func(w *Writer) (err error) {
			n, err = w.SweepBlobs()
			return err
		})
		return n
	}
	if n := sweep(); n != 0 {
		t.Fatalf("a sweep deleted %d blobs of a chain still needed, want none", n)
	}
	if got := confReadBlob(t, s, chain[2]); !bytes.Equal(got, content) {
		t.Fatal("the chain's last link reads back wrong after the sweep")
	}
	confMustWrite(t, s, func(w *Writer) error {
		if _, err := w.Record(Change{Path: "f", Kind: Deleted}, Fingerprint{}); err != nil {
			return err
		}
		_, _, err := w.CompactHistory(w.Head())
		return err
	})
	if n := sweep(); n != 3 {
		t.Fatalf("the last sweep deleted %d blobs, want 3", n)
	}
	if n := confCountKeys(t, s, []byte{prefixBlob}) + confCountKeys(t, s, []byte{prefixDeltaRef}); n != 0 {
		t.Fatalf("%d blob and index keys left, want none", n)
	}
}

// confBlobOldFormat: chunks as stores before deltas wrote them (a codec
// byte, then raw bytes or a zstd frame from any encoder) still read, and
// can serve as a delta's base.
func confBlobOldFormat(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(17, 18))
	text := confSourceText(rng, 100)
	zenc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]struct {
		content []byte
		chunk   []byte
	}{
		"raw":  {[]byte("raw content\n"), append([]byte{0}, "raw content\n"...)},
		"zstd": {text, zenc.EncodeAll(text, []byte{1})},
	}
	for name, o := range old {
		h := HashBytes(o.content)
		confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, [][]byte{o.chunk}) })
		if got := confReadBlob(t, s, h); !bytes.Equal(got, o.content) {
			t.Errorf("%s: old-format blob reads back wrong", name)
		}
	}
	next := append(bytes.Clone(text), "// new\n"...)
	h := confPutVersion(t, s, next, HashBytes(text))
	if confDepth(t, s, h) != 1 {
		t.Errorf("an edit of an old-format blob was not stored as a delta against it")
	}
	if got := confReadBlob(t, s, h); !bytes.Equal(got, next) {
		t.Errorf("a delta against an old-format blob reads back wrong")
	}
}

// confBlobDeltaCorrupt: a delta whose base is gone, a chain that loops and
// a chain that is too deep give errors, never a panic or a hang; PutBlob
// refuses a delta whose base is not stored.
func confBlobDeltaCorrupt(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(19, 20))
	base := confSourceText(rng, 50)
	next := append(bytes.Clone(base), "// more\n"...)
	bh, nh := HashBytes(base), HashBytes(next)
	delta := encodeDeltaChunk(next, DeltaBase{hash: bh, content: base}, len(next))
	if delta == nil {
		t.Fatal("no delta")
	}
	if err := s.Write(func(w *Writer) error { return w.PutBlob(nh, [][]byte{delta}) }); err == nil {
		t.Error("PutBlob stored a delta whose base is not stored")
	}
	// Write around PutBlob's check: the base missing, then a blob that is
	// its own base, then a chain deeper than the cap.
	raw := func(h Hash, v []byte) {
		confMustWrite(t, s, func(w *Writer) error { return w.set(blobKey(h, 0), v) })
	}
	raw(nh, delta)
	selfH := Hash{H1: 1, H2: 2, Size: nh.Size}
	self := bytes.Clone(delta)
	putHash(self[1:], selfH)
	raw(selfH, self)
	deep := make([]Hash, maxDeltaDepth+2)
	for i := range deep {
		deep[i] = Hash{H1: 100 + uint64(i), H2: 3, Size: nh.Size}
	}
	deep[len(deep)-1].Size = bh.Size
	for i := 0; i+1 < len(deep); i++ {
		v := bytes.Clone(delta)
		putHash(v[1:], deep[i+1])
		v[25] = byte(min(len(deep)-1-i, maxDeltaDepth))
		raw(deep[i], v)
	}
	raw(deep[len(deep)-1], EncodeBlob(base)[0])
	for name, h := range map[string]Hash{"missing base": nh, "loop": selfH, "too deep": deep[0]} {
		confNoPanic(t, name, func() {
			err := s.View(func(r *Reader) error {
				_, err := r.Blob(h)
				return err
			})
			if err == nil {
				t.Errorf("%s: Blob succeeded", name)
			}
		})
	}
}
