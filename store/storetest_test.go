package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// openTestStore opens a store in a fresh temporary directory and closes it when
// the test ends. A test may close it earlier.
func openTestStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), 5*time.Second)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// RunConformance runs the store's conformance suite against the stores open
// returns: each call must return a new, empty store that is closed when the
// test ends (openTestStore is one such function). Some cases close the store,
// reopen its directory with Open and take it over.
func RunConformance(t *testing.T, open func(t *testing.T) *Store) {
	cases := []struct {
		name string
		fn   func(t *testing.T, open func(t *testing.T) *Store)
	}{
		{"BlobRoundTrip", confBlobRoundTrip},
		{"BlobDedup", confBlobDedup},
		{"BlobsNeverConfused", confBlobsNeverConfused},
		{"BlobDamaged", confBlobDamaged},
		{"BlobCorruptHash", confBlobCorruptHash},
		{"BlobPartialAfterSplit", confBlobPartialAfterSplit},
		{"BlobDeltaRoundTrip", confBlobDeltaRoundTrip},
		{"BlobDeltaChainCap", confBlobDeltaChainCap},
		{"BlobDeltaSweepIndexed", confBlobDeltaSweepIndexed},
		{"BlobDeltaSweep", confBlobDeltaSweep},
		{"BlobOldFormat", confBlobOldFormat},
		{"BlobDeltaCorrupt", confBlobDeltaCorrupt},
		{"JournalOrderAndChanges", confJournal},
		{"StateAtEverySeq", confStateAt},
		{"EntriesPrefix", confEntriesPrefix},
		{"Touch", confTouch},
		{"Checkpoints", confCheckpoints},
		{"Meta", confMeta},
		{"LargeWriteSplits", confLargeWrite},
		{"FailedSplitWriteKeepsPrefix", confFailedSplitWrite},
		{"ReopenPersists", confReopenPersists},
		{"SecondOpenBusy", confBusy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// --- helpers ---

func confMustWrite(t testing.TB, s *Store, fn func(*Writer) error) {
	t.Helper()
	if err := s.Write(fn); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func confMustView(t testing.TB, s *Store, fn func(*Reader) error) {
	t.Helper()
	if err := s.View(fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

func confPutBlob(t testing.TB, s *Store, b []byte) Hash {
	t.Helper()
	h := HashBytes(b)
	confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, EncodeBlob(b)) })
	return h
}

func confReadBlob(t testing.TB, s *Store, h Hash) []byte {
	t.Helper()
	var out []byte
	confMustView(t, s, func(r *Reader) (err error) {
		out, err = r.Blob(h)
		return err
	})
	return out
}

func confRandBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := rng.Uint64()
		for k := range 8 {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// countKeys counts the keys that start with prefix.
func confCountKeys(t testing.TB, s *Store, prefix []byte) int {
	t.Helper()
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		opts.Prefix = prefix
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fileState makes the state of a regular file holding content.
func confFileState(content string, exec bool) State {
	mode := fs.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	return State{Kind: File, Mode: mode, Hash: HashBytes([]byte(content)), Stored: true,
		Mtime: 1_700_000_000_000_000_000, Ctime: 1_700_000_000_000_000_001, Inode: 42, Recorded: 1_700_000_000_000_000_002}
}

func confReopen(t *testing.T, s *Store) *Store {
	t.Helper()
	dir := s.Dir()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	s2, err := Open(dir, 5*time.Second)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

// noPanic runs fn and turns a panic into a test failure, so that one bad
// decoder does not take the whole suite down.
func confNoPanic(t testing.TB, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	fn()
}

// --- blobs ---

func confBlobRoundTrip(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog\n"), (2*ChunkSize+ChunkSize/2)/44)
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", []byte{}},
		{"one byte", []byte{0}},
		{"small", []byte("hello, world\n")},
		{"small incompressible", confRandBytes(rng, 1000)},
		{"over value threshold", bytes.Repeat([]byte{'x'}, int(ValueThreshold)*3)},
		{"exactly one chunk", confRandBytes(rng, ChunkSize)},
		{"one chunk plus one byte", confRandBytes(rng, ChunkSize+1)},
		{"multi-chunk compressible", text},
		{"multi-chunk incompressible", confRandBytes(rng, 2*ChunkSize+12345)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := HashBytes(c.data)
			hs := NewHasher()
			for rest := c.data; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(100000))
				hs.Write(rest[:n])
				rest = rest[n:]
			}
			if got := hs.Sum(); got != h {
				t.Fatalf("streamed hash %v, HashBytes %v", got, h)
			}
			if h.Size != int64(len(c.data)) {
				t.Fatalf("hash size %d, want %d", h.Size, len(c.data))
			}
			chunks := EncodeBlob(c.data)
			if want := max(1, (len(c.data)+ChunkSize-1)/ChunkSize); len(chunks) != want {
				t.Fatalf("%d chunks, want %d", len(chunks), want)
			}
			confMustView(t, s, func(r *Reader) error {
				if ok, err := r.HasBlob(h); err != nil || ok {
					t.Fatalf("HasBlob before put = %v, %v", ok, err)
				}
				if _, err := r.Blob(h); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Blob before put: %v, want ErrNotFound", err)
				}
				return nil
			})
			confMustWrite(t, s, func(w *Writer) error { return w.PutBlob(h, chunks) })
			confMustView(t, s, func(r *Reader) error {
				if ok, err := r.HasBlob(h); err != nil || !ok {
					t.Fatalf("HasBlob after put = %v, %v", ok, err)
				}
				return nil
			})
			if got := confReadBlob(t, s, h); !bytes.Equal(got, c.data) {
				t.Fatalf("blob read back differs: %d bytes, want %d", len(got), len(c.data))
			}
		})
	}
	// Everything is still there, each intact, after the others were added.
	s = confReopen(t, s)
	for _, c := range cases {
		if got := confReadBlob(t, s, HashBytes(c.data)); !bytes.Equal(got, c.data) {
			t.Errorf("%s: differs after reopen", c.name)
		}
	}
}

func confBlobDedup(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(3, 4))
	data := confRandBytes(rng, ChunkSize+ChunkSize/2) // two chunks, incompressible
	h := confPutBlob(t, s, data)
	if n := confCountKeys(t, s, []byte{prefixBlob}); n != 2 {
		t.Fatalf("%d blob keys after one put, want 2", n)
	}
	s = confReopen(t, s)
	before := s.Size()
	for range 5 {
		confPutBlob(t, s, data)
	}
	// Also several times in one transaction.
	confMustWrite(t, s, func(w *Writer) error {
		for range 3 {
			if err := w.PutBlob(h, EncodeBlob(data)); err != nil {
				return err
			}
		}
		return nil
	})
	if n := confCountKeys(t, s, []byte{prefixBlob}); n != 2 {
		t.Fatalf("%d blob keys after storing the same content again, want 2", n)
	}
	s = confReopen(t, s)
	if grew := s.Size() - before; grew > int64(len(data))/2 {
		t.Errorf("storing the same %d bytes 8 more times grew the store by %d bytes", len(data), grew)
	}
	if got := confReadBlob(t, s, h); !bytes.Equal(got, data) {
		t.Fatal("blob differs after dedup")
	}
}

