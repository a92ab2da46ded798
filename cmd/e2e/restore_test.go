package e2e

import (
	"maps"
	"testing"
)

// setupRich writes a workspace with every kind of state restore must
// bring back: bytes, the executable bit, symlinks (to a file and to a
// directory), nested directories, and a git repository with a tracked and
// an untracked file.
func setupRich(ws *workspace) {
	ws.t.Helper()
	ws.write("a.txt", "alpha\n")
	ws.write("plain.txt", "plain\n")
	ws.write("bin/tool.sh", "#!/bin/sh\necho hi\n")
	ws.chmod("bin/tool.sh", 0o755)
	ws.symlink("a.txt", "link")
	ws.symlink("dir/nested", "dirlink")
	ws.write("dir/nested/deep/file.txt", "deep\n")
	ws.write("dir/nested/other.txt", "other\n")
	ws.write("dir/top.txt", "top\n")
	ws.write("empty.txt", "")
	ws.mkdirAll("repo")
	ws.exec("git", "-C", "repo", "init", "-q")
	ws.write("repo/tracked.txt", "tracked\n")
	ws.exec("git", "-C", "repo", "add", "tracked.txt")
	ws.exec("git", "-C", "repo", "commit", "-q", "-m", "one")
	ws.write("repo/untracked.txt", "untracked\n")
}

// mutateRich changes every kind of state setupRich wrote.
func mutateRich(ws *workspace) {
	ws.t.Helper()
	ws.write("a.txt", "alpha, changed\n")
	ws.chmod("bin/tool.sh", 0o644)
	ws.rm("link")
	ws.symlink("plain.txt", "link")
	ws.rm("plain.txt")
	ws.symlink("a.txt", "plain.txt") // a file became a symlink
	ws.rm("dirlink")
	ws.rm("dir") // a whole nested directory
	ws.write("empty.txt", "not empty\n")
	ws.write("new.txt", "new\n")
	ws.write("newdir/x/y.txt", "y\n") // a whole new directory
	ws.write("bin/new.sh", "#!/bin/sh\n")
	ws.chmod("bin/new.sh", 0o755)
	ws.rm("repo/untracked.txt")
	ws.write("repo/tracked.txt", "tracked, changed\n")
}

// TestRestoreExactAndUndo is CONTRACT semantics 5 and 6 with --exact: the
// whole workspace becomes the checkpoint, --dry-run changes nothing, the
// guard checkpoint makes undo exact, and undo of the undo redoes.
func TestRestoreExactAndUndo(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		setupRich(ws)
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint", "-m", "base")
		if cp.Reason != "manual" || cp.CheckpointID == "" || cp.Message != "base" {
			t.Fatalf("ckpt checkpoint: got %+v, want a manual checkpoint with message base", cp)
		}
		atID := ws.tree()
		mutateRich(ws)
		before := ws.tree()
		outside := ws.outsideTree()

		var logBefore, logAfter logJSON
		ws.ckptJSON(&logBefore, "log")
		var dry restoreJSON
		ws.ckptJSON(&dry, "restore", cp.CheckpointID, "--exact", "--dry-run")
		if ws.ckptJSON(&logAfter, "log"); len(logAfter.Checkpoints) != len(logBefore.Checkpoints) {
			t.Errorf("restore --dry-run cut a checkpoint: %d before, %d after", len(logBefore.Checkpoints), len(logAfter.Checkpoints))
		}
		if !dry.DryRun || len(dry.Restored) == 0 {
			t.Errorf("restore --dry-run: dry_run %v, %d restored; want true and a plan", dry.DryRun, len(dry.Restored))
		}
		assertTree(t, "after restore --dry-run", before, ws.tree())

		var r restoreJSON
		ws.ckptJSON(&r, "restore", cp.CheckpointID, "--exact", "--yes")
		if r.CheckpointID != cp.CheckpointID || r.GuardCheckpointID == "" || r.DryRun {
			t.Fatalf("restore: checkpoint_id %q, guard_checkpoint_id %q, dry_run %v", r.CheckpointID, r.GuardCheckpointID, r.DryRun)
		}
		assertChanges(t, "restore --dry-run vs restore", dry.Restored, kinds(r.Restored))
		assertTree(t, "after restore --exact", atID, ws.tree())
		var guard showJSON
		ws.ckptJSON(&guard, "show", r.GuardCheckpointID)
		if guard.Reason != "pre_restore_guard" {
			t.Errorf("guard %s: reason %q, want pre_restore_guard", r.GuardCheckpointID, guard.Reason)
		}
		s := ws.status()
		if s.CurrentCheckpointID != cp.CheckpointID {
			t.Errorf("status after restore --exact: current_checkpoint_id %s, want the target %s", s.CurrentCheckpointID, cp.CheckpointID)
		}
		if s.Drifted || len(s.Changes) > 0 {
			t.Errorf("status after restore --exact (the disk is exactly the target): drifted %v, changes %s; want no drift",
				s.Drifted, fmtList(kinds(s.Changes)))
		}

		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		if u.GuardCheckpointID == "" {
			t.Errorf("undo: no guard_checkpoint_id")
		}
		assertTree(t, "after undo", before, ws.tree())

		var redo restoreJSON
		ws.ckptJSON(&redo, "undo", "--yes")
		assertTree(t, "after undo of the undo", atID, ws.tree())
		assertTree(t, "outside the workspace", outside, ws.outsideTree())
	})
}

