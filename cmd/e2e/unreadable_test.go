package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unreadableStatusJSON is ckpt status --json with the paths it could not read.
type unreadableStatusJSON struct {
	statusJSON
	Unreadable []struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	} `json:"unreadable"`
}

// statusUnreadable is `ckpt status --json`, with the unreadable paths.
func (ws *workspace) statusUnreadable() unreadableStatusJSON {
	ws.t.Helper()
	var s unreadableStatusJSON
	ws.ckptJSON(&s, "status")
	return s
}

// assertUnreadable checks that status names exactly these paths as
// unreadable, each with a permission error, and reports no deletion.
func assertUnreadable(t *testing.T, s unreadableStatusJSON, paths ...string) {
	t.Helper()
	var got []string
	for _, u := range s.Unreadable {
		got = append(got, u.Path)
		if !strings.Contains(u.Error, "permission denied") {
			t.Errorf("unreadable %s: error %q, want it to say permission denied", u.Path, u.Error)
		}
	}
	if strings.Join(got, ",") != strings.Join(paths, ",") {
		t.Errorf("status unreadable = %v, want %v", got, paths)
	}
	for _, c := range s.Changes {
		if c.Kind == "deleted" {
			t.Errorf("status reports %s deleted, but it was only unreadable", c.Path)
		}
	}
}

// assertNoDeletions checks that nothing was journaled deleted between two
// checkpoints.
func (ws *workspace) assertNoDeletions(from, to string) {
	ws.t.Helper()
	var d diffJSON
	ws.ckptJSON(&d, "diff", from, to)
	for _, c := range d.Files {
		if c.Kind == "deleted" {
			ws.t.Errorf("diff %s %s: %s deleted, but it was only unreadable", from, to, c.Path)
		}
	}
}

// TestUnreadableDirIsUnknown: a directory its owner makes unreadable is
// unknown, never deleted: status names it, its files keep their recorded
// state (also across a daemon restart), a restore leaves it alone and says
// why, and once it can be read again nothing was ever journaled deleted.
func TestUnreadableDirIsUnknown(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newNobodyWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("d/f1", "one\n")
		ws.write("d/sub/f2", "two\n")
		ws.chownTree()
		ws.start()
		initial := ws.status().CurrentCheckpointID
		ws.shAs("echo changed > d/f1")
		ws.status()
		ws.shAs("chmod 000 d")

		s := ws.statusUnreadable()
		assertUnreadable(t, s, "d")
		if s.Files != 3 {
			t.Errorf("status files = %d, want 3 (d's files keep their state)", s.Files)
		}
		text := ws.ckptOK("status")
		if !strings.Contains(text, "d  (permission denied)") {
			t.Errorf("status text does not name d with its error:\n%s", text)
		}
		var mid checkpointJSON
		ws.ckptJSON(&mid, "checkpoint", "-m", "while unreadable")
		ws.assertNoDeletions(initial, mid.CheckpointID)

		// d/f1 differs from the initial checkpoint: an exact restore would
		// write it, but what d holds now is unknown.
		var r restoreJSON
		ws.ckptJSON(&r, "restore", initial, "--exact", "--yes")
		kept := false
		for _, k := range r.Kept {
			if k.Path == "d/f1" && strings.Contains(k.Why, "could not be read") {
				kept = true
			}
		}
		for _, c := range r.Restored {
			if strings.HasPrefix(c.Path, "d/") {
				t.Errorf("restore --exact touched %s inside the unreadable d", c.Path)
			}
		}
		if !kept {
			t.Errorf("restore --exact: d/f1 not kept with why it could not be read: %+v", r)
		}

		if m == daemon {
			ws.restartDaemon()
			assertUnreadable(t, ws.statusUnreadable(), "d")
		}
		// Written by root while its owner cannot read d: the watcher has
		// no watch in d, so only a walk can find it.
		if err := os.WriteFile(ws.path("d/new"), []byte("new\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ws.shAs("chmod 755 d")
		s = ws.statusUnreadable()
		assertUnreadable(t, s)
		if got := strings.Join(kinds(s.Changes), ","); got != "added d/new,modified d/f1" {
			t.Errorf("status after chmod 755 = %s, want added d/new,modified d/f1", got)
		}
		if ws.read("d/f1") != "changed\n" || ws.read("d/sub/f2") != "two\n" {
			t.Errorf("d's files changed while unreadable")
		}
		var end checkpointJSON
		ws.ckptJSON(&end, "checkpoint", "-m", "readable again")
		ws.assertNoDeletions(mid.CheckpointID, end.CheckpointID)
		ws.assertNoDeletions(initial, end.CheckpointID)
	})
}