func confBlobsNeverConfused(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	// Different contents hash differently, including permutations and
	// contents that differ only in length.
	seen := map[Hash]string{}
	for _, c := range []string{"", "a", "b", "ab", "ba", "a\x00", "\x00a", "aa", "aaa"} {
		h := HashBytes([]byte(c))
		if prev, ok := seen[h]; ok {
			t.Fatalf("%q and %q hash the same", prev, c)
		}
		seen[h] = c
	}
	// A 64-bit collision (same H1) or a 128-bit one with a different size
	// must still keep both contents apart: forge the hashes.
	a, b, c := []byte("content A"), []byte("content B"), []byte("content C, longer")
	ha := HashBytes(a)
	hb := Hash{H1: ha.H1, H2: ha.H2 ^ 1, Size: ha.Size}
	hc := Hash{H1: ha.H1, H2: ha.H2, Size: int64(len(c))}
	confMustWrite(t, s, func(w *Writer) error {
		if err := w.PutBlob(ha, EncodeBlob(a)); err != nil {
			return err
		}
		if err := w.PutBlob(hb, EncodeBlob(b)); err != nil {
			return err
		}
		return w.PutBlob(hc, EncodeBlob(c))
	})
	// Each is stored under its own key (assemble reads the bytes without
	// the hash check); reading a forged one is an error, never another's
	// content.
	for _, x := range []struct {
		h    Hash
		want []byte
	}{{ha, a}, {hb, b}, {hc, c}} {
		confMustView(t, s, func(r *Reader) error {
			got, _, err := r.assemble(x.h)
			if err != nil || !bytes.Equal(got, x.want) {
				t.Errorf("blob %v holds %q, %v; want %q", x.h, got, err, x.want)
			}
			return nil
		})
	}
	if got := confReadBlob(t, s, ha); !bytes.Equal(got, a) {
		t.Errorf("blob %v = %q, want %q", ha, got, a)
	}
	for _, h := range []Hash{hb, hc} {
		err := s.View(func(r *Reader) error {
			_, err := r.Blob(h)
			return err
		})
		if !errors.Is(err, errDamaged) {
			t.Errorf("Blob(%v) of a forged hash: %v, want errDamaged", h, err)
		}
	}
}

