package snapshot

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptdev/ckpt/store"
)

// as captures the workspace with changes attributed to run (none: the
// person).
func (e *pruneEnv) as(run string, files map[string]string) {
	e.t.Helper()
	a := store.Active{}
	if run != "" {
		a.Runs = []store.ActiveRun{{Session: "s", Run: run}}
	}
	e.must(e.ws.SetActive(a))
	for p, c := range files {
		full := filepath.Join(e.root, p)
		if c == "" {
			e.must(os.Remove(full))
			continue
		}
		e.must(os.WriteFile(full, []byte(c), 0o644))
	}
	e.reconcile()
	e.must(e.ws.SetActive(store.Active{}))
}

func runOf(run string) func(store.Change) bool {
	return func(c store.Change) bool { return c.Attr.Session == "s" && c.Attr.Run == run }
}

// TestRevertInterleaved: a path another run changed between the run's own
// changes is a conflict even though it now holds what the run left; a path
// changed after the run and changed back is not; --force reverts both; a
// revert restores exactly and undoes through its guard.
func TestRevertInterleaved(t *testing.T) {
	e := newPruneEnv(t)
	e.as("", map[string]string{"f": "f0", "g": "g0", "h": "h0"})
	cur := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetCurrent(cur))
	from := e.ws.Head()
	e.as("r1", map[string]string{"f": "f by r1", "g": "g by r1", "h": "h by r1"})
	e.as("r2", map[string]string{"f": "f by r2"})
	e.as("r1", map[string]string{"f": "f by r1 again", "new": "new by r1"})
	to := e.ws.Head()
	e.as("", map[string]string{"h": "h by the person"})
	e.as("", map[string]string{"h": "h by r1"}) // and back

	res, err := e.ws.Revert(e.ctx, RevertOptions{From: from, To: to, Mine: runOf("r1"), Message: "test"})
	e.must(err)
	if len(res.Conflicts) != 1 || res.Conflicts[0].Path != "f" || !res.Conflicts[0].Interleaved || res.Conflicts[0].By.Attr.Run != "r2" {
		t.Fatalf("conflicts: %+v; want f, interleaved, by r2", res.Conflicts)
	}
	want := map[string]string{"f": "f by r1 again", "g": "g0", "h": "h0"}
	if got := e.disk(); !maps.Equal(got, want) {
		t.Fatalf("after revert: %v, want %v", got, want)
	}
	if res.Guard.ID == "" || res.Target.ID != cur.ID {
		t.Fatalf("revert: guard %q, target %q (want the current checkpoint %s)", res.Guard.ID, res.Target.ID, cur.ID)
	}
	if now, err := e.ws.Current(); err != nil || now.ID != cur.ID {
		t.Fatalf("current checkpoint after revert: %q, %v; want it unchanged, %s", now.ID, err, cur.ID)
	}

	forced, err := e.ws.Revert(e.ctx, RevertOptions{From: from, To: to, Mine: runOf("r1"), Force: true, Message: "test"})
	e.must(err)
	if len(forced.Restored) != 1 || forced.Restored[0].Path != "f" || !forced.Restored[0].Conflict {
		t.Fatalf("forced revert restored %+v; want f, as a conflict", forced.Restored)
	}
	if got := e.disk(); got["f"] != "f0" {
		t.Fatalf("after forced revert: f is %q, want f0", got["f"])
	}
	nothing, err := e.ws.Revert(e.ctx, RevertOptions{From: from, To: to, Mine: runOf("r1"), Message: "test"})
	e.must(err)
	if len(nothing.Restored) != 0 || nothing.Guard.ID != "" {
		t.Fatalf("revert with nothing left: restored %+v, guard %q", nothing.Restored, nothing.Guard.ID)
	}
}

// TestHistoryAfterPrune: once retention forgot old history, a version
// below the floor is listed as pruned at the floor, VersionTarget refuses
// positions below it, and positions above it still restore exactly.
func TestHistoryAfterPrune(t *testing.T) {
	pruneLater(t)
	e := newPruneEnv(t)
	e.as("", map[string]string{"f": "v1"})
	old := e.cut(ReasonManual, store.Attr{})
	e.as("", map[string]string{"f": "v2"})
	mid := e.cut(ReasonManual, store.Attr{})
	e.must(e.ws.SetCurrent(mid))
	e.as("r1", map[string]string{"f": "v3"})
	if _, err := e.ws.Prune(e.ctx, mid.CreatedAt); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ws.Checkpoint(old.ID); err == nil {
		t.Fatalf("checkpoint %s survived the prune", old.ID)
	}
	vs, err := e.ws.History("f", 0)
	e.must(err)
	if len(vs) != 2 || vs[0].Pruned || vs[0].Change.Attr.Run != "r1" || !vs[1].Pruned || vs[1].At != mid.Seq || vs[1].Checkpoint.ID != mid.ID {
		t.Fatalf("history after prune: %+v", vs)
	}
	if _, err := e.ws.VersionTarget(old.Seq); !errors.Is(err, ErrBadVersion) {
		t.Fatalf("VersionTarget(%d) below the floor %d: %v, want ErrBadVersion", old.Seq, mid.Seq, err)
	}
	target, err := e.ws.VersionTarget(vs[1].At)
	e.must(err)
	_, err = e.ws.Restore(e.ctx, target, RestoreOptions{Paths: Filter{"f"}, CurrentID: mid.ID})
	e.must(err)
	if got := e.disk()["f"]; got != "v2" {
		t.Fatalf("restore of @%d: f is %q, want v2", vs[1].At, got)
	}
}