// TestUnreadableAtFirstImport: a directory unreadable when the workspace is
// first imported is named in a warning, and a later exact restore to the
// initial checkpoint does not delete the files it held (their state then
// is unknown).
func TestUnreadableAtFirstImport(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newNobodyWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("d/f1", "one\n")
		ws.chownTree()
		ws.shAs("chmod 000 d")
		var warning string
		if m == daemon {
			warning = ws.daemonImport()
			ws.startDaemon()
		} else {
			r := ws.ckptResult("status")
			if r.code != 0 {
				t.Fatalf("first status failed:\n%s", r)
			}
			warning = r.stderr
		}
		if !strings.Contains(warning, "could not read") || !strings.Contains(warning, "d  (permission denied)") {
			t.Errorf("the first import did not warn about d:\n%s", warning)
		}
		s := ws.statusUnreadable()
		assertUnreadable(t, s, "d")
		initial := s.CurrentCheckpointID

		ws.shAs("chmod 755 d")
		s = ws.statusUnreadable()
		assertUnreadable(t, s)
		if got := strings.Join(kinds(s.Changes), ","); got != "added d/f1" {
			t.Errorf("status once d is readable = %s, want added d/f1", got)
		}
		var r restoreJSON
		ws.ckptJSON(&r, "restore", initial, "--exact", "--yes")
		if len(r.Kept) != 1 || r.Kept[0].Path != "d/f1" || !strings.Contains(r.Kept[0].Why, "could not be read when "+initial) {
			t.Errorf("restore --exact %s: want d/f1 kept because it could not be read then, got %+v", initial, r)
		}
		if !ws.exists("d/f1") || ws.read("d/f1") != "one\n" {
			t.Errorf("restore --exact deleted d/f1, unreadable when %s was made", initial)
		}
	})
}

// TestUnreadableFileKeepsItsState: a file its owner makes unreadable keeps
// its recorded state and is named in status.
func TestUnreadableFileKeepsItsState(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newNobodyWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("secret", "s\n")
		ws.chownTree()
		ws.start()
		ws.shAs("chmod 000 secret")
		s := ws.statusUnreadable()
		assertUnreadable(t, s, "secret")
		if len(s.Changes) != 0 {
			t.Errorf("status lists %v for a file that only became unreadable", kinds(s.Changes))
		}
		if m == daemon {
			ws.restartDaemon()
			assertUnreadable(t, ws.statusUnreadable(), "secret")
		}
		ws.shAs("chmod 644 secret")
		s = ws.statusUnreadable()
		assertUnreadable(t, s)
		if len(s.Changes) != 0 {
			t.Errorf("status after chmod 644 lists %v, want nothing", kinds(s.Changes))
		}
	})
}

// daemonImport runs ckptd alone (no client polling it, which would import
// the workspace itself) until its first import is done, stops it, and
// returns its log.
func (ws *workspace) daemonImport() string {
	ws.t.Helper()
	log, err := os.CreateTemp(ws.logs, "ckptd-import-*.log")
	if err != nil {
		ws.t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(ckptdBin, "watch", ws.root)
	cmd.Dir, cmd.Env = ws.root, ws.env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: ws.cred}
	if err := cmd.Start(); err != nil {
		ws.t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(syscall.SIGTERM)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		// "watching" is logged once the first walk (the import) is done;
		// the daemon serves before that.
		if b, _ := os.ReadFile(log.Name()); strings.Contains(string(b), "msg=watching") {
			return string(b)
		}
	}
	ws.t.Fatalf("ckptd did not serve the workspace within 30s%s", logTail(log.Name()))
	return ""
}