// confBlobDamaged: a content whose stored bytes changed (a raw chunk, which
// no codec checksum covers) is an error when read, not a wrong content.
func confBlobDamaged(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(7, 8))
	data := confRandBytes(rng, 1000) // incompressible: stored raw
	h := HashBytes(data)
	chunks := EncodeBlob(data)
	if chunks[0][0] != codecRaw {
		t.Fatalf("codec %d, want raw", chunks[0][0])
	}
	damaged := bytes.Clone(chunks[0])
	damaged[len(damaged)/2] ^= 1
	confMustWrite(t, s, func(w *Writer) error { return w.set(blobKey(h, 0), damaged) })
	err := s.View(func(r *Reader) error {
		_, err := r.Blob(h)
		return err
	})
	if !errors.Is(err, errDamaged) {
		t.Fatalf("Blob of a damaged content: %v, want errDamaged", err)
	}
}

// testBlobCorruptHash: a hash read from a corrupt record must give an
// error, not a panic.
func confBlobCorruptHash(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	for _, h := range []Hash{{H1: 1, H2: 2, Size: -1}, {H1: 1, H2: 2, Size: -1 << 40}} {
		confNoPanic(t, fmt.Sprintf("Blob(%v)", h), func() {
			err := s.View(func(r *Reader) error {
				_, err := r.Blob(h)
				return err
			})
			if err == nil {
				t.Errorf("Blob(%v) succeeded", h)
			}
		})
	}
}

// testBlobPartialAfterSplit: a Write that splits between two chunks of one
// blob and then fails must not leave a blob that HasBlob reports as stored
// but that cannot be read (every later PutBlob of that content would be
// skipped, and the content could never be restored).
func confBlobPartialAfterSplit(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(5, 6))
	data := confRandBytes(rng, ChunkSize+100) // two chunks
	h := HashBytes(data)
	chunks := EncodeBlob(data)
	errStop := errors.New("stop")
	err := s.Write(func(w *Writer) error {
		// Fill the transaction up to its record limit, so that the second
		// chunk does not fit and the first one is committed on its own.
		w.count = 20000
		if err := w.PutBlob(h, chunks); err != nil {
			return err
		}
		return errStop // e.g. the capture's context was cancelled
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("write: %v", err)
	}
	var has bool
	var rerr error
	confMustView(t, s, func(r *Reader) (err error) {
		has, err = r.HasBlob(h)
		if err != nil {
			return err
		}
		_, rerr = r.Blob(h)
		return nil
	})
	if has && rerr != nil {
		t.Errorf("after a failed split write HasBlob = true but Blob fails: %v", rerr)
	}
	// Storing the content again must make it readable in any case.
	confPutBlob(t, s, data)
	var got []byte
	confMustView(t, s, func(r *Reader) (err error) {
		got, err = r.Blob(h)
		return err
	})
	if !bytes.Equal(got, data) {
		t.Errorf("after storing the content again it still cannot be read back")
	}
}

// --- journal ---

type confRecorded struct {
	c  Change
	fp Fingerprint
}

var confTestAttrs = []Attr{{}, {Session: "s1", Run: "r1"}, {Session: "s1", Run: "r1", Call: "c1"}, {Restore: true}}

// randomChanges records n random changes over paths and returns them (with
// their seqs and stored states) in order.
func confRandomChanges(t testing.TB, s *Store, rng *rand.Rand, paths []string, n int) []confRecorded {
	t.Helper()
	var out []confRecorded
	live := map[string]bool{}
	confMustWrite(t, s, func(w *Writer) error {
		for i := range n {
			p := paths[rng.IntN(len(paths))]
			c := Change{Path: p, Attr: confTestAttrs[rng.IntN(len(confTestAttrs))], Time: int64(1000 + i)}
			switch {
			case live[p] && rng.IntN(3) == 0:
				c.Kind = Deleted
				live[p] = false
			case live[p]:
				c.Kind = Modified
				c.State = confFileState(fmt.Sprint(p, i), rng.IntN(2) == 0)
			default:
				c.Kind = Added
				c.State = confFileState(fmt.Sprint(p, i), false)
				if rng.IntN(4) == 0 {
					c.State.Kind = Symlink
					c.State.Mode = 0o777
				}
				live[p] = true
			}
			fp := Fingerprint{Sum: rng.Uint64(), Count: int64(i)}
			seq, err := w.Record(c, fp)
			if err != nil {
				return err
			}
			c.Seq = seq
			if c.State.Exists() {
				c.State.Seq = seq
			}
			if w.Head() != seq || w.Fingerprint() != fp {
				t.Errorf("writer head/fingerprint %d/%v after Record, want %d/%v", w.Head(), w.Fingerprint(), seq, fp)
			}
			out = append(out, confRecorded{c, fp})
		}
		return nil
	})
	return out
}

