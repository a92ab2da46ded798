package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/integration/service"
)

func changeList(changes []api.Change) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Kind+":"+c.Path)
	}
	slices.Sort(out)
	return out
}

// TestEveryWriteIsSeen: `echo $i > f; ckpt status` lists f, and the daemon
// captured f's new content, 100 times in a row.
func TestEveryWriteIsSeen(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(map[string]string{"README": "hello\n"})
	e.startDaemon(ws)
	type cut struct {
		id      string
		content string
	}
	var cuts []cut
	for i := range 100 {
		content := fmt.Sprintf("%d\n", i)
		writeFile(t, ws, "f", content)
		var st api.Status
		e.ckpt(ws, &st, "status")
		if !st.Daemon.Running {
			t.Fatalf("round %d: status did not come from the daemon: %+v", i, st.Daemon)
		}
		if !slices.Contains(changeList(st.Changes), "added:f") {
			t.Fatalf("round %d: status does not list f: %v", i, changeList(st.Changes))
		}
		var d api.DiffResult
		e.ckpt(ws, &d, "diff", "--patch", "--", "f")
		if len(d.Files) != 1 || d.Files[0].Path != "f" {
			t.Fatalf("round %d: diff -- f: %+v", i, d.Files)
		}
		if p := d.Files[0].Patch; !strings.Contains(p, "\n+"+content) {
			t.Fatalf("round %d: the patch does not add %q:\n%s", i, content, p)
		}
		if i%10 == 9 {
			var cp api.Checkpoint
			e.ckpt(ws, &cp, "checkpoint", "-m", content)
			cuts = append(cuts, cut{cp.CheckpointID, content})
		}
	}
	// The stored content of f at each checkpoint is what was written.
	for _, c := range []cut{cuts[0], cuts[4], cuts[len(cuts)-1]} {
		var r api.RestoreResult
		e.ckpt(ws, &r, "restore", "--exact", "--yes", c.id)
		b, err := os.ReadFile(filepath.Join(ws, "f"))
		if err != nil || string(b) != c.content {
			t.Fatalf("f after restoring %s: %q, %v; want %q", c.id, b, err, c.content)
		}
	}
}

// TestWatchAddsToRunningDaemon: a second `ckptd watch` hands its
// workspace to the daemon already running and exits 0.
func TestWatchAddsToRunningDaemon(t *testing.T) {
	e := newEnv(t)
	ws1 := e.workspace(map[string]string{"a": "a\n"})
	ws2 := e.workspace(map[string]string{"b": "b\n"})
	d := e.startDaemon(ws1)
	_, stderr, code := e.run(ws1, "ckptd", "watch", ws2)
	if code != 0 {
		t.Fatalf("ckptd watch WS2 with a daemon running: exit %d\n%s", code, stderr)
	}
	// The daemon serves WS2 as soon as it is added; its first import
	// (one file) ends right after.
	e.waitServed(d, ws1, ws2)
	writeFile(t, ws2, "c", "c\n")
	var st api.Status
	e.ckpt(ws2, &st, "status")
	if !st.Daemon.Running || !slices.Equal(changeList(st.Changes), []string{"added:c"}) {
		t.Fatalf("status of WS2: daemon %+v, changes %v", st.Daemon, changeList(st.Changes))
	}
	if !slices.Contains(st.Daemon.Workspaces, ws1) || !slices.Contains(st.Daemon.Workspaces, ws2) {
		t.Errorf("status lists the daemon's workspaces as %v", st.Daemon.Workspaces)
	}
}

// TestSigtermExitsCleanly: SIGTERM exits 0, removes the socket and closes
// the stores (the client can open them itself afterwards).
func TestSigtermExitsCleanly(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(map[string]string{"a": "a\n"})
	d := e.startDaemon(ws)
	writeFile(t, ws, "b", "b\n")
	var cp api.Checkpoint
	e.ckpt(ws, &cp, "checkpoint")
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := d.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, d.stderr.String())
	}
	if _, err := os.Lstat(e.socket()); !os.IsNotExist(err) {
		t.Fatalf("the socket is still there: %v", err)
	}
	var log api.Log
	e.ckpt(ws, &log, "log")
	if len(log.Checkpoints) == 0 || log.Checkpoints[0].CheckpointID != cp.CheckpointID {
		t.Fatalf("log after shutdown: %+v", log.Checkpoints)
	}
}

