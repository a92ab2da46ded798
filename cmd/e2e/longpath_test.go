package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// deepDir is a workspace-relative directory whose absolute path is longer
// than PATH_MAX (4096 on Linux): 18 names of 240 bytes.
func deepDir() string {
	parts := make([]string, 18)
	for i := range parts {
		parts[i] = strings.Repeat(string(rune('a'+i)), 240)
	}
	return strings.Join(parts, "/")
}

// writeDeep writes a file under a path too long to name whole, through an
// os.Root (one directory at a time).
func (ws *workspace) writeDeep(rel, content string) {
	ws.t.Helper()
	r, err := os.OpenRoot(ws.root)
	if err != nil {
		ws.t.Fatal(err)
	}
	defer r.Close()
	if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := r.WriteFile(rel, []byte(content), 0o644); err != nil {
		ws.t.Fatal(err)
	}
}

func (ws *workspace) readDeep(rel string) string {
	ws.t.Helper()
	r, err := os.OpenRoot(ws.root)
	if err != nil {
		ws.t.Fatal(err)
	}
	defer r.Close()
	b, err := r.ReadFile(rel)
	if err != nil {
		ws.t.Fatal(err)
	}
	return string(b)
}

// TestPathLongerThanPathMax: a file whose path is longer than PATH_MAX is
// captured, reported and restored like any other (the walk and the reads
// go one directory at a time), and a tool window that creates one reports
// it.
func TestPathLongerThanPathMax(t *testing.T) {
	deep := deepDir() + "/deep.txt"
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		if len(ws.path(deep)) <= syscall.PathMax {
			t.Fatalf("test path is only %d bytes", len(ws.path(deep)))
		}
		ws.write("a.txt", "a\n")
		ws.writeDeep(deep, "one\n")
		ws.start()
		s := ws.statusUnreadable()
		if s.Files != 2 || len(s.Unreadable) != 0 {
			t.Fatalf("status: %d files, %d unreadable (%.200v); want 2 files and nothing unreadable", s.Files, len(s.Unreadable), s.Unreadable)
		}
		initial := s.CurrentCheckpointID

		ws.writeDeep(deep, "two\n")
		if got := strings.Join(kinds(ws.status().Changes), ","); got != "modified "+deep {
			t.Errorf("status after editing the deep file = %.80s…, want it modified", got)
		}
		var r restoreJSON
		ws.ckptJSON(&r, "restore", initial, "--exact", "--yes")
		if got := ws.readDeep(deep); got != "one\n" {
			t.Errorf("after restore the deep file holds %q, want one", got)
		}

		// A tool creates a second one, reaching it with relative cd's
		// (-P: the shell must not name the whole path).
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		script := "cd -P " + strings.ReplaceAll(deepDir(), "/", " && cd -P ") + " && echo new > new.txt"
		var te toolEndJSON
		res := ws.ckptResult("exec", "--session", "s", "--run", "r1", "--call", "c1", "--json", "--", "sh", "-c", script)
		if err := decodeOne(res.stdout, &te); err != nil || res.code != 0 {
			t.Fatalf("exec: exit %d, %v\nstderr: %.300s", res.code, err, res.stderr)
		}
		if got := strings.Join(kinds(te.Changes), ","); got != "added "+deepDir()+"/new.txt" {
			t.Errorf("tool end changes = %.80s…, want the new deep file added", got)
		}
		if len(te.UncoveredPaths) != 0 {
			t.Errorf("tool end uncovered_paths = %.200v, want none (the deep file is stored)", te.UncoveredPaths)
		}
	})
}

// TestPathLongerThanPathMaxLastError: a directory too deep to watch,
// created while the daemon runs, makes the watcher fall back to full
// re-walks, and status's last_error says so (the actionable line), not a
// later per-walk error about the same path.
func TestPathLongerThanPathMaxLastError(t *testing.T) {
	parts := make([]string, 20)
	for i := range parts {
		parts[i] = strings.Repeat("d", 250)
	}
	deep := strings.Join(parts, "/")
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.writeDeep(deep+"/f.txt", "deep\n")
		var s struct {
			statusJSON
			Daemon struct {
				Running   bool   `json:"running"`
				LastError string `json:"last_error"`
			} `json:"daemon"`
		}
		ws.ckptJSON(&s, "status")
		if got := strings.Join(kinds(s.Changes), ","); got != "added "+deep+"/f.txt" {
			t.Errorf("status changes = %.80s…, want the deep file added", got)
		}
		ws.ckptJSON(&s, "status") // a second sync: another full re-walk
		if m == embedded {
			if s.Daemon.LastError != "" {
				t.Errorf("embedded status: last_error %q, want none", s.Daemon.LastError)
			}
			return
		}
		if !strings.Contains(s.Daemon.LastError, "longer than PATH_MAX") || !strings.Contains(s.Daemon.LastError, "falling back to full re-walks") {
			t.Errorf("status last_error = %.300q; want the watcher's fallback to full re-walks\n%s", s.Daemon.LastError, strings.ReplaceAll(ws.daemonLog(), parts[0], "D"))
		}
		if text := ws.ckptOK("status"); !strings.Contains(text, "last error: cannot watch") {
			t.Errorf("status text: want the fallback as the last error:\n%.600s", text)
		}
	})
}
