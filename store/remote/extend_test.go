package remote

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/ckptdev/ckpt/store"
)

// A store cloned at an older checkpoint is extended checkpoint by
// checkpoint, through the middle of a segment, up to the remote's end, where
// it may push on; a remote that fails during an extension leaves the
// journal as it was.
func TestExtendFastForwards(t *testing.T) {
	r := testRemote(t)
	ctx := context.Background()
	src := testStore(t, 3)
	p := &Pusher{Remote: r, Store: src, Name: "w", Root: "/w", SegmentChanges: 2}
	if _, err := p.Push(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := r.Manifests(ctx, "w")
	if err != nil || len(ms) != 3 {
		t.Fatalf("manifests: %d, %v", len(ms), err)
	}
	clone := func() *store.Store {
		dst, err := store.Open(t.TempDir(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dst.Close() })
		if err := r.Import(ctx, dst, "w", ms[0], store.WorkspaceState{Root: "/w2"}); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	dst := clone()
	for i, want := range []struct {
		seq       uint64
		continues bool
	}{{2, false}, {3, true}} {
		pos, err := Position(dst, r, "w")
		if err != nil || pos.Seq != uint64(i+1) || pos.CheckpointID != ms[i].Checkpoint.ID {
			t.Fatalf("position before extending to %d: %+v, %v", i+1, pos, err)
		}
		ext, err := r.Extend(ctx, dst, "w", pos, ms[i+1])
		if err != nil || ext.Changes != 1 || ext.Checkpoints != 1 || ext.Blobs != 1 || ext.Continues != want.continues {
			t.Fatalf("extend to %s: %+v, %v", ms[i+1].Checkpoint.ID, ext, err)
		}
		if dst.Head() != want.seq {
			t.Errorf("head %d, want %d", dst.Head(), want.seq)
		}
	}
	if cur, _ := ReadCursor(dst, r, "w"); cur.Seq != 3 || cur.Seg != 2 {
		t.Errorf("extended to the remote's end, the push cursor is %+v", cur)
	}
	dst.View(func(rd *store.Reader) error {
		b, err := rd.Blob(store.HashBytes([]byte("xxx")))
		if string(b) != "xxx" {
			t.Errorf("content of c: %q, %v", b, err)
		}
		return nil
	})

	// The third content is gone from the bucket: nothing is journalled.
	broken := clone()
	key := r.full(blobKey(r.name([]byte("xxx"))))
	if err := r.mc.RemoveObject(ctx, r.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	pos, _ := Position(broken, r, "w")
	if _, err := r.Extend(ctx, broken, "w", pos, ms[2]); !errors.Is(err, errNoObject) {
		t.Fatalf("extend with a content missing: %v", err)
	}
	var ord uint64
	broken.View(func(rd *store.Reader) (err error) { ord, err = rd.LastOrd(); return err })
	if broken.Head() != 1 || ord != ms[0].Checkpoint.Ord {
		t.Errorf("a failed extension journalled: head %d, last order %d", broken.Head(), ord)
	}
}
