package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// TestImportFastThenRecompress: a first import stores its contents with
// the fast codec and leaves the recompress mark; Recompress rewrites each
// of them (one chunk per compressible file), the contents read back
// byte for byte before and after, a capture after it stores as before,
// and a second Recompress has nothing to do.
func TestImportFastThenRecompress(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	tr := mtree{}
	for i := range 40 {
		var b strings.Builder
		for j := range 300 + i {
			fmt.Fprintf(&b, "func f%d_%d(x int) int { return x*%d + %d }\n", i, j, (j*7919)%1000, (i*j*104729)%997)
		}
		tr[fmt.Sprintf("d%d/f%02d.go", i%3, i)] = mfile(b.String())
	}
	tr["tiny"] = mfile("x") // stored raw: S2 does not shrink it
	writeMTree(t, root, tr)
	ws, err := Open(state, root, Options{LockTimeout: time.Second, Workers: 2})
	mustNil(t, err)
	defer ws.Close()
	_, imported, err := ws.Import(context.Background(), modelWalk(root))
	mustNil(t, err)
	if !imported || !ws.Store().RecompressPending() {
		t.Fatalf("after a first import: imported %v, recompress pending %v; want both", imported, ws.Store().RecompressPending())
	}
	checkStoredContents(t, ws, tr)

	rs, err := ws.Recompress(context.Background(), nil)
	mustNil(t, err)
	if rs.Chunks != 40 || rs.After >= rs.Before {
		t.Errorf("Recompress after the import: %+v, want the 40 text files' chunks, smaller", rs)
	}
	if ws.Store().RecompressPending() {
		t.Error("the recompress mark is still there after Recompress")
	}
	checkStoredContents(t, ws, tr)

	n := tr["d1/f01.go"]
	n.data += "// an edit after the recompress\n"
	tr["d1/f01.go"] = n
	writeMTree(t, root, tr)
	mustNil(t, ws.Capture(context.Background(), []string{"d1/f01.go"}))
	checkStoredContents(t, ws, tr)
	if rs, err := ws.Recompress(context.Background(), nil); err != nil || rs.Chunks != 0 {
		t.Errorf("a second Recompress: %+v, %v; want nothing to do", rs, err)
	}
}

// checkStoredContents: every file's entry has its content, read back from
// the store, equal to the tree's.
func checkStoredContents(t *testing.T, ws *Workspace, tr mtree) {
	t.Helper()
	err := ws.Store().View(func(r *store.Reader) error {
		for p, n := range tr {
			st, ok, err := r.Entry(p)
			if err != nil || !ok {
				return fmt.Errorf("%s: no entry (%v)", p, err)
			}
			b, err := r.Blob(st.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if string(b) != n.data {
				t.Errorf("%s: stored content is %d bytes other than the file's %d", p, len(b), len(n.data))
			}
		}
		return nil
	})
	mustNil(t, err)
}
