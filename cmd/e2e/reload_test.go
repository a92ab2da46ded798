package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// statusConfigJSON is the part of `ckpt status --json` about the
// workspace's configuration.
type statusConfigJSON struct {
	Daemon struct {
		Running     bool   `json:"running"`
		ConfigError string `json:"config_error"`
	} `json:"daemon"`
	Changes []change `json:"changes"`
}

// assertConfigError checks that the daemon reports the workspace's
// configuration as invalid with msg, in status text and JSON (exit 0).
func (ws *workspace) assertConfigError(msg string) {
	ws.t.Helper()
	var s statusConfigJSON
	ws.ckptJSON(&s, "status")
	if !s.Daemon.Running || !strings.Contains(s.Daemon.ConfigError, msg) {
		ws.t.Errorf("status --json: daemon %+v, want config_error containing %q", s.Daemon, msg)
	}
	text := ws.ckptOK("status")
	if !strings.Contains(text, "the workspace's configuration is invalid; the daemon keeps its previous settings: "+msg) {
		ws.t.Errorf("status does not show the configuration error %q:\n%s", msg, text)
	}
}

// uncovered runs one tool call that writes a file of n bytes and returns
// the paths its tool end reports as uncovered (not stored).
func (ws *workspace) uncovered(call, file string, n int) []string {
	ws.t.Helper()
	r := ws.ckptResult("exec", "--session", "s", "--run", "r", "--call", call, "--json", "--",
		"sh", "-c", "head -c "+itoa(n)+" /dev/zero > "+file)
	var te toolEndJSON
	if r.code != 0 || decodeOne(r.stdout, &te) != nil {
		ws.t.Fatalf("exec:\n%s", r)
	}
	return te.UncoveredPaths
}

func itoa(n int) string { return strconv.Itoa(n) }

// The workspace's ckpt.yaml is obeyed alike by embedded commands (they
// read it each time) and by a running daemon, which reloads it when it
// changes: a new max_file_size and new ignore rules take effect without a
// restart. An invalid file keeps the daemon's previous settings and shows
// the error in status (text and JSON) and in its log; embedded commands
// refuse it.
func TestDaemonReloadsWorkspaceConfig(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r")
		if got := ws.uncovered("c1", "before.bin", 100); len(got) != 0 {
			t.Fatalf("with the default max_file_size: uncovered %q", got)
		}

		ws.write("ckpt.yaml", "max_file_size: 64\n")
		if got := ws.uncovered("c2", "big.bin", 100); len(got) != 1 || got[0] != "big.bin" {
			t.Errorf("after max_file_size: 64: uncovered %q, want [big.bin]: the new limit is not in force", got)
		}

		ws.write("ckpt.yaml", "max_file_size: lots\n")
		const bad = "config: max_file_size in "
		if m == daemon {
			ws.assertConfigError(bad + ws.path("ckpt.yaml") + `: invalid size "lots"`)
			if log := logTail(ws.daemon.log); !strings.Contains(log, "keeping the previous settings") || !strings.Contains(log, `invalid size \"lots\"`) {
				t.Errorf("the daemon's log does not report the invalid configuration:%s", log)
			}
		} else {
			r := ws.ckptResult("status")
			if r.code != 2 || !strings.HasPrefix(r.stderr, "ckpt: "+bad) {
				t.Errorf("embedded status with an invalid ckpt.yaml: want exit 2 and the line\n%s", r)
			}
		}

		ws.write("ckpt.yaml", "ignore: ['*.log']\n")
		if got := ws.uncovered("c3", "again.bin", 100); len(got) != 0 {
			t.Errorf("back to the default max_file_size: uncovered %q", got)
		}
		ws.ckptOK("run", "end", "--session", "s", "--run", "r")
		ws.write("x.log", "ignored now\n")
		ws.write("b.txt", "b\n")
		var s statusConfigJSON
		ws.ckptJSON(&s, "status")
		if s.Daemon.ConfigError != "" {
			t.Errorf("config_error %q after a valid ckpt.yaml", s.Daemon.ConfigError)
		}
		assertChanges(t, "status after ignore: ['*.log']", s.Changes, want("added b.txt"))
		if m == daemon {
			if log := logTail(ws.daemon.log); !strings.Contains(log, "valid again") || !strings.Contains(log, "reloaded the workspace's configuration") {
				t.Errorf("the daemon's log does not report the reload:%s", log)
			}
		}
	})
}