func confJournal(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	if s.Head() != 0 || s.Fingerprint() != (Fingerprint{}) {
		t.Fatalf("new store: head %d fingerprint %v", s.Head(), s.Fingerprint())
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var all []confRecorded
	// Several writes, so that seqs continue across transactions.
	for range 4 {
		all = append(all, confRandomChanges(t, s, rng, []string{"a", "a/b", "ab", "dir/file with space", "ü/ñ"}, 15)...)
	}
	for i, r := range all {
		if r.c.Seq != uint64(i+1) {
			t.Fatalf("change %d got seq %d", i, r.c.Seq)
		}
	}
	head := uint64(len(all))
	if s.Head() != head || s.Fingerprint() != all[len(all)-1].fp {
		t.Fatalf("store head %d fp %v, want %d %v", s.Head(), s.Fingerprint(), head, all[len(all)-1].fp)
	}
	confMustView(t, s, func(r *Reader) error {
		for from := uint64(0); from <= head+1; from++ {
			for to := uint64(0); to <= head+1; to++ {
				var got []Change
				if err := r.Changes(from, to, func(c Change) error { got = append(got, c); return nil }); err != nil {
					return err
				}
				var want []Change
				for _, x := range all {
					if x.c.Seq > from && x.c.Seq <= to {
						want = append(want, x.c)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Changes(%d, %d):\n got %+v\nwant %+v", from, to, got, want)
				}
			}
		}
		got := 0
		if err := r.Changes(0, ^uint64(0), func(Change) error { got++; return nil }); err != nil || got != len(all) {
			t.Errorf("Changes(0, max) = %d changes, %v; want %d", got, err, len(all))
		}
		// An error from fn stops the walk and is returned.
		errStop := errors.New("stop")
		n := 0
		err := r.Changes(0, head, func(Change) error {
			n++
			if n == 3 {
				return errStop
			}
			return nil
		})
		if !errors.Is(err, errStop) || n != 3 {
			t.Errorf("Changes with a failing fn: %v after %d calls", err, n)
		}
		return nil
	})
}

func confStateAt(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(9, 10))
	// Paths that are prefixes of one another, and of their index keys.
	paths := []string{"a", "a/b", "a/b/c", "ab", "a0", "a.b", "b", "a/", "a\x01"}
	all := confRandomChanges(t, s, rng, paths[:len(paths)-2], 120)
	all = append(all, confRandomChanges(t, s, rng, paths, 80)...)
	head := s.Head()
	probe := append(slices.Clone(paths), "", "a/b/c/d", "c", "a/bb")
	confMustView(t, s, func(r *Reader) error {
		for seq := uint64(0); seq <= head+2; seq++ {
			for _, p := range probe {
				want := State{}
				for _, x := range all {
					if x.c.Seq <= seq && x.c.Path == p {
						want = x.c.State
					}
				}
				got, err := r.StateAt(p, seq)
				if err != nil {
					return err
				}
				if got != want {
					t.Fatalf("StateAt(%q, %d) = %+v, want %+v", p, seq, got, want)
				}
			}
		}
		for _, p := range probe {
			got, err := r.StateAt(p, ^uint64(0))
			if err != nil {
				return err
			}
			want, _, err := r.Entry(p)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("StateAt(%q, max) = %+v, Entry = %+v", p, got, want)
			}
		}
		return nil
	})
}

