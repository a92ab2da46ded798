package e2e

import (
	"fmt"
	"testing"
)

// TestIgnoreChangeReevaluatesItsSubtree: a .gitignore written in a
// directory (here in a burst of rewrites, as an editor or a script does)
// drops what it now ignores below that directory, captures what it no
// longer ignores, and leaves the rest of the workspace alone, exactly as a
// full scan would; with the daemon it does so without re-walking the
// whole workspace.
func TestIgnoreChangeReevaluatesItsSubtree(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write(".gitignore", "*.log\n")
		for _, p := range []string{"top.txt", "a/x.txt", "a/keep.log", "a/gen/o1.txt", "a/gen/o2.txt", "a/b/c.txt", "a/b/gen/deep.txt", "other/gen/z.txt"} {
			ws.write(p, p+"\n")
		}
		ws.start()
		rewalks := ws.rewalks()

		for i := range 10 {
			ws.write("a/.gitignore", fmt.Sprintf("# draft %d\n", i))
		}
		ws.write("a/.gitignore", "!keep.log\ngen/\n")
		s := ws.status()
		assertChanges(t, "ckpt status after a/.gitignore", s.Changes, want(
			"added a/.gitignore", "added a/keep.log",
			"deleted a/gen/o1.txt", "deleted a/gen/o2.txt", "deleted a/b/gen/deep.txt"))

		// What the new rules ignore stays ignored as it changes.
		ws.write("a/gen/o3.txt", "new\n")
		ws.write("a/b/gen/deep.txt", "changed\n")
		ws.write("other/gen/z2.txt", "z2\n")
		s = ws.status()
		assertChanges(t, "ckpt status after writing under ignored directories", s.Changes, want(
			"added a/.gitignore", "added a/keep.log",
			"deleted a/gen/o1.txt", "deleted a/gen/o2.txt", "deleted a/b/gen/deep.txt",
			"added other/gen/z2.txt"))

		// Without the rules, the directories they hid are captured again.
		ws.rm("a/.gitignore")
		s = ws.status()
		assertChanges(t, "ckpt status after removing a/.gitignore", s.Changes, want(
			"added a/gen/o3.txt", "modified a/b/gen/deep.txt", "added other/gen/z2.txt"))
		ws.write("a/gen/o4.txt", "watched again\n")
		s = ws.status()
		assertChanges(t, "ckpt status after writing in a directory no longer ignored", s.Changes, want(
			"added a/gen/o3.txt", "added a/gen/o4.txt", "modified a/b/gen/deep.txt", "added other/gen/z2.txt"))

		if m == daemon {
			if got := ws.rewalks(); got != rewalks {
				t.Errorf("the daemon re-walked the workspace %d times for a nested .gitignore; want 0", got-rewalks)
			}
		}
	})
}

// rewalks is the daemon's count of full re-walks (0 without a daemon).
func (ws *workspace) rewalks() int64 {
	var s struct {
		Daemon struct {
			Rewalks int64 `json:"rewalks"`
		} `json:"daemon"`
	}
	ws.ckptJSON(&s, "status")
	return s.Daemon.Rewalks
}
