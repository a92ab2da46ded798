package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

// repackTestContents are small source files that share their idioms, as a
// source tree's do: alone, each compresses poorly.
func repackTestContents(n int) [][]byte {
	rng := rand.New(rand.NewPCG(21, 22))
	names := []string{"store", "snapshot", "checkpoint", "journal", "workspace", "restore"}
	var out [][]byte
	for i := range n {
		var b bytes.Buffer
		fmt.Fprintf(&b, "// Copyright 2026 The ckpt Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style licence.\n\npackage %s\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n)\n\n", names[i%len(names)])
		for j := range 20 + rng.IntN(40) {
			n := names[rng.IntN(len(names))]
			fmt.Fprintf(&b, "func (w *%sWriter) put%d(ctx context.Context, seq uint64) error {\n\tif err := ctx.Err(); err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n\treturn errors.New(\"%d\")\n}\n\n", n, j, n, rng.IntN(1e6))
		}
		out = append(out, b.Bytes())
	}
	return out
}

// chunkMetas counts the blob chunks by user-meta byte.
func chunkMetas(t *testing.T, s *Store) map[byte]int {
	t.Helper()
	n := map[byte]int{}
	confMustView(t, s, func(r *Reader) error {
		it := r.txn.NewIterator(badgerKeysOnly([]byte{prefixBlob}))
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n[it.Item().UserMeta()]++
		}
		return nil
	})
	return n
}

// TestRepack: contents a capture stored (zstd SpeedFastest, marked plain)
// and contents written before the marks (meta 0) are rewritten in the
// final encoding against a dictionary made from them, smaller; a delta's
// op stream is compressed again, its base kept; every content reads back, also in a new process (the
// dictionary loaded from the store); a second Repack has nothing to do.
func TestRepack(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	contents := repackTestContents(120)
	var hashes []Hash
	confMustWrite(t, s, func(w *Writer) error {
		for i, c := range contents {
			h := HashBytes(c)
			hashes = append(hashes, h)
			chunks := EncodeBlob(c)
			if i%2 == 0 {
				// As a store written before the marks holds them.
				if err := w.set(blobKey(h, 0), chunks[0]); err != nil {
					return err
				}
				continue
			}
			if err := w.PutBlob(h, chunks); err != nil {
				return err
			}
		}
		return nil
	})
	edited := append(bytes.Clone(contents[1]), "// an edit\n"...)
	eh := confPutVersion(t, s, edited, hashes[1])
	contents, hashes = append(contents, edited), append(hashes, eh)
	if got := chunkMetas(t, s); got[metaPlain] != 60 || got[0] != 60 || got[metaDelta] != 1 {
		t.Fatalf("before Repack, chunks by mark: %v; want 60 plain, 60 unmarked, 1 delta", got)
	}
	rs, err := s.Repack(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Chunks != 121 || rs.After*10 > rs.Before*8 {
		t.Errorf("Repack: %+v; want the 120 whole chunks and the delta, at most 80%% of their size", rs)
	}
	if got := chunkMetas(t, s); got[metaFinal] != 120 || got[metaDeltaFinal] != 1 || len(got) != 2 {
		t.Errorf("after Repack, chunks by mark: %v; want 120 final, 1 delta final", got)
	}
	check := func(when string) {
		t.Helper()
		for i, h := range hashes {
			if got := confReadBlob(t, s, h); !bytes.Equal(got, contents[i]) {
				t.Fatalf("%s: content %d reads back wrong", when, i)
			}
		}
	}
	if n := confCountKeys(t, s, metaKey(metaDict)); n != 1 {
		t.Errorf("%d dictionaries after Repack, want 1", n)
	}
	t.Logf("Repack: %+v", rs)
	check("after Repack")
	if rs, err := s.Repack(context.Background(), nil); err != nil || rs.Chunks != 0 {
		t.Errorf("a second Repack: %+v, %v; want nothing to do", rs, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dicts.Clear() // as in a new process
	if s, err = OpenLazy(dir, 0); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after a reopen")
}

// TestRepackSmallStore: too few contents to pay for a dictionary are
// rewritten at the final level without one.
func TestRepackSmallStore(t *testing.T) {
	s := openTestStore(t)
	contents := repackTestContents(4)
	confMustWrite(t, s, func(w *Writer) error {
		for _, c := range contents {
			if err := w.PutBlob(HashBytes(c), EncodeBlob(c)); err != nil {
				return err
			}
		}
		return nil
	})
	if _, err := s.Repack(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := confCountKeys(t, s, metaKey(metaDict)); n != 0 {
		t.Errorf("%d dictionaries for a store of 4 small files, want none", n)
	}
	for _, c := range contents {
		if got := confReadBlob(t, s, HashBytes(c)); !bytes.Equal(got, c) {
			t.Fatal("a content reads back wrong")
		}
		if v := confChunk0(t, s, HashBytes(c)); v[0] != codecZstd {
			t.Errorf("codec %d, want zstd", v[0])
		}
	}
}

func badgerKeysOnly(prefix []byte) badger.IteratorOptions {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = prefix
	return opts
}

// TestRecompressDelta: a delta's op stream compressed again keeps its
// header and ops, and is never larger.
func TestRecompressDelta(t *testing.T) {
	base := repackTestContents(1)[0]
	next := append(bytes.Clone(base), repackTestContents(3)[2]...)
	v := encodeDeltaChunk(next, DeltaBase{hash: HashBytes(base), content: base}, len(next))
	if v == nil {
		t.Fatal("no delta")
	}
	out, err := recompressDelta(v)
	if err != nil || len(out) > len(v) || !bytes.Equal(out[:deltaHeaderLen], v[:deltaHeaderLen]) {
		t.Fatalf("recompressDelta: %d -> %d bytes, %v", len(v), len(out), err)
	}
	a, err1 := parseDeltaChunk(v)
	b, err2 := parseDeltaChunk(out)
	if err1 != nil || err2 != nil || !bytes.Equal(a.delta, b.delta) || a.base != b.base || a.depth != b.depth {
		t.Fatalf("the recompressed delta differs: %v, %v", err1, err2)
	}
	t.Logf("delta chunk %d -> %d bytes", len(v), len(out))
}