func confEntriesPrefix(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	paths := []string{"a", "a/b", "a/b/c", "a/c", "ab", "a0", "b", "b/a"}
	confMustWrite(t, s, func(w *Writer) error {
		for _, p := range paths {
			if _, err := w.Record(Change{Path: p, Kind: Added, State: confFileState(p, false)}, Fingerprint{}); err != nil {
				return err
			}
		}
		// A deleted path has no entry.
		_, err := w.Record(Change{Path: "a/c", Kind: Deleted}, Fingerprint{})
		return err
	})
	cases := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a", "a/b", "a/b/c", "a0", "ab", "b", "b/a"}},
		{"a", []string{"a", "a/b", "a/b/c", "a0", "ab"}},
		{"a/", []string{"a/b", "a/b/c"}},
		{"a/b/", []string{"a/b/c"}},
		{"a/c", nil},
		{"b/", []string{"b/a"}},
		{"c", nil},
	}
	confMustView(t, s, func(r *Reader) error {
		for _, c := range cases {
			var got []string
			err := r.Entries(c.prefix, func(p string, st State) error {
				if st.Hash != HashBytes([]byte(p)) || st.Seq == 0 {
					t.Errorf("entry %q has state %+v", p, st)
				}
				got = append(got, p)
				return nil
			})
			if err != nil {
				return err
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("Entries(%q) = %q, want %q", c.prefix, got, c.want)
			}
		}
		if _, ok, err := r.Entry("a/c"); ok || err != nil {
			t.Errorf("deleted path has an entry (%v, %v)", ok, err)
		}
		return nil
	})
}

func confTouch(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	st := confFileState("x", false)
	confMustWrite(t, s, func(w *Writer) error {
		_, err := w.Record(Change{Path: "f", Kind: Added, State: st}, Fingerprint{Sum: 1, Count: 1})
		return err
	})
	st.Seq = 1
	touched := st
	touched.Mtime, touched.Inode, touched.Recorded = 5, 6, 7
	confMustWrite(t, s, func(w *Writer) error { return w.Touch("f", touched) })
	if s.Head() != 1 || s.Fingerprint() != (Fingerprint{Sum: 1, Count: 1}) {
		t.Fatalf("Touch moved head/fingerprint: %d %v", s.Head(), s.Fingerprint())
	}
	confMustView(t, s, func(r *Reader) error {
		e, ok, err := r.Entry("f")
		if err != nil || !ok || e != touched {
			t.Errorf("entry after Touch = %+v %v %v, want %+v", e, ok, err, touched)
		}
		at, err := r.StateAt("f", 1)
		if err != nil || at != st {
			t.Errorf("StateAt after Touch = %+v %v, want %+v", at, err, st)
		}
		return nil
	})
}

// --- checkpoints ---

func confCheckpoints(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	confMustView(t, s, func(r *Reader) error {
		if _, err := r.CheckpointBefore(100); !errors.Is(err, ErrNotFound) {
			t.Errorf("CheckpointBefore in an empty store: %v", err)
		}
		if _, err := r.Checkpoint("nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Checkpoint(unknown): %v", err)
		}
		return nil
	})
	seqs := []uint64{0, 3, 3, 5, 10, 10, 10, 11}
	created := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	var cps []Checkpoint
	for i, seq := range seqs {
		cp := Checkpoint{ID: fmt.Sprintf("ck%d", i), Seq: seq, Reason: "manual", CreatedAt: created.Add(time.Duration(i) * time.Second),
			Session: "s", Run: "r", Call: "c", Message: "m", Fingerprint: uint64(i) * 7, Files: int64(i)}
		confMustWrite(t, s, func(w *Writer) error {
			ord, err := w.NextOrd()
			if err != nil {
				return err
			}
			if ord != uint64(i+1) {
				t.Errorf("NextOrd = %d, want %d", ord, i+1)
			}
			return w.PutCheckpoint(&cp)
		})
		if cp.Ord != uint64(i+1) {
			t.Errorf("checkpoint %d got ord %d", i, cp.Ord)
		}
		cps = append(cps, cp)
	}
	// Newest first: by seq, then by creation order.
	want := slices.Clone(cps)
	sort.Slice(want, func(i, j int) bool {
		if want[i].Seq != want[j].Seq {
			return want[i].Seq > want[j].Seq
		}
		return want[i].Ord > want[j].Ord
	})
	check := func(s *Store) {
		t.Helper()
		confMustView(t, s, func(r *Reader) error {
			var got []Checkpoint
			if err := r.Checkpoints(func(cp Checkpoint) (bool, error) { got = append(got, cp); return true, nil }); err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Checkpoints:\n got %+v\nwant %+v", got, want)
			}
			n := 0
			r.Checkpoints(func(Checkpoint) (bool, error) { n++; return n < 3, nil })
			if n != 3 {
				t.Errorf("Checkpoints did not stop when fn returned false: %d calls", n)
			}
			for _, cp := range cps {
				got, err := r.Checkpoint(cp.ID)
				if err != nil || !reflect.DeepEqual(got, cp) {
					t.Errorf("Checkpoint(%s) = %+v, %v; want %+v", cp.ID, got, err, cp)
				}
			}
			for seq := uint64(0); seq <= 13; seq++ {
				got, err := r.CheckpointBefore(seq)
				var exp *Checkpoint
				for i := range want {
					if want[i].Seq < seq {
						exp = &want[i]
						break
					}
				}
				switch {
				case exp == nil && !errors.Is(err, ErrNotFound):
					t.Errorf("CheckpointBefore(%d) = %+v, %v; want ErrNotFound", seq, got, err)
				case exp != nil && (err != nil || got.ID != exp.ID):
					t.Errorf("CheckpointBefore(%d) = %s, %v; want %s", seq, got.ID, err, exp.ID)
				}
			}
			return nil
		})
	}
	check(s)
	check(confReopen(t, s))
}

