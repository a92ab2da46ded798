package store

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestVersions: a path's versions, newest first and after a seq oldest
// first, are exactly its journal entries, never another path's (paths
// that are prefixes of one another); Change reads each entry back.
func TestVersions(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewPCG(11, 12))
	paths := []string{"a", "a/b", "ab", "a0", "a\x01", "b"}
	all := confRandomChanges(t, s, rng, paths, 150)
	head := s.Head()
	type version struct {
		seq uint64
		st  State
	}
	confMustView(t, s, func(r *Reader) error {
		for _, p := range append(slices.Clone(paths), "", "a/b/c", "c") {
			var want []version
			for _, x := range all {
				if x.c.Path == p {
					want = append(want, version{x.c.Seq, x.c.State})
				}
			}
			var got []version
			err := r.Versions(p, func(seq uint64, st State) (bool, error) {
				got = append(got, version{seq, st})
				return true, nil
			})
			if err != nil {
				return err
			}
			slices.Reverse(got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Versions(%q):\n got %+v\nwant %+v", p, got, want)
			}
			for from := uint64(0); from <= head; from += 7 {
				var after []version
				err := r.VersionsAfter(p, from, func(seq uint64, st State) (bool, error) {
					after = append(after, version{seq, st})
					return true, nil
				})
				if err != nil {
					return err
				}
				var wantAfter []version
				for _, v := range want {
					if v.seq > from {
						wantAfter = append(wantAfter, v)
					}
				}
				if !reflect.DeepEqual(after, wantAfter) {
					t.Fatalf("VersionsAfter(%q, %d):\n got %+v\nwant %+v", p, from, after, wantAfter)
				}
			}
		}
		n := 0
		if err := r.Versions("a", func(uint64, State) (bool, error) { n++; return n < 2, nil }); err != nil || n != 2 {
			t.Errorf("Versions stopped by fn after %d calls, %v; want 2", n, err)
		}
		for _, x := range all {
			c, err := r.Change(x.c.Seq)
			if err != nil || !reflect.DeepEqual(c, x.c) {
				t.Fatalf("Change(%d) = %+v, %v; want %+v", x.c.Seq, c, err, x.c)
			}
		}
		if _, err := r.Change(head + 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("Change(head+1): %v, want ErrNotFound", err)
		}
		return nil
	})
}

// TestCheckpointFrom: the oldest checkpoint at or after a seq.
func TestCheckpointFrom(t *testing.T) {
	s := openTestStore(t)
	confMustView(t, s, func(r *Reader) error {
		if _, err := r.OldestCheckpoint(); !errors.Is(err, ErrNotFound) {
			t.Errorf("OldestCheckpoint of an empty store: %v, want ErrNotFound", err)
		}
		return nil
	})
	cps := []*Checkpoint{{ID: "c1", Ord: 1, Seq: 3}, {ID: "c2", Ord: 2, Seq: 3}, {ID: "c3", Ord: 3, Seq: 9}}
	confMustWrite(t, s, func(w *Writer) error {
		for _, cp := range cps {
			if err := w.PutCheckpoint(cp); err != nil {
				return err
			}
		}
		return nil
	})
	confMustView(t, s, func(r *Reader) error {
		for _, tc := range []struct {
			seq  uint64
			want string
		}{{0, "c1"}, {3, "c1"}, {4, "c3"}, {9, "c3"}, {10, ""}} {
			cp, err := r.CheckpointFrom(tc.seq)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("CheckpointFrom(%d) = %s, %v; want ErrNotFound", tc.seq, cp.ID, err)
				}
				continue
			}
			if err != nil || cp.ID != tc.want {
				t.Errorf("CheckpointFrom(%d) = %s, %v; want %s", tc.seq, cp.ID, err, tc.want)
			}
		}
		if cp, err := r.OldestCheckpoint(); err != nil || cp.ID != "c1" {
			t.Errorf("OldestCheckpoint = %s, %v; want c1", cp.ID, err)
		}
		return nil
	})
}
