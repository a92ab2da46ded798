package remotetest

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A ckpt push killed half-way, and a ckptd killed while replicating, go on
// from where they were: the next push or daemon finishes the job, and the
// remote holds the workspace exactly.
func TestReplicationResumesAfterCrash(t *testing.T) {
	needWeed(t)
	_, url := bucketURL(t)
	a := newMachine(t, url, "CKPT_REMOTE_NAME=proj", "CKPT_REMOTE_BANDWIDTH=2MiB")
	root := a.dir("proj")
	randomFiles(t, root, "big", 40, 100<<10) // 4 MB: 2 s at 2 MiB/s
	a.ok(root, "checkpoint", "-m", "before the crash")

	push := exec.Command(ckptBin, "push")
	push.Dir, push.Env = root, a.env
	if err := push.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	push.Process.Signal(syscall.SIGKILL)
	push.Wait()

	// The daemon takes over the half-done push, and is killed too.
	randomFiles(t, root, "more", 20, 100<<10)
	a.startDaemon(root)
	time.Sleep(1500 * time.Millisecond)
	syscall.Kill(-a.daemon.Process.Pid, syscall.SIGKILL)
	<-a.ddone
	a.daemon = nil

	randomFiles(t, root, "last", 3, 1000)
	a.ok(root, "checkpoint", "-m", "after the crashes")
	var p pushJSON
	a.json(root, &p, "push")
	caughtUp(t, a, root, url, "proj")

	// And a clone of the first checkpoint is that checkpoint.
	b := newMachine(t, "")
	var l logJSON
	a.json(root, &l, "log")
	first := l.Checkpoints[len(l.Checkpoints)-1].CheckpointID
	b.ok(b.base, "clone", url, "proj@"+first, filepath.Join(b.base, "first"))
	got := readTree(t, filepath.Join(b.base, "first"))
	if len(got["big/000.bin"].Content) != 100<<10 {
		t.Errorf("clone of %s lacks big/000.bin", first)
	}
}