// --- meta records ---

func confMeta(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	at := time.Date(2025, 6, 7, 8, 9, 10, 11, time.UTC)
	confMustView(t, s, func(r *Reader) error {
		if _, err := r.Workspace(); !errors.Is(err, ErrNotFound) {
			t.Errorf("Workspace before put: %v", err)
		}
		if a, err := r.Active(); err != nil || len(a.Runs) != 0 {
			t.Errorf("Active before put: %+v %v", a, err)
		}
		if _, err := r.Intent(); !errors.Is(err, ErrNotFound) {
			t.Errorf("Intent before put: %v", err)
		}
		if _, err := r.LastRestore(); !errors.Is(err, ErrNotFound) {
			t.Errorf("LastRestore before put: %v", err)
		}
		if _, err := r.Run("s", "r"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Run before put: %v", err)
		}
		if _, err := r.LastRun(); !errors.Is(err, ErrNotFound) {
			t.Errorf("LastRun before put: %v", err)
		}
		if _, err := r.ToolWindow("s", "r", "c"); !errors.Is(err, ErrNotFound) {
			t.Errorf("ToolWindow before put: %v", err)
		}
		return nil
	})
	ws := WorkspaceState{WorkspaceKey: "k", Root: "/w", CurrentCheckpointID: "ck1", UpdatedAt: at}
	active := Active{Runs: []ActiveRun{{Session: "s", Run: "r1", Calls: []string{"c1", "c2"}}, {Session: "s", Run: "r2"}}}
	intent := Intent{TargetID: "ck1", GuardID: "ck2", PrevID: "ck0", CreatedAt: at,
		Actions: []IntentAction{{Path: "a", State: confFileState("a", true)}, {Path: "b/c"}}}
	last := LastRestore{TargetID: "ck1", GuardID: "ck2", PrevID: "ck0", Paths: []string{"a"}, At: at}
	runs := []Run{
		{Session: "s", Run: "r1", BaselineID: "ck1", StartedAt: at, UpdatedAt: at, StartSeq: 3},
		{Session: "s", Run: "r2", BaselineID: "ck2", Drifted: true, Drift: []string{"x"}, EndID: "ck3", StartedAt: at.Add(time.Hour),
			EndedAt: at.Add(2 * time.Hour), UpdatedAt: at, StartSeq: 4, EndSeq: 9},
		{Session: "t", Run: "r0", BaselineID: "ck0", StartedAt: at.Add(-time.Hour), UpdatedAt: at},
	}
	tools := []ToolWindow{
		{Session: "s", Run: "r1", Call: "c1", Command: "sed -i", CheckpointID: "ck5", StartSeq: 5, StartedAt: at},
		{Session: "s", Run: "r1", Call: "c2", CheckpointID: "ck6", StartSeq: 6, EndSeq: 8, StartedAt: at, EndedAt: at.Add(time.Second)},
	}
	confMustWrite(t, s, func(w *Writer) error {
		for _, err := range []error{w.PutWorkspace(ws), w.PutActive(active), w.PutIntent(intent), w.PutLastRestore(last)} {
			if err != nil {
				return err
			}
		}
		for _, r := range runs {
			if err := w.PutRun(r); err != nil {
				return err
			}
		}
		for _, tw := range tools {
			if err := w.PutToolWindow(tw); err != nil {
				return err
			}
		}
		return nil
	})
	check := func(s *Store, wantIntent bool) {
		t.Helper()
		confMustView(t, s, func(r *Reader) error {
			if got, err := r.Workspace(); err != nil || !reflect.DeepEqual(got, ws) {
				t.Errorf("Workspace = %+v, %v", got, err)
			}
			if got, err := r.Active(); err != nil || !reflect.DeepEqual(got, active) {
				t.Errorf("Active = %+v, %v", got, err)
			}
			got, err := r.Intent()
			switch {
			case wantIntent && (err != nil || !reflect.DeepEqual(got, intent)):
				t.Errorf("Intent = %+v, %v", got, err)
			case !wantIntent && !errors.Is(err, ErrNotFound):
				t.Errorf("Intent after delete = %+v, %v", got, err)
			}
			if got, err := r.LastRestore(); err != nil || !reflect.DeepEqual(got, last) {
				t.Errorf("LastRestore = %+v, %v", got, err)
			}
			for _, want := range runs {
				if got, err := r.Run(want.Session, want.Run); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("Run(%s, %s) = %+v, %v", want.Session, want.Run, got, err)
				}
			}
			if got, err := r.LastRun(); err != nil || !reflect.DeepEqual(got, runs[1]) {
				t.Errorf("LastRun = %+v, %v; want r2", got, err)
			}
			for _, want := range tools {
				if got, err := r.ToolWindow(want.Session, want.Run, want.Call); err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("ToolWindow(%s) = %+v, %v", want.Call, got, err)
				}
			}
			if _, err := r.ToolWindow("s", "r1", "c3"); !errors.Is(err, ErrNotFound) {
				t.Errorf("unknown ToolWindow: %v", err)
			}
			return nil
		})
	}
	check(s, true)
	confMustWrite(t, s, func(w *Writer) error { return w.DeleteIntent() })
	check(s, false)
	check(confReopen(t, s), false)
}

