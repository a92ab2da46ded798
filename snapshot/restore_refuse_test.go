package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// TestRestoreRefusesBehindSymlink: a path under a directory that is now a
// symlink is refused, the rest is restored under a guard, and drift
// afterwards still shows the refused path (also where a restore of the
// whole workspace records where it settled).
func TestRestoreRefusesBehindSymlink(t *testing.T) {
	ctx := context.Background()
	ws, root, cp := importMTree(t, mtree{"a": mfile("a1"), "d/f": mfile("f1"), "e/g": mfile("g1")})
	mustNil(t, ws.SetActive(store.Active{Runs: []store.ActiveRun{{Session: "s", Run: "r"}}}))
	writeMTree(t, root, mtree{"a": mfile("a2"), "d/f": mfile("f2")})
	mustNil(t, ws.Reconcile(ctx, modelWalk(root)))
	mustNil(t, ws.SetActive(store.Active{}))
	mustNil(t, os.RemoveAll(filepath.Join(root, "d")))
	mustNil(t, os.Symlink("e", filepath.Join(root, "d"))) // d/f would land in e/f
	mustNil(t, ws.Reconcile(ctx, modelWalk(root)))

	for _, opts := range []RestoreOptions{{Paths: Filter{"a", "d/f"}, DryRun: true}, {}} {
		if opts.Paths == nil {
			opts.Policy = newRunsOnly() // d, the person's symlink, stays
		}
		res, err := ws.Restore(ctx, cp, opts)
		mustNil(t, err)
		if len(res.Refused) != 1 || res.Refused[0].Path != "d/f" || res.Refused[0].Kind != store.Added {
			t.Fatalf("%+v: refused %+v, want d/f (added)", opts, res.Refused)
		}
		if len(res.Restored) != 1 || res.Restored[0].Path != "a" || res.Restored[0].Err != nil || (res.Guard.ID == "") != opts.DryRun {
			t.Fatalf("%+v: restored %+v, guard %q; want a, under a guard unless a dry run", opts, res.Restored, res.Guard.ID)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "e/f")); !os.IsNotExist(err) {
		t.Errorf("e/f exists after the restore refused d/f: the write went through the symlink")
	}
	fcs, err := ws.Drift(cp, nil, nil)
	mustNil(t, err)
	drift := map[string]bool{}
	for _, fc := range fcs {
		drift[fc.Path] = true
	}
	if len(drift) != 2 || !drift["d/f"] || !drift["d"] {
		t.Errorf("drift after a restore that refused d/f and kept d: %v, want d and d/f", drift)
	}
}

// TestRestoreNothingToWrite: a restore with nothing to write cuts no
// guard, leaves the last restore alone and makes the target current.
func TestRestoreNothingToWrite(t *testing.T) {
	ctx := context.Background()
	ws, root, cp := importMTree(t, mtree{"a": mfile("a1")})
	writeMTree(t, root, mtree{"a": mfile("a2")})
	mustNil(t, ws.Reconcile(ctx, modelWalk(root)))
	later, err := ws.Cut(ReasonManual, "", store.Attr{})
	mustNil(t, err)
	mustNil(t, ws.SetCurrent(later))
	before, err := ws.Checkpoints(0)
	mustNil(t, err)

	res, err := ws.Restore(ctx, cp, RestoreOptions{Policy: newRunsOnly()}) // a: the person's, kept
	mustNil(t, err)
	if res.Guard.ID != "" || len(res.Restored) != 0 || len(res.Kept) != 1 {
		t.Fatalf("restore with nothing to write: guard %q, restored %v, kept %v", res.Guard.ID, res.Restored, res.Kept)
	}
	after, err := ws.Checkpoints(0)
	mustNil(t, err)
	if len(after) != len(before) {
		t.Errorf("a restore with nothing to write cut %d checkpoints", len(after)-len(before))
	}
	err = ws.Store().View(func(r *store.Reader) error {
		_, err := r.LastRestore()
		return err
	})
	if err != store.ErrNotFound {
		t.Errorf("last restore after a restore with nothing to write: %v, want none", err)
	}
	if cur, err := ws.Current(); err != nil || cur.ID != cp.ID {
		t.Errorf("current after the restore: %s (%v), want the target %s", cur.ID, err, cp.ID)
	}
	if fcs, err := ws.Drift(cp, nil, nil); err != nil || len(fcs) != 1 || fcs[0].Path != "a" {
		t.Errorf("drift after the restore: %v (%v), want the kept a", fcs, err)
	}
}
