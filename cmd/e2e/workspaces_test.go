package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// workspacesJSON is `ckpt workspaces --json`.
type workspacesJSON struct {
	Running    bool `json:"running"`
	PID        int  `json:"pid"`
	Workspaces []struct {
		Root         string    `json:"root"`
		State        string    `json:"state"`
		Files        int64     `json:"files"`
		LastChangeAt time.Time `json:"last_change_at"`
	} `json:"workspaces"`
}

func (ws *workspace) workspaces(env ...string) workspacesJSON {
	ws.t.Helper()
	r := ws.ckptEnv(env, "workspaces", "--json")
	var out workspacesJSON
	if r.code != 0 || decodeOne(r.stdout, &out) != nil {
		ws.t.Fatalf("ckpt workspaces --json:\n%s", r)
	}
	return out
}

// second makes another workspace beside ws (same state directory, so the
// same daemon) holding one file.
func (ws *workspace) second() string {
	ws.t.Helper()
	dir := filepath.Join(ws.base, "ws2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644); err != nil {
		ws.t.Fatal(err)
	}
	return dir
}

// A daemon that runs but does not serve a workspace is asked to add it,
// instead of the command going embedded; with autostart off it is not.
// ckpt workspaces lists both, and --forget drops one, keeping its history.
func TestDaemonAddsAndForgetsAWorkspace(t *testing.T) {
	requireDaemon(t)
	ws := newWorkspace(t, daemon)
	ws.write("a.txt", "a\n")
	ws.start()
	other := ws.second()

	var s autostartStatus
	r := ws.ckptEnv(nil, "-C", other, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil || s.Daemon.Running {
		t.Fatalf("with autostart off the other workspace should stay embedded:\n%s", r)
	}
	r = ws.ckptEnv([]string{"CKPT_AUTOSTART=1"}, "-C", other, "checkpoint", "-m", "kept", "--json")
	if r.code != 0 {
		t.Fatalf("checkpoint in the other workspace:\n%s", r)
	}
	r = ws.ckptEnv([]string{"CKPT_AUTOSTART=1"}, "-C", other, "status", "--json")
	if r.code != 0 || decodeOne(r.stdout, &s) != nil || !s.Daemon.Running || s.Daemon.PID != ws.daemon.cmd.Process.Pid {
		t.Fatalf("the running daemon was not asked to add the workspace:\n%s", r)
	}
	if strings.Contains(r.stderr, "started ckptd") {
		t.Errorf("a second daemon was started:\n%s", r)
	}

	list := ws.workspaces()
	if !list.Running || list.PID != ws.daemon.cmd.Process.Pid || len(list.Workspaces) != 2 {
		t.Fatalf("ckpt workspaces: %+v, want both workspaces of pid %d", list, ws.daemon.cmd.Process.Pid)
	}
	for _, w := range list.Workspaces {
		if w.State != "ready" || w.Files != 1 || w.LastChangeAt.IsZero() {
			t.Errorf("workspace %+v: want ready, 1 file, a last change", w)
		}
	}
	if roots := []string{list.Workspaces[0].Root, list.Workspaces[1].Root}; roots[0] != ws.root || roots[1] != other {
		t.Errorf("roots %v, want %s and %s, sorted", roots, ws.root, other)
	}
	if out := ws.ckptOK("workspaces"); !strings.Contains(out, other+"  ready, 1 file, last change") {
		t.Errorf("ckpt workspaces:\n%s", out)
	}

	out := ws.ckptOK("workspaces", "--forget", other)
	if !strings.Contains(out, "no longer watches "+other) || !strings.Contains(out, "history stays in "+ws.state) {
		t.Errorf("ckpt workspaces --forget:\n%s", out)
	}
	if list = ws.workspaces(); len(list.Workspaces) != 1 || list.Workspaces[0].Root != ws.root {
		t.Fatalf("after --forget: %+v, want only %s", list, ws.root)
	}
	// The daemon closed the store: a command without it opens it, with
	// the history the daemon recorded.
	r = ws.ckptEnv(nil, "-C", other, "log", "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"kept"`) {
		t.Fatalf("the forgotten workspace's history, embedded:\n%s", r)
	}
	if st := ws.status(); !st.Daemon.Running {
		t.Errorf("the daemon stopped serving the workspace it kept")
	}
}

// Bad input to --forget is one line and exit 2, and changes nothing.
func TestWorkspacesForgetBadInput(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		for _, args := range [][]string{
			{"workspaces", "--forget", filepath.Join(ws.base, "missing")},
			{"workspaces", "--forget", ws.path("a.txt")},
			{"workspaces", "--forget", ""},
			{"workspaces", "extra"},
		} {
			r := ws.ckptResult(args...)
			if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stderr == "" {
				t.Errorf("want exit 2 and one line on stderr:\n%s", r)
			}
		}
		other := ws.second()
		r := ws.ckptResult("workspaces", "--forget", other)
		want := 2 // the daemon does not serve it
		if m == embedded {
			want = 1 // no daemon to ask
		}
		if r.code != want || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("forget a workspace not served: want exit %d, one line:\n%s", want, r)
		}
		list := ws.workspaces()
		if list.Running != (m == daemon) || (m == daemon && len(list.Workspaces) != 1) || (m == embedded && len(list.Workspaces) != 0) {
			t.Errorf("ckpt workspaces after bad input: %+v", list)
		}
		if m == embedded {
			if out := ws.ckptOK("workspaces"); !strings.Contains(out, "No daemon running") {
				t.Errorf("ckpt workspaces without a daemon:\n%s", out)
			}
		}
	})
}