// --- large and failed writes ---

func confLargeWrite(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	const n = 50000
	confMustWrite(t, s, func(w *Writer) error {
		for i := range n {
			p := fmt.Sprintf("dir%03d/sub/file-%06d.go", i%500, i)
			kind := Added
			st := confFileState(p, i%7 == 0)
			if i%10 == 9 {
				kind, st = Deleted, State{}
			}
			if _, err := w.Record(Change{Path: p, Kind: kind, State: st, Time: int64(i)}, Fingerprint{Sum: uint64(i) * 31, Count: int64(i)}); err != nil {
				return fmt.Errorf("record %d: %w", i, err)
			}
			if i%1000 == 0 {
				if err := w.Touch(p, st); err != nil {
					return err
				}
			}
		}
		return nil
	})
	wantFP := Fingerprint{Sum: (n - 1) * 31, Count: n - 1}
	check := func(s *Store) {
		t.Helper()
		if s.Head() != n || s.Fingerprint() != wantFP {
			t.Fatalf("head %d fp %v, want %d %v", s.Head(), s.Fingerprint(), n, wantFP)
		}
		if got := confCountKeys(t, s, []byte{prefixJournal}); got != n {
			t.Errorf("%d journal keys, want %d", got, n)
		}
		if got := confCountKeys(t, s, []byte{prefixPath}); got != n {
			t.Errorf("%d path index keys, want %d", got, n)
		}
		if got := confCountKeys(t, s, []byte{prefixEntry}); got != n-n/10 {
			t.Errorf("%d entries, want %d", got, n-n/10)
		}
		confMustView(t, s, func(r *Reader) error {
			prev := uint64(0)
			err := r.Changes(0, n, func(c Change) error {
				if c.Seq != prev+1 {
					t.Fatalf("journal jumps from %d to %d", prev, c.Seq)
				}
				prev = c.Seq
				return nil
			})
			if prev != n {
				t.Errorf("journal ends at %d", prev)
			}
			return err
		})
	}
	check(s)
	check(confReopen(t, s))
}

