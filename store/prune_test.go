package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func pruneOpen(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pruneWrite(t *testing.T, s *Store, fn func(*Writer) error) {
	t.Helper()
	if err := s.Write(fn); err != nil {
		t.Fatal(err)
	}
}

// pruneKeys lists the keys with prefix.
func pruneKeys(t *testing.T, s *Store, prefix []byte) [][]byte {
	t.Helper()
	var out [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix, opts.PrefetchValues = prefix, false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			out = append(out, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pruneRandBytes(rng *rand.ChaCha8, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

func pruneFile(h Hash) State {
	return State{Kind: File, Mode: 0o644, Hash: h, Stored: true}
}

// pruneHistory records a random history of changes to a few paths and
// returns every path it touched.
func pruneHistory(t *testing.T, s *Store, seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	paths := []string{"a", "a/b", "a/b/c", "ab", "b", "c/d", "z"}
	live := map[string]bool{}
	for i := 0; i < n; i++ {
		pruneWrite(t, s, func(w *Writer) error {
			for range 1 + rng.IntN(3) {
				p := paths[rng.IntN(len(paths))]
				c := Change{Path: p, Time: int64(i)}
				switch {
				case live[p] && rng.IntN(3) == 0:
					c.Kind = Deleted
				case live[p]:
					c.Kind, c.State = Modified, pruneFile(HashBytes([]byte{byte(rng.IntN(4))}))
				default:
					c.Kind, c.State = Added, pruneFile(HashBytes([]byte{byte(rng.IntN(4))}))
				}
				live[p] = c.Kind != Deleted
				if _, err := w.Record(c, Fingerprint{}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return paths
}

type pruneView struct {
	states  map[uint64]map[string]State
	changes map[[2]uint64][]Change
}

// pruneLook reads the state of every path at every seq from floor to the
// head, and the changes between every pair of those seqs.
func pruneLook(t *testing.T, s *Store, paths []string, floor uint64) pruneView {
	t.Helper()
	v := pruneView{states: map[uint64]map[string]State{}, changes: map[[2]uint64][]Change{}}
	head := s.Head()
	err := s.View(func(r *Reader) error {
		for seq := floor; seq <= head; seq++ {
			m := map[string]State{}
			for _, p := range paths {
				st, err := r.StateAt(p, seq)
				if err != nil {
					return err
				}
				m[p] = st
			}
			v.states[seq] = m
			for to := seq; to <= head; to++ {
				var cs []Change
				if err := r.Changes(seq, to, func(c Change) error { cs = append(cs, c); return nil }); err != nil {
					return err
				}
				v.changes[[2]uint64{seq, to}] = cs
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPruneCompactHistory(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		s := pruneOpen(t, t.TempDir())
		paths := pruneHistory(t, s, seed, 30)
		head := s.Head()
		floor := head / 2
		before := pruneLook(t, s, paths, floor)

		// What should go: every journal entry up to floor; per path, every
		// index entry at or below floor but the newest, and that one too if
		// it is Absent.
		wantJ, wantP := 0, 0
		for _, k := range pruneKeys(t, s, []byte{prefixJournal}) {
			if binary.BigEndian.Uint64(k[1:]) <= floor {
				wantJ++
			}
		}
		for _, p := range paths {
			n := 0
			for _, k := range pruneKeys(t, s, pathKey(p, 0)[:len(p)+2]) {
				if binary.BigEndian.Uint64(k[len(k)-8:]) <= floor {
					n++
				}
			}
			wantP += n
			if n > 0 && before.states[floor][p].Exists() {
				wantP--
			}
		}

		var j, pn int
		pruneWrite(t, s, func(w *Writer) (err error) {
			j, pn, err = w.CompactHistory(floor)
			return err
		})
		if j != wantJ || pn != wantP {
			t.Fatalf("seed %d: deleted %d journal and %d path entries, want %d and %d", seed, j, pn, wantJ, wantP)
		}
		if after := pruneLook(t, s, paths, floor); !reflect.DeepEqual(before, after) {
			t.Fatalf("seed %d: states or changes at or above floor %d differ after compaction", seed, floor)
		}
		for _, k := range pruneKeys(t, s, []byte{prefixJournal}) {
			if binary.BigEndian.Uint64(k[1:]) <= floor {
				t.Fatalf("seed %d: journal entry %d <= floor %d survived", seed, binary.BigEndian.Uint64(k[1:]), floor)
			}
		}
		// Below the floor the journal reads as empty.
		s.View(func(r *Reader) error {
			return r.Changes(0, floor, func(c Change) error {
				t.Fatalf("seed %d: change %d below the floor", seed, c.Seq)
				return nil
			})
		})
		if s.Head() != head {
			t.Fatalf("head moved from %d to %d", head, s.Head())
		}
		// Compacting again to the same floor deletes nothing.
		pruneWrite(t, s, func(w *Writer) (err error) {
			j, pn, err = w.CompactHistory(floor)
			return err
		})
		if j != 0 || pn != 0 {
			t.Fatalf("second compaction deleted %d journal and %d path entries", j, pn)
		}
	}
}

func TestPruneCompactHistoryManyBatches(t *testing.T) {
	s := pruneOpen(t, t.TempDir())
	// More deletes than one transaction holds.
	const n = 12000
	pruneWrite(t, s, func(w *Writer) error {
		for i := range n {
			if _, err := w.Record(Change{Path: "f", Kind: Modified, State: pruneFile(HashBytes([]byte{byte(i)}))}, Fingerprint{}); err != nil {
				return err
			}
		}
		return nil
	})
	var j, p int
	pruneWrite(t, s, func(w *Writer) (err error) {
		j, p, err = w.CompactHistory(n - 1)
		return err
	})
	if j != n-1 || p != n-2 {
		t.Fatalf("deleted %d journal and %d path entries, want %d and %d", j, p, n-1, n-2)
	}
	if got := len(pruneKeys(t, s, []byte{prefixPath})); got != 2 {
		t.Fatalf("%d path entries left, want 2", got)
	}
}

func TestPruneSweepBlobs(t *testing.T) {
	s := pruneOpen(t, t.TempDir())
	rng := rand.NewChaCha8([32]byte{1})
	data := map[string][]byte{}
	hash := map[string]Hash{}
	for _, name := range []string{"entry", "old", "intent", "orphan", "orphan2", "gone"} {
		data[name] = pruneRandBytes(rng, ChunkSize+100) // two chunks
		hash[name] = HashBytes(data[name])
		pruneWrite(t, s, func(w *Writer) error { return w.PutBlob(hash[name], EncodeBlob(data[name])) })
	}
	pruneWrite(t, s, func(w *Writer) error {
		// "old" is only in the path index (an older version of f); "entry"
		// is f now. "gone" was g's content before g was deleted, and the
		// history that held it is compacted away below.
		if _, err := w.Record(Change{Path: "g", Kind: Added, State: pruneFile(hash["gone"])}, Fingerprint{}); err != nil {
			return err
		}
		if _, err := w.Record(Change{Path: "g", Kind: Deleted}, Fingerprint{}); err != nil {
			return err
		}
		if _, err := w.Record(Change{Path: "f", Kind: Added, State: pruneFile(hash["old"])}, Fingerprint{}); err != nil {
			return err
		}
		if _, err := w.Record(Change{Path: "f", Kind: Modified, State: pruneFile(hash["entry"])}, Fingerprint{}); err != nil {
			return err
		}
		return w.PutIntent(Intent{Actions: []IntentAction{{Path: "h", State: pruneFile(hash["intent"])}, {Path: "i"}}})
	})
	var n int
	pruneWrite(t, s, func(w *Writer) (err error) {
		if _, _, err = w.CompactHistory(2); err != nil {
			return err
		}
		n, err = w.SweepBlobs()
		return err
	})
	if n != 3 {
		t.Fatalf("swept %d blobs, want 3", n)
	}
	s.View(func(r *Reader) error {
		for name, h := range hash {
			b, err := r.Blob(h)
			gone := name == "orphan" || name == "orphan2" || name == "gone"
			switch {
			case gone && !errors.Is(err, ErrNotFound):
				t.Errorf("blob %s: %v, want ErrNotFound", name, err)
			case !gone && (err != nil || !bytes.Equal(b, data[name])):
				t.Errorf("blob %s did not survive: %v", name, err)
			}
		}
		return nil
	})
	if got := len(pruneKeys(t, s, []byte{prefixBlob})); got != 6 {
		t.Fatalf("%d blob chunks left, want 6", got)
	}
}

func TestPruneDeleteCheckpoints(t *testing.T) {
	s := pruneOpen(t, t.TempDir())
	var cps []Checkpoint
	for i := range 4 {
		pruneWrite(t, s, func(w *Writer) error {
			if _, err := w.Record(Change{Path: "f", Kind: Modified, State: pruneFile(HashBytes([]byte{byte(i)}))}, Fingerprint{}); err != nil {
				return err
			}
			cp := Checkpoint{ID: string(rune('a' + i)), Seq: w.Head()}
			err := w.PutCheckpoint(&cp)
			cps = append(cps, cp)
			return err
		})
	}
	pruneWrite(t, s, func(w *Writer) error { return w.DeleteCheckpoints([]Checkpoint{cps[0], cps[2]}) })
	s.View(func(r *Reader) error {
		var ids []string
		r.Checkpoints(func(cp Checkpoint) (bool, error) { ids = append(ids, cp.ID); return true, nil })
		if !reflect.DeepEqual(ids, []string{"d", "b"}) {
			t.Errorf("checkpoints %v after deleting a and c, want [d b]", ids)
		}
		if cp, err := r.CheckpointBefore(cps[3].Seq); err != nil || cp.ID != "b" {
			t.Errorf("checkpoint before d: %v %v, want b", cp.ID, err)
		}
		if _, err := r.Checkpoint("c"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted checkpoint c: %v", err)
		}
		return nil
	})
}

// pruneFill stores mb MiB of incompressible blobs and returns their hashes.
func pruneFill(t *testing.T, s *Store, mb int) []Hash {
	rng := rand.NewChaCha8([32]byte{2})
	var hs []Hash
	for range mb {
		b := pruneRandBytes(rng, 1<<20)
		h := HashBytes(b)
		pruneWrite(t, s, func(w *Writer) error { return w.PutBlob(h, EncodeBlob(b)) })
		hs = append(hs, h)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	return hs
}

// TestPruneReclaimShrinks stores 40 MiB of blobs, deletes them and checks
// that Reclaim gives the space back. Badger never collects the value-log
// file it is writing to: data still in it is reclaimed once Badger has
// moved on to a new file (it does at every open), by the next Reclaim.
func TestPruneReclaimShrinks(t *testing.T) {
	const mb = 40
	const data = mb << 20

	t.Run("OlderValueLog", func(t *testing.T) {
		dir := t.TempDir()
		s := pruneOpen(t, dir)
		pruneFill(t, s, mb)
		s.Close()
		s = pruneOpen(t, dir) // the blobs are in a value-log file Badger no longer writes to
		size, usage := s.Size(), s.Size()
		if usage < data {
			t.Fatalf("disk usage %d after storing %d bytes", usage, data)
		}
		var n int
		pruneWrite(t, s, func(w *Writer) (err error) { n, err = w.SweepBlobs(); return err })
		if n != mb {
			t.Fatalf("swept %d blobs, want %d", n, mb)
		}
		rs, err := s.Reclaim()
		if err != nil {
			t.Fatal(err)
		}
		size2, usage2 := s.Size(), s.Size()
		t.Logf("Size %d -> %d, disk usage %d -> %d, value-log files rewritten: %d", size, size2, usage, usage2, rs.ValueLogFiles)
		if size-size2 < data*9/10 {
			t.Errorf("Size shrank by %d bytes, want at least %d", size-size2, data*9/10)
		}
		if usage2 > data/10 {
			t.Errorf("disk usage is %d bytes after reclaiming, want under %d", usage2, data/10)
		}
	})

	t.Run("CurrentValueLog", func(t *testing.T) {
		dir := t.TempDir()
		s := pruneOpen(t, dir)
		pruneFill(t, s, 12)
		pruneWrite(t, s, func(w *Writer) error { _, err := w.SweepBlobs(); return err })
		if _, err := s.Reclaim(); err != nil {
			t.Fatal(err)
		}
		usage := s.Size()
		t.Logf("disk usage %d after reclaiming with the data in the current value-log file", usage)
		// The discard counts are persisted: after a restart the file is collected.
		s.Close()
		s = pruneOpen(t, dir)
		if _, err := s.Reclaim(); err != nil {
			t.Fatal(err)
		}
		usage2 := s.Size()
		t.Logf("disk usage %d after a reopen and another reclaim", usage2)
		if usage2 > (12<<20)/10 {
			t.Errorf("disk usage is %d bytes after reopening and reclaiming, want under %d", usage2, (12<<20)/10)
		}
	})
}

// TestPruneReclaimConcurrent runs Reclaim while writers and readers work:
// no write may fail (Badger refuses writes while it drops a prefix) and
// every read must see what was written.
func TestPruneReclaimConcurrent(t *testing.T) {
	dir := t.TempDir()
	s := pruneOpen(t, dir)
	hs := pruneFill(t, s, 8)
	s.Close()
	s = pruneOpen(t, dir) // so that the value-log GC has a file to rewrite
	pruneWrite(t, s, func(w *Writer) error {
		for i, h := range hs[:3] {
			if _, err := w.Record(Change{Path: string(rune('a' + i)), Kind: Added, State: pruneFile(h)}, Fingerprint{}); err != nil {
				return err
			}
		}
		return nil
	})
	pruneWrite(t, s, func(w *Writer) error { _, err := w.SweepBlobs(); return err })
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := s.Write(func(w *Writer) error {
				_, err := w.Record(Change{Path: "w", Kind: Modified, State: pruneFile(HashBytes([]byte{byte(i)}))}, Fingerprint{})
				return err
			})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := s.View(func(r *Reader) error {
				for _, h := range hs[:3] {
					if _, err := r.Blob(h); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	rewritten := 0
	for range 2 {
		rs, err := s.Reclaim()
		if err != nil {
			t.Error(err)
		}
		rewritten += rs.ValueLogFiles
	}
	if rewritten == 0 {
		t.Error("the value-log GC rewrote nothing: 5 of the 8 MiB in the only full file are garbage")
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
