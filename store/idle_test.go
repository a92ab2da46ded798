package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// TestMaintain: Maintain rewrites what captures stored in the final
// encoding and reclaims; its own commits leave the store idle (Idle's
// time unchanged) and count as nothing written; every content reads back.
func TestMaintain(t *testing.T) {
	s, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := ReclaimGrace
	ReclaimGrace = 0
	t.Cleanup(func() { ReclaimGrace = old })
	contents := repackTestContents(80)
	var hashes []Hash
	confMustWrite(t, s, func(w *Writer) error {
		for _, c := range contents {
			h := HashBytes(c)
			hashes = append(hashes, h)
			if err := w.PutBlob(h, EncodeBlob(c)); err != nil {
				return err
			}
		}
		return nil
	})
	last, written := s.Idle()
	if last.IsZero() || written == 0 {
		t.Fatalf("Idle after a write: %v, %d bytes; want its time and bytes", last, written)
	}
	ms, err := s.Maintain(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ms.Repacked.Chunks != len(contents) || ms.Repacked.After >= ms.Repacked.Before {
		t.Fatalf("Maintain repacked %+v; want all %d chunks, smaller", ms.Repacked, len(contents))
	}
	if got := chunkMetas(t, s); got[metaPlain] != 0 {
		t.Fatalf("chunks by meta after Maintain: %v; want none plain", got)
	}
	if l, w := s.Idle(); !l.Equal(last) || w != 0 {
		t.Fatalf("Idle after Maintain: %v, %d bytes; want %v (its commits are not work) and 0", l, w, last)
	}
	for i, h := range hashes {
		if got := confReadBlob(t, s, h); !bytes.Equal(got, contents[i]) {
			t.Fatalf("content %d reads back wrong after Maintain", i)
		}
	}
	if ms, err := s.Maintain(context.Background(), nil, nil); err != nil || ms.Repacked.Chunks != 0 {
		t.Fatalf("a second Maintain: %+v, %v; want nothing to do", ms, err)
	}
}

// TestMaintainStops: a commit that is not Maintain's own, or its stop
// func, stops it at its next step with ErrMaintainStopped; what it did
// not reclaim stays due (Idle's bytes), and the contents read back.
func TestMaintainStops(t *testing.T) {
	s, err := Open(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, oldBatch := ReclaimGrace, recompressBatch
	ReclaimGrace, recompressBatch = 0, 4<<10
	t.Cleanup(func() { ReclaimGrace, recompressBatch = old, oldBatch })
	contents := repackTestContents(60)
	for _, c := range contents {
		confPutBlob(t, s, c)
	}
	time.Sleep(time.Millisecond) // the commit below comes after Maintain's start
	steps := 0
	extra := []byte("a capture meanwhile\n")
	ms, err := s.Maintain(context.Background(), func() {
		if steps++; steps == 1 {
			confPutBlob(t, s, extra)
		}
	}, nil)
	if !errors.Is(err, ErrMaintainStopped) {
		t.Fatalf("Maintain with a commit during it: %+v, %v; want ErrMaintainStopped", ms, err)
	}
	if ms.Repacked.Chunks == 0 || ms.Repacked.Chunks >= len(contents) {
		t.Fatalf("Maintain stopped after %d chunks; want some of %d", ms.Repacked.Chunks, len(contents))
	}
	if _, w := s.Idle(); w == 0 {
		t.Fatal("after a stopped Maintain, Idle says nothing is left to reclaim")
	}
	_, err = s.Maintain(context.Background(), nil, func() bool { return true })
	if !errors.Is(err, ErrMaintainStopped) {
		t.Fatalf("Maintain whose stop says so: %v; want ErrMaintainStopped", err)
	}
	for _, c := range append(contents, extra) {
		if got := confReadBlob(t, s, HashBytes(c)); !bytes.Equal(got, c) {
			t.Fatal("a content reads back wrong after a stopped Maintain")
		}
	}
}
