package e2e

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"time"
)

// TestRestoreCrashRecovery is DESIGN's restore intent: a restore that dies
// midway (CKPT_TEST_CRASH_AFTER=3 makes the process that applies it exit 3
// after three writes) is finished by the next open of the store, so the
// tree is exactly the checkpoint, and no file is ever half-written: at any
// moment every path holds one of its known versions. Embedded, the crashing
// process is ckpt; with a daemon, it is ckptd, restarted with the variable.
func TestRestoreCrashRecovery(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		for i := range 20 {
			ws.write(fmt.Sprintf("src/f%02d.txt", i), strings.Repeat(fmt.Sprintf("version one of file %d\n", i), 50))
		}
		ws.write("gone/a/b.txt", "deleted later\n")
		ws.write("tool.sh", "#!/bin/sh\n")
		ws.chmod("tool.sh", 0o755)
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		atID := ws.tree()
		for i := range 20 {
			ws.write(fmt.Sprintf("src/f%02d.txt", i), strings.Repeat(fmt.Sprintf("VERSION TWO of file %d\n", i), 60))
		}
		ws.rm("gone")
		ws.write("added/x.txt", "added\n")
		ws.chmod("tool.sh", 0o644)
		before := ws.tree()

		crash := "CKPT_TEST_CRASH_AFTER=3"
		if m == embedded {
			r := ws.ckptEnv([]string{crash}, "restore", cp.CheckpointID, "--exact", "--yes")
			if r.code != 3 {
				t.Fatalf("restore with %s: want exit 3 (the test crash), got\n%s", crash, r)
			}
		} else {
			ws.restartDaemon(crash)
			r := ws.ckptResult("restore", cp.CheckpointID, "--exact", "--yes")
			if r.code == 0 {
				t.Fatalf("restore with the daemon started with %s: want a failure (the daemon died), got\n%s", crash, r)
			}
			if code := ws.waitDaemonExit(10 * time.Second); code != 3 {
				t.Fatalf("ckptd with %s: exit %d, want 3", crash, code)
			}
		}

		mid := ws.tree()
		// The batch the crash stopped may leave its staged temp files
		// (complete, under ckpt's internal names); recovery removes them,
		// which the tree comparison after the next status checks.
		for p := range mid {
			if strings.HasPrefix(path.Base(p), ".ckpt~") {
				delete(mid, p)
			}
		}
		if len(diffTrees(atID, mid)) == 0 || len(diffTrees(before, mid)) == 0 {
			t.Fatalf("the crash did not stop the restore midway: the tree is the %s one", map[bool]string{true: "target", false: "starting"}[len(diffTrees(atID, mid)) == 0])
		}
		assertKnownVersions(t, "after the crash", mid, atID, before)

		if m == daemon {
			ws.startDaemon()
		}
		ws.ckptOK("status")
		assertTree(t, "after the next ckpt status", atID, ws.tree())
		st := ws.status()
		if st.CurrentCheckpointID != cp.CheckpointID || st.Drifted {
			t.Errorf("after recovery: current %s (want %s), drifted %v, changes %s", st.CurrentCheckpointID, cp.CheckpointID, st.Drifted, fmtList(kinds(st.Changes)))
		}
		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of the recovered restore", before, ws.tree())
	})
}

// assertKnownVersions fails if any path holds something that is neither
// its state in one of the versions nor (where a version lacks it) absent:
// a half-written file, a temporary file left behind, a wrong mode.
func assertKnownVersions(t *testing.T, what string, got tree, versions ...tree) {
	t.Helper()
	all := map[string]bool{}
	for _, v := range append([]tree{got}, versions...) {
		for p := range v {
			all[p] = true
		}
	}
	for p := range all {
		g, present := got[p]
		ok := false
		for _, v := range versions {
			w, in := v[p]
			if (present && in && g == w) || (!present && !in) {
				ok = true
			}
		}
		if !ok {
			if present {
				t.Errorf("%s: %s is %s, none of its known versions", what, p, g)
			} else {
				t.Errorf("%s: %s is missing, but every version has it", what, p)
			}
		}
	}
}