// TestKilledDaemonLosesNothing: after kill -9, the edits made while no
// daemon ran show as drift once it is back, and every checkpoint it
// acknowledged is still there.
func TestKilledDaemonLosesNothing(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(map[string]string{"keep.txt": "v1\n", "gone.txt": "bye\n", "dir/x": "x\n"})
	d := e.startDaemon(ws)
	var ids []string
	for i := range 3 {
		writeFile(t, ws, fmt.Sprintf("dir/cut%d", i), "cut\n")
		var cp api.Checkpoint
		e.ckpt(ws, &cp, "checkpoint", "-m", fmt.Sprint(i))
		ids = append(ids, cp.CheckpointID)
	}
	d.cmd.Process.Kill()
	d.wait(t, 10*time.Second)
	if _, err := os.Lstat(e.socket()); err != nil {
		t.Fatalf("kill -9 should leave the socket behind: %v", err)
	}

	writeFile(t, ws, "keep.txt", "v2\n")
	writeFile(t, ws, "new.txt", "new\n")
	if err := os.Remove(filepath.Join(ws, "gone.txt")); err != nil {
		t.Fatal(err)
	}

	e.startDaemon(ws) // over the stale socket
	var st api.Status
	e.ckpt(ws, &st, "status")
	if !st.Daemon.Running || !st.Drifted {
		t.Fatalf("status after restart: daemon %+v, drifted %v", st.Daemon, st.Drifted)
	}
	got := changeList(st.Changes)
	for _, want := range []string{"modified:keep.txt", "added:new.txt", "deleted:gone.txt"} {
		if !slices.Contains(got, want) {
			t.Errorf("status after restart lacks %s: %v", want, got)
		}
	}
	var log api.Log
	e.ckpt(ws, &log, "log")
	for _, id := range ids {
		if !slices.ContainsFunc(log.Checkpoints, func(c api.Checkpoint) bool { return c.CheckpointID == id }) {
			t.Errorf("checkpoint %s, acknowledged before the kill, is gone", id)
		}
	}
}

func TestInstallService(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(nil)
	stdout, stderr, code := e.run(ws, "ckptd", "install-service")
	if code != 0 {
		t.Fatalf("install-service: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, service.EnableHint) {
		t.Errorf("install-service does not say how to enable the unit:\n%s", stdout)
	}
	unit, err := os.ReadFile(filepath.Join(e.home, ".config", "systemd", "user", "ckptd.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"ExecStart=" + filepath.Join(binDir, "ckptd") + " watch " + ws,
		"Environment=CKPT_STATE_DIR=" + e.stateDir,
		"Restart=on-failure",
	} {
		if !strings.Contains(string(unit), "\n"+line+"\n") {
			t.Errorf("the unit lacks %s:\n%s", line, unit)
		}
	}
}

func TestCommandLine(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(nil)
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"version", []string{"version"}, 0, "ckptd " + api.Version},
		{"watch needs a directory", []string{"watch"}, 2, ""},
		{"watch of a missing directory", []string{"watch", filepath.Join(ws, "missing")}, 2, ""},
		{"an unknown flag", []string{"watch", "--nope", ws}, 2, ""},
		{"an unknown command", []string{"nope"}, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := e.run(ws, "ckptd", tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.out) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, %q", code, stdout, stderr, tt.code, tt.out)
			}
		})
	}
}

// TestEventsFromTheWatcher: a change is streamed as it is captured, with
// no ckpt command to trigger a scan; health shows the watcher.
func TestEventsFromTheWatcher(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(map[string]string{"a": "a\n"})
	e.startDaemon(ws)
	c, err := client.Dial(e.socket(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The daemon serves before the watcher's first walk is over (commands
	// wait for it): poll until health shows the watcher ready.
	for {
		h, err := c.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Workspaces) != 1 || h.Workspaces[0].Watcher == nil {
			t.Fatalf("health: %+v", h.Workspaces)
		}
		if w := h.Workspaces[0].Watcher; w.Ready {
			if w.WatchedDirs != 1 {
				t.Fatalf("watcher: %+v", *w)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the watcher never became ready: %+v", *h.Workspaces[0].Watcher)
		case <-time.After(10 * time.Millisecond):
		}
	}
	es, err := c.Events(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	writeFile(t, ws, "sub/new.txt", "new\n")
	for {
		ev, err := es.Next()
		if err != nil {
			t.Fatalf("no change event for sub/new.txt: %v", err)
		}
		if ev.Type == api.EventChange && ev.Change.Path == "sub/new.txt" {
			if ev.Change.Kind != "added" || ev.Change.By != "person" {
				t.Fatalf("change event %+v", ev.Change)
			}
			return
		}
	}
}

// TestSyncTimeoutIsAClearError: when the daemon cannot catch up within
// sync_timeout (here: a git checkout never finishes, so its index.lock
// holds the sync barrier), the command fails (exit 1) and says so.
func TestSyncTimeoutIsAClearError(t *testing.T) {
	e := newEnv(t)
	ws := e.workspace(map[string]string{"a": "a\n", ".git/index.lock": ""})
	e.startDaemonEnv([]string{"CKPT_SYNC_TIMEOUT=300ms"}, ws)
	_, stderr, code := e.run(ws, "ckpt", "status")
	if code != 1 || !strings.Contains(stderr, "sync_timeout") || !strings.Contains(stderr, "index.lock") {
		t.Fatalf("status with sync_timeout=300ms: exit %d, stderr %q; want exit 1 naming sync_timeout and index.lock", code, stderr)
	}
}
