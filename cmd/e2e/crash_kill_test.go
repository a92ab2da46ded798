package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestoreKill9Midway: the process applying a restore is killed with
// SIGKILL while it writes (CKPT_TEST_SLOW_RESTORE spaces its changes out so
// that the kill lands midway, with the writes of parallel workers in
// flight): no path is half-written, and the next command finishes the
// restore exactly, undoably. Embedded, the killed process is ckpt; with a
// daemon, it is ckptd, and the next start finishes it.
func TestRestoreKill9Midway(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		const n = 30
		for i := range n {
			ws.write(fmt.Sprintf("d%d/sub/f%02d.txt", i%4, i), strings.Repeat(fmt.Sprintf("version one of file %d\n", i), 40))
		}
		ws.write("gone/a/b.txt", "deleted later\n")
		ws.write("run.sh", "#!/bin/sh\necho hi\n")
		ws.chmod("run.sh", 0o755)
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		atID := ws.tree()
		for i := range n {
			ws.write(fmt.Sprintf("d%d/sub/f%02d.txt", i%4, i), strings.Repeat(fmt.Sprintf("VERSION TWO of file %d\n", i), 70))
		}
		ws.rm("gone")
		ws.write("new/deep/x.txt", "added\n")
		ws.chmod("run.sh", 0o644)
		before := ws.tree()
		changed := diffPaths(atID, before)

		slow := "CKPT_TEST_SLOW_RESTORE=60ms"
		var victim *exec.Cmd
		client := exec.Command(ckptBin, "restore", cp.CheckpointID, "--exact", "--yes")
		client.Dir = ws.root
		client.Env = ws.env
		if m == embedded {
			client.Env = append(append([]string(nil), ws.env...), slow)
			victim = client
		} else {
			ws.restartDaemon(slow)
			victim = ws.daemon.cmd
		}
		if err := client.Start(); err != nil {
			t.Fatal(err)
		}
		clientDone := make(chan error, 1)
		go func() { clientDone <- client.Wait() }()
		if !waitRestored(ws.root, atID, changed, 5, 20*time.Second) {
			t.Fatalf("the restore did not get midway within 20s")
		}
		if err := syscall.Kill(victim.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9: %v", err)
		}
		if m == daemon {
			<-ws.daemon.done
			ws.daemon = nil
		}
		select {
		case <-clientDone:
		case <-time.After(20 * time.Second):
			t.Fatal("ckpt restore did not end within 20s of the kill")
		}

		mid := ws.tree()
		for p := range mid {
			if strings.HasPrefix(path.Base(p), ".ckpt~") {
				delete(mid, p) // staged temp files: the next open removes them
			}
		}
		if len(diffTrees(atID, mid)) == 0 || len(diffTrees(before, mid)) == 0 {
			t.Fatalf("the kill did not stop the restore midway: the tree is the %s one", map[bool]string{true: "target", false: "starting"}[len(diffTrees(atID, mid)) == 0])
		}
		assertKnownVersions(t, "after kill -9", mid, atID, before)

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

// diffPaths lists the files that differ between two trees.
func diffPaths(a, b tree) []string {
	var out []string
	for p, n := range a {
		if n.Kind != "dir" && b[p] != n {
			out = append(out, p)
		}
	}
	for p, n := range b {
		if _, ok := a[p]; !ok && n.Kind != "dir" {
			out = append(out, p)
		}
	}
	return out
}

// waitRestored waits until at least min of paths hold their state in
// want (read one by one: the restore is renaming files meanwhile).
func waitRestored(root string, want tree, paths []string, min int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		done := 0
		for _, p := range paths {
			w, in := want[p]
			b, err := os.ReadFile(root + "/" + p)
			switch {
			case !in && os.IsNotExist(err):
				done++
			case in && err == nil && string(b) == w.Content:
				done++
			}
		}
		if done >= min {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