// TestRestorePaths is `ckpt restore ID PATH...`: only those paths (and
// what lies under a directory path) are touched.
func TestRestorePaths(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		setupRich(ws)
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		atID := ws.tree()
		mutateRich(ws)
		before := ws.tree()

		var r restoreJSON
		ws.ckptJSON(&r, "restore", cp.CheckpointID, "a.txt", "dir", "newdir", "bin/tool.sh", "--exact", "--yes")
		if r.GuardCheckpointID == "" {
			t.Errorf("restore with paths: no guard_checkpoint_id")
		}
		assertChanges(t, "restore with paths", r.Restored, want(
			"modified a.txt", "modified bin/tool.sh",
			"added dir/nested/deep/file.txt", "added dir/nested/other.txt", "added dir/top.txt",
			"deleted newdir/x/y.txt"))
		wantTree := maps.Clone(before)
		for _, p := range []string{"a.txt", "bin/tool.sh", "dir", "dir/nested", "dir/nested/deep", "dir/nested/deep/file.txt", "dir/nested/other.txt", "dir/top.txt"} {
			wantTree[p] = atID[p]
		}
		for _, p := range []string{"newdir", "newdir/x", "newdir/x/y.txt"} {
			delete(wantTree, p)
		}
		assertTree(t, "after restore of a.txt, dir, newdir, bin/tool.sh", wantTree, ws.tree())

		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo", before, ws.tree())
	})
}

// TestRestoreKeepsPersonEdits is CONTRACT semantics 5 (default scope) and
// 7: a run's changes are reverted, the person's are kept, listed in kept,
// and show as drift afterwards.
func TestRestoreKeepsPersonEdits(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("agent.txt", "v1\n")
		ws.write("person.txt", "p1\n")
		ws.write("gone-by-agent.txt", "g\n")
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		atID := ws.tree()

		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("agent.txt", "v2 by the agent\n")
		ws.write("agent-new.txt", "new\n")
		ws.rm("gone-by-agent.txt")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.write("person.txt", "p2 by the person\n")
		ws.write("person-new.txt", "mine\n")
		before := ws.tree()

		var r restoreJSON
		ws.ckptJSON(&r, "restore", cp.CheckpointID, "--yes")
		assertChanges(t, "restore (default scope): restored", r.Restored, want(
			"modified agent.txt", "deleted agent-new.txt", "added gone-by-agent.txt"))
		var kept []change
		for _, k := range r.Kept {
			kept = append(kept, change{Path: k.Path, Kind: k.Kind})
			if k.Why == "" {
				t.Errorf("kept %s without a why", k.Path)
			}
		}
		assertChanges(t, "restore (default scope): kept", kept, want("modified person.txt", "added person-new.txt"))
		wantTree := maps.Clone(atID)
		wantTree["person.txt"] = before["person.txt"]
		wantTree["person-new.txt"] = before["person-new.txt"]
		assertTree(t, "after restore (default scope)", wantTree, ws.tree())

		s := ws.status()
		if s.CurrentCheckpointID != cp.CheckpointID {
			t.Errorf("status: current_checkpoint_id %s, want the restore's target %s", s.CurrentCheckpointID, cp.CheckpointID)
		}
		if !s.Drifted {
			t.Errorf("status: drifted false, want true (kept files differ from the checkpoint)")
		}
		assertChanges(t, "status after restore: kept files are drift", s.Changes, want("modified person.txt", "added person-new.txt"))

		var start runStartJSON
		ws.ckptJSON(&start, "run", "start", "--session", "s", "--run", "r2")
		if !start.WorkspaceDrifted {
			t.Errorf("run start after a restore that kept files: workspace_drifted false, want true")
		}
		assertChanges(t, "run start after restore: drift", start.Drift, want("modified person.txt", "added person-new.txt"))
	})
}
