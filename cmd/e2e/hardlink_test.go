package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHardLinks: a change to a file with several names (hard links) is a
// change to each name, wherever it was made, and whether the link existed
// when the workspace was scanned or was made while the daemon watched. A
// restore writes each name as a file of its own (by rename, as every
// restore write), so the names no longer share a file afterwards: hard
// links are not part of a path's state, only bytes, mode and symlink
// targets are. After the restore every name is exactly the checkpoint's
// and status reports no drift; a later edit of one name is a change of
// that name only.
func TestHardLinks(t *testing.T) {
	cases := []struct {
		name  string
		setup func(ws *workspace) // before start
		link  func(ws *workspace) // after start, before the checkpoint
		edit  string              // shell command run after the checkpoint
		want  []string
	}{
		{
			name:  "linked before the daemon started, written through the first name",
			setup: func(ws *workspace) { ws.write("a", "hi\n"); ws.link("a", "b") },
			edit:  "echo more >> a",
			want:  want("modified a", "modified b"),
		},
		{
			name:  "linked before the daemon started, written through the second name",
			setup: func(ws *workspace) { ws.write("a", "hi\n"); ws.write("sub/keep", "k\n"); ws.link("a", "sub/b") },
			edit:  "echo more >> sub/b",
			want:  want("modified a", "modified sub/b"),
		},
		{
			name:  "linked while watched, written through the old name",
			setup: func(ws *workspace) { ws.write("a", "hi\n") },
			link:  func(ws *workspace) { ws.sh("ln a b") },
			edit:  "echo more >> a",
			want:  want("modified a", "modified b"),
		},
		{
			name:  "linked while watched, written through the new name",
			setup: func(ws *workspace) { ws.write("a", "hi\n"); ws.mkdirAll("d") },
			link:  func(ws *workspace) { ws.sh("ln a d/b && ln a d/c") },
			edit:  "echo more >> d/b",
			want:  want("modified a", "modified d/b", "modified d/c"),
		},
	}
	bothModes(t, func(t *testing.T, m mode) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ws := newWorkspace(t, m)
				ws.write("other", "o\n")
				tc.setup(ws)
				ws.start()
				if tc.link != nil {
					tc.link(ws)
				}
				var cp checkpointJSON
				ws.ckptJSON(&cp, "checkpoint", "-m", "linked")
				atCP := ws.tree()
				ws.sh(tc.edit)
				var d diffJSON
				ws.ckptJSON(&d, "diff", cp.CheckpointID)
				assertChanges(t, "ckpt diff from the checkpoint after "+tc.edit, d.Files, tc.want)

				var r restoreJSON
				ws.ckptJSON(&r, "restore", cp.CheckpointID, "--exact", "--yes")
				assertChanges(t, "restore --exact", r.Restored, tc.want)
				assertTree(t, "after restore --exact", atCP, ws.tree())
				if s := ws.status(); s.Drifted || len(s.Changes) > 0 {
					t.Fatalf("status after restore --exact: drifted %v, changes %s; want no drift", s.Drifted, fmtList(kinds(s.Changes)))
				}

				// The names are separate files now: an edit of one is a
				// change of that one only.
				ws.sh("echo again >> a")
				assertChanges(t, "ckpt status after editing a after the restore", ws.status().Changes, want("modified a"))
			})
		}
	})
}

// TestHardLinkToolWindowAndPathRestore: a tool call that writes one name
// reports every name as its change, and a restore of one named path brings
// back that name only: the other, still holding the change, is drift.
func TestHardLinkToolWindowAndPathRestore(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a", "hi\n")
		ws.link("a", "b")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r")
		var te toolEndJSON
		ws.ckptJSON(&te, "exec", "--session", "s", "--run", "r", "--call", "t1", "--json", "--", "sh", "-c", "echo more >> b")
		assertChanges(t, "tool end of a call writing b", te.Changes, want("modified a", "modified b"))
		var end runDiffJSON
		ws.ckptJSON(&end, "run", "end", "--session", "s", "--run", "r")
		assertChanges(t, "run end", end.Files, want("modified a", "modified b"))

		var r restoreJSON
		ws.ckptJSON(&r, "restore", end.PrevCheckpointID, "a", "--yes")
		assertChanges(t, "restore of a alone", r.Restored, want("modified a"))
		if got := ws.read("a"); got != "hi\n" {
			t.Errorf("a after restoring it: %q, want %q", got, "hi\n")
		}
		if got := ws.read("b"); got != "hi\nmore\n" {
			t.Errorf("b after restoring a alone: %q, want it untouched (%q)", got, "hi\nmore\n")
		}
		assertChanges(t, "status after restoring a alone", ws.status().Changes, want("modified b"))
	})
}

// link makes newRel a hard link to oldRel.
func (ws *workspace) link(oldRel, newRel string) {
	ws.t.Helper()
	if err := os.MkdirAll(filepath.Dir(ws.path(newRel)), 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.Link(ws.path(oldRel), ws.path(newRel)); err != nil {
		ws.t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(ws.path(oldRel), &st); err != nil || st.Nlink < 2 {
		ws.t.Fatalf("link %s %s: nlink %d, %v", oldRel, newRel, st.Nlink, err)
	}
}