// testFailedSplitWrite: when a Write that was split fails, what was
// committed is a consistent prefix: the head and fingerprint match the last
// committed record, and the journal goes on from there without a gap.
func confFailedSplitWrite(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	errStop := errors.New("stop")
	var fps []Fingerprint
	err := s.Write(func(w *Writer) error {
		for i := range 60000 {
			fp := Fingerprint{Sum: uint64(i) + 1, Count: int64(i) + 1}
			fps = append(fps, fp)
			if _, err := w.Record(Change{Path: fmt.Sprintf("f%06d", i), Kind: Added, State: confFileState("x", false)}, fp); err != nil {
				return err
			}
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("write: %v", err)
	}
	check := func(s *Store) {
		t.Helper()
		head := s.Head()
		if head == 0 || head >= 60000 {
			t.Fatalf("head %d: the write should have committed a proper prefix", head)
		}
		if s.Fingerprint() != fps[head-1] {
			t.Errorf("fingerprint %v, want %v (the one recorded with seq %d)", s.Fingerprint(), fps[head-1], head)
		}
		if got := confCountKeys(t, s, []byte{prefixJournal}); uint64(got) != head {
			t.Errorf("%d journal keys, head %d", got, head)
		}
		if got := confCountKeys(t, s, []byte{prefixEntry}); uint64(got) != head {
			t.Errorf("%d entries, head %d", got, head)
		}
	}
	check(s)
	s = confReopen(t, s)
	check(s)
	head := s.Head()
	confMustWrite(t, s, func(w *Writer) error {
		seq, err := w.Record(Change{Path: "next", Kind: Added, State: confFileState("y", false)}, Fingerprint{Sum: 9, Count: 9})
		if seq != head+1 {
			t.Errorf("next seq %d, want %d", seq, head+1)
		}
		return err
	})
}

// --- persistence and locking ---

func confReopenPersists(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	rng := rand.New(rand.NewPCG(11, 12))
	all := confRandomChanges(t, s, rng, []string{"a", "b", "c/d"}, 40)
	data := confRandBytes(rng, 100000)
	h := confPutBlob(t, s, data)
	cp := Checkpoint{ID: "ck1", Seq: 20, Reason: "initial", CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	confMustWrite(t, s, func(w *Writer) error { return w.PutCheckpoint(&cp) })
	entries := func(s *Store) map[string]State {
		m := map[string]State{}
		confMustView(t, s, func(r *Reader) error {
			return r.Entries("", func(p string, st State) error { m[p] = st; return nil })
		})
		return m
	}
	wantEntries := entries(s)
	head, fp := s.Head(), s.Fingerprint()
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	s = confReopen(t, s)
	if s.Head() != head || s.Fingerprint() != fp {
		t.Fatalf("after reopen head %d fp %v, want %d %v", s.Head(), s.Fingerprint(), head, fp)
	}
	if got := entries(s); !reflect.DeepEqual(got, wantEntries) {
		t.Errorf("entries after reopen:\n got %+v\nwant %+v", got, wantEntries)
	}
	confMustView(t, s, func(r *Reader) error {
		var got []Change
		r.Changes(0, head, func(c Change) error { got = append(got, c); return nil })
		if len(got) != len(all) {
			t.Fatalf("%d changes after reopen, want %d", len(got), len(all))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], all[i].c) {
				t.Errorf("change %d after reopen = %+v, want %+v", i, got[i], all[i].c)
			}
		}
		if c, err := r.Checkpoint("ck1"); err != nil || c.Seq != 20 || c.Ord != 1 {
			t.Errorf("checkpoint after reopen = %+v, %v", c, err)
		}
		return nil
	})
	if got := confReadBlob(t, s, h); !bytes.Equal(got, data) {
		t.Error("blob differs after reopen")
	}
	// The next record continues the journal.
	confMustWrite(t, s, func(w *Writer) error {
		seq, err := w.Record(Change{Path: "z", Kind: Added, State: confFileState("z", false)}, fp)
		if seq != head+1 {
			t.Errorf("first seq after reopen %d, want %d", seq, head+1)
		}
		return err
	})
}

func confBusy(t *testing.T, open func(t *testing.T) *Store) {
	s := open(t)
	dir := s.Dir()
	const wait = 300 * time.Millisecond
	start := time.Now()
	s2, err := Open(dir, wait)
	if err == nil {
		s2.Close()
		t.Fatal("second Open of a held store succeeded")
	}
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("second Open: %v, want ErrBusy", err)
	}
	if el := time.Since(start); el < wait {
		t.Errorf("second Open gave up after %v, before its %v timeout", el, wait)
	}
	// A waiting Open succeeds once the holder closes.
	var wg sync.WaitGroup
	var s3 *Store
	var err3 error
	wg.Add(1)
	go func() {
		defer wg.Done()
		s3, err3 = Open(dir, 10*time.Second)
	}()
	time.Sleep(150 * time.Millisecond)
	confMustWrite(t, s, func(w *Writer) error {
		_, err := w.Record(Change{Path: "f", Kind: Added, State: confFileState("f", false)}, Fingerprint{Sum: 5, Count: 1})
		return err
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err3 != nil {
		t.Fatalf("waiting Open after the holder closed: %v", err3)
	}
	defer s3.Close()
	if s3.Head() != 1 || s3.Fingerprint() != (Fingerprint{Sum: 5, Count: 1}) {
		t.Errorf("the store the waiter got has head %d fp %v", s3.Head(), s3.Fingerprint())
	}
}
