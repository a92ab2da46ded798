package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRestoreReleasesReplacedFiles: the daemon frees the files a restore
// replaced after it has answered (it holds each old inode open until
// then), and lets every one of them go: no descriptor on a replaced file
// of the workspace is left open, and the restored tree is the target's.
func TestRestoreReleasesReplacedFiles(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	const n = 300
	for i := range n {
		ws.write(fmt.Sprintf("d%d/f%d", i%7, i), fmt.Sprintf("checkpoint %d\n", i))
	}
	ws.start()
	var cp checkpointJSON
	ws.ckptJSON(&cp, "checkpoint", "-m", "base")
	at := ws.tree()
	for i := range n {
		ws.write(fmt.Sprintf("d%d/f%d", i%7, i), fmt.Sprintf("edited %d\n", i))
	}
	var r restoreJSON
	ws.ckptJSON(&r, "restore", cp.CheckpointID, "--exact", "--yes")
	if len(r.Restored) != n {
		t.Fatalf("restored %d paths, want %d", len(r.Restored), n)
	}
	assertTree(t, "after the restore", at, ws.tree())
	pid := ws.daemon.cmd.Process.Pid
	deadline := time.Now().Add(20 * time.Second)
	for {
		held := replacedHeld(t, pid, ws.root)
		if held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20s after the restore the daemon still holds %d replaced files of the workspace open", held)
		}
		time.Sleep(10 * time.Millisecond)
	}
	assertChanges(t, "status after the restore", ws.status().Changes, want())
}

// replacedHeld counts pid's descriptors on files under root whose name is
// gone.
func replacedHeld(t *testing.T, pid int, root string) int {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("list the daemon's descriptors: %v", err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err == nil && strings.HasPrefix(target, root+"/") && strings.HasSuffix(target, " (deleted)") {
			n++
		}
	}
	return n
}
