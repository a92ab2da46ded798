package remote

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote/weedtest"
)

var weed *weedtest.Server

func TestMain(m *testing.M) {
	code := func() int {
		if weedtest.SkipReason() == "" {
			dir, err := os.MkdirTemp("", "ckpt-weed-")
			if err != nil {
				panic(err)
			}
			defer os.RemoveAll(dir)
			if weed, err = weedtest.Start(dir); err != nil {
				println("start SeaweedFS:", err.Error())
				return 1
			}
			defer weed.Stop()
		}
		return m.Run()
	}()
	os.Exit(code)
}

func testRemote(t *testing.T) *Remote {
	t.Helper()
	if why := weedtest.SkipReason(); why != "" {
		t.Skip(why)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", weedtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", weedtest.SecretKey)
	r, err := Open(Config{URL: "s3://" + weed.Bucket(t) + "/p", Endpoint: weed.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// testStore is a store with n journal entries, each a new file, and a
// checkpoint after each.
func testStore(t *testing.T, n int) *store.Store {
	t.Helper()
	st, err := store.Open(t.TempDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := range n {
		addFile(t, st, string(rune('a'+i)), strings.Repeat("x", i+1))
	}
	return st
}

func addFile(t *testing.T, st *store.Store, path, content string) {
	t.Helper()
	h := store.HashBytes([]byte(content))
	err := st.Write(func(w *store.Writer) error {
		if err := w.PutBlob(h, store.EncodeBlob([]byte(content))); err != nil {
			return err
		}
		fp := w.Fingerprint()
		fp.Count++
		seq, err := w.Record(store.Change{Path: path, Kind: store.Added, State: store.State{Kind: store.File, Mode: 0o644, Hash: h, Stored: true}}, fp)
		if err != nil {
			return err
		}
		ord, _ := w.NextOrd()
		return w.PutCheckpoint(&store.Checkpoint{ID: "ck" + string(rune('0'+ord)) + "-000000", Seq: seq, Reason: "manual", CreatedAt: time.Now(), Files: fp.Count})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The lease: the first writer takes it with If-None-Match, a second one is
// refused while it is valid, takes over once it expired, and the first is
// then refused.
func TestLeaseIsOneWriter(t *testing.T) {
	r := testRemote(t)
	ctx := context.Background()
	if err := r.Acquire(ctx, "w", "alice", "/a", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := r.Acquire(ctx, "w", "alice", "/a", time.Minute); err != nil {
		t.Fatalf("renewing: %v", err)
	}
	err := r.Acquire(ctx, "w", "bob", "/b", time.Minute)
	if !errors.Is(err, ErrOtherWriter) || !strings.Contains(err.Error(), "/a") {
		t.Fatalf("second writer: %v", err)
	}
	// A conditional create of an existing key fails: the server honours
	// If-None-Match (what the lease relies on).
	if _, err := r.put(ctx, r.leaseKey("w"), []byte("{}"), true, ""); !errors.Is(err, errPrecondition) {
		t.Fatalf("If-None-Match on an existing object: %v", err)
	}
	if _, err := r.put(ctx, r.leaseKey("w"), []byte("{}"), false, "0123"); !errors.Is(err, errPrecondition) {
		t.Fatalf("If-Match with a wrong ETag: %v", err)
	}
	if err := r.Acquire(ctx, "w", "carol", "/c", -time.Second); !errors.Is(err, ErrOtherWriter) {
		t.Fatalf("carol: %v", err)
	}
	if err := r.Acquire(ctx, "x", "alice", "/a", -time.Second); err != nil { // an expired lease of alice's
		t.Fatal(err)
	}
	if err := r.Acquire(ctx, "x", "bob", "/b", time.Minute); err != nil {
		t.Fatalf("taking over an expired lease: %v", err)
	}
	if err := r.Acquire(ctx, "x", "alice", "/a", time.Minute); !errors.Is(err, ErrOtherWriter) {
		t.Fatalf("the old writer after a take-over: %v", err)
	}
}

// A push that stored a segment but died before recording it adopts that
// segment on the next push: no segment is written twice, none is skipped,
// and the import reads the whole history.
func TestPushAdoptsASegmentItStoredBeforeDying(t *testing.T) {
	r := testRemote(t)
	ctx := context.Background()
	st := testStore(t, 3)
	p := &Pusher{Remote: r, Store: st, Name: "w", Root: "/w", SegmentChanges: 2}
	before, err := ReadCursor(st, r, "w")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Push(ctx)
	if err != nil || res.Segments != 2 || res.Checkpoints != 3 {
		t.Fatalf("push: %+v, %v", res, err)
	}
	// Forget the push (as if it died before its last record), add more.
	if err := st.Write(func(w *store.Writer) error { return w.PutMark(MarkID(r, "w"), "cursor", mustJSON(before)) }); err != nil {
		t.Fatal(err)
	}
	addFile(t, st, "z", "late")
	res, err = p.Push(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cursor.Seg != 3 || res.Cursor.Seq != 4 {
		t.Errorf("after the replay: cursor %+v, want segment 3 at seq 4", res.Cursor)
	}
	ms, err := r.Manifests(ctx, "w")
	if err != nil || len(ms) != 4 {
		t.Fatalf("manifests: %d, %v", len(ms), err)
	}
	dst, err := store.Open(t.TempDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if err := r.Import(ctx, dst, "w", ms[3], store.WorkspaceState{Root: "/w2"}); err != nil {
		t.Fatal(err)
	}
	var n int
	dst.View(func(rd *store.Reader) error {
		return rd.Entries("", func(p string, s store.State) error {
			b, err := rd.Blob(s.Hash)
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
			n += len(b)
			return nil
		})
	})
	if n != 1+2+3+4 {
		t.Errorf("imported %d content bytes, want 10", n)
	}
	if cur, _ := ReadCursor(dst, r, "w"); cur.Seg != 3 {
		t.Errorf("the import of the newest checkpoint does not continue it: %+v", cur)
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in, bucket, prefix string
		ok                 bool
	}{
		{"s3://b", "b", "", true},
		{"s3://b/", "b", "", true},
		{"s3://b/x/y", "b", "x/y/", true},
		{"s3://b/x/../y", "", "", false},
		{"http://b/x", "", "", false},
		{"s3:///x", "", "", false},
		{"s3://b/x?y=1", "", "", false},
		{"b/x", "", "", false},
	} {
		b, p, err := ParseURL(tc.in)
		if (err == nil) != tc.ok || b != tc.bucket || p != tc.prefix {
			t.Errorf("ParseURL(%q) = %q, %q, %v", tc.in, b, p, err)
		}
	}
}

// Contents another store pushed are found, by HEAD or by listing, and not
// uploaded again.
func TestPushFindsStoredContents(t *testing.T) {
	for _, list := range []bool{false, true} {
		r := testRemote(t)
		ctx := context.Background()
		if list {
			old := listAbove
			listAbove = 1
			t.Cleanup(func() { listAbove = old })
		}
		one := &Pusher{Remote: r, Store: testStore(t, 3), Name: "one", Root: "/1"}
		if res, err := one.Push(ctx); err != nil || res.Blobs != 3 {
			t.Fatalf("first push: %+v, %v", res, err)
		}
		two := &Pusher{Remote: r, Store: testStore(t, 4), Name: "two", Root: "/2"}
		res, err := two.Push(ctx)
		if err != nil || res.Blobs != 1 || res.BlobsPresent != 3 {
			t.Errorf("listing %v: second push %+v, %v; want 1 uploaded, 3 found", list, res, err)
		}
	}
}
