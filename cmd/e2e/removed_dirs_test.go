package e2e

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDaemonExitsWhenItsDirectoriesWereRemoved: a ckptd whose workspace
// and state directory are deleted while it runs still exits promptly on
// SIGTERM, and says in its log that the store could not be saved (its
// store's memtable has nowhere to go: Badger would retry writing it for
// ever).
func TestDaemonExitsWhenItsDirectoriesWereRemoved(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	for _, p := range []string{"a/one.txt", "a/two.txt", "b/three.txt"} {
		ws.write(p, "content of "+p+"\n")
	}
	ws.start()
	ws.write("a/one.txt", "changed while the daemon runs\n")
	ws.ckptOK("checkpoint", "-m", "before the directories go")

	for _, dir := range []string{ws.root, ws.state} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // let the watcher see the root go
	d := ws.daemon
	ws.daemon = nil // stopped here, not by the cleanup
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
		t.Fatalf("ckptd did not exit within 5s of SIGTERM after its workspace and state directory were removed%s", logTail(d.log))
	}
	if d.err != nil {
		t.Errorf("ckptd on SIGTERM: %v, want exit 0%s", d.err, logTail(d.log))
	}
	if log := logTail(d.log); !strings.Contains(log, "was removed while the store was open") {
		t.Errorf("ckptd's log does not say the store could not be saved:%s", log)
	}
}
