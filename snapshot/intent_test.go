package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// TestOpenFinishesStoredIntent puts an intent in the store by hand, as a
// crash leaves it, and checks what Open does with it: a path-scoped
// restore keeps its scope for undo, and an intent written before actions
// recorded their planned state (Before) is applied as it always was.
func TestOpenFinishesStoredIntent(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	writeMTree(t, root, mtree{"a": mfile("a at the target"), "dir/b": mfile("b at the target")})
	opts := Options{LockTimeout: time.Second, Workers: 2}
	ws, err := Open(state, root, opts)
	mustNil(t, err)
	target, _, err := ws.Import(context.Background(), modelWalk(root))
	mustNil(t, err)
	mustNil(t, os.WriteFile(filepath.Join(root, "a"), []byte("a changed"), 0o644))
	mustNil(t, ws.Capture(context.Background(), []string{"a"}))
	guard, err := ws.Cut(ReasonPreRestoreGuard, "", store.Attr{})
	mustNil(t, err)
	// Written again while ckpt was down: with no Before to compare, the
	// intent is applied over it.
	mustNil(t, os.WriteFile(filepath.Join(root, "a"), []byte("a written while down"), 0o644))
	var at store.State
	mustNil(t, ws.Store().View(func(r *store.Reader) (err error) {
		at, err = r.StateAt("a", target.Seq)
		return err
	}))
	in := store.Intent{TargetID: target.ID, GuardID: guard.ID, PrevID: target.ID, Paths: []string{"a"},
		Actions: []store.IntentAction{{Path: "a", State: at}}, CreatedAt: time.Now().UTC()}
	mustNil(t, ws.Store().Write(func(w *store.Writer) error { return w.PutIntent(in) }))
	mustNil(t, ws.Close())

	ws, err = Open(state, root, opts)
	mustNil(t, err)
	defer ws.Close()
	disk, strays := readMTree(t, root)
	want := mtree{"a": mfile("a at the target"), "dir/b": mfile("b at the target")}
	if d := describeMDiff(disk, want); d != "" || len(strays) > 0 {
		t.Errorf("after Open finished the intent:%s (strays %v)", d, strays)
	}
	var lr store.LastRestore
	mustNil(t, ws.Store().View(func(r *store.Reader) (err error) {
		lr, err = r.LastRestore()
		return err
	}))
	if lr.GuardID != guard.ID || fmt.Sprint(lr.Paths) != "[a]" {
		t.Errorf("last restore %+v: want guard %s and the intent's scope [a], for undo", lr, guard.ID)
	}
}
