package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertBadInput runs the command twice, as text and with --json, and
// checks CONTRACT's bad input rule: exit 2, one line on stderr,
// {"error": ...} on stdout with --json, and nothing changed: not the
// workspace, not the checkpoints, not the current checkpoint, and nothing
// outside the workspace.
func (ws *workspace) assertBadInput(args ...string) {
	ws.t.Helper()
	tr, out := ws.tree(), ws.outsideTree()
	var log logJSON
	ws.ckptJSON(&log, "log")
	st := ws.status()

	r := ws.ckptResult(args...)
	if r.code != 2 {
		ws.t.Errorf("want exit 2 on bad input, got:\n%s", r)
	}
	if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 || strings.TrimSpace(lines[0]) == "" {
		ws.t.Errorf("want one line on stderr, got %d:\n%s", len(lines), r)
	}
	if r.stdout != "" {
		ws.t.Errorf("want nothing on stdout without --json, got:\n%s", r)
	}

	r = ws.ckptResult(append(args, "--json")...)
	if r.code != 2 {
		ws.t.Errorf("want exit 2 on bad input with --json, got:\n%s", r)
	}
	if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 || strings.TrimSpace(lines[0]) == "" {
		ws.t.Errorf("--json: want one line on stderr, got %d:\n%s", len(lines), r)
	}
	var e map[string]any
	if err := decodeOne(r.stdout, &e); err != nil {
		ws.t.Errorf("--json: %v:\n%s", err, r)
	} else if msg, ok := e["error"].(string); !ok || msg == "" || len(e) != 1 {
		ws.t.Errorf(`--json: want {"error": "..."} on stdout, got:%s`, r.stdout)
	}

	assertTree(ws.t, "the workspace after bad input", tr, ws.tree())
	assertTree(ws.t, "outside the workspace after bad input", out, ws.outsideTree())
	var log2 logJSON
	ws.ckptJSON(&log2, "log")
	if len(log2.Checkpoints) != len(log.Checkpoints) {
		ws.t.Errorf("bad input cut checkpoints: %d before, %d after", len(log.Checkpoints), len(log2.Checkpoints))
	}
	if st2 := ws.status(); st2.CurrentCheckpointID != st.CurrentCheckpointID {
		ws.t.Errorf("bad input moved the current checkpoint from %s to %s", st.CurrentCheckpointID, st2.CurrentCheckpointID)
	}
}

// TestBadInput is CONTRACT semantic 10 and the bad-input rule: every case
// exits 2, says so on one line, and changes nothing anywhere.
func TestBadInput(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("d/b.txt", "b\n")
		ws.write(filepath.Join("..", "outside", "file"), "outside\n")
		ws.start()
		var r1, r2 runDiffJSON
		var r1call checkpointJSON
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.ckptJSON(&r1call, "tool", "start", "--session", "s", "--run", "r1", "--call", "c1")
		ws.write("a.txt", "a by r1\n")
		ws.ckptOK("tool", "end", "--session", "s", "--run", "r1", "--call", "c1")
		ws.ckptJSON(&r1, "run", "end", "--session", "s", "--run", "r1")
		// The person's edit: r2's baseline is a drift rebase, not r1's end.
		ws.write("person.txt", "p\n")
		ws.ckptOK("run", "start", "--session", "s", "--run", "r2")
		ws.write("d/b.txt", "b by r2\n")
		ws.ckptJSON(&r2, "run", "end", "--session", "s", "--run", "r2")
		id := r1.PrevCheckpointID
		// Pending changes, so that a restore that wrongly went ahead would
		// show on disk.
		ws.write("a.txt", "a by the person\n")
		ws.write("new.txt", "new\n")

		cases := []struct {
			name string
			args []string
		}{
			{"unknown id: restore", []string{"restore", "ck999-deadbe", "--exact", "--yes"}},
			{"unknown id: show", []string{"show", "ck999-deadbe"}},
			{"unknown id: diff", []string{"diff", "ck999-deadbe"}},
			{"malformed id ../x: restore", []string{"restore", "../x", "--exact", "--yes"}},
			{"malformed id ../x: show", []string{"show", "../x"}},
			{"malformed id with a space: restore", []string{"restore", "a b", "--exact", "--yes"}},
			{"malformed id of 200 chars: restore", []string{"restore", strings.Repeat("a", 200), "--exact", "--yes"}},
			{"malformed id of 200 chars: diff", []string{"diff", id, strings.Repeat("b", 200)}},
			{"empty id: restore", []string{"restore", "", "--yes"}},
			{"empty id: show", []string{"show", ""}},
			{"empty id: diff ''", []string{"diff", ""}},
			{"empty id: diff '' ID", []string{"diff", "", id}},
			{"empty id: diff ID ''", []string{"diff", id, ""}},
			{"empty --checkpoint: diff --session --run", []string{"diff", "--session", "s", "--run", "r1", "--checkpoint", ""}},
			{"restore ../outside", []string{"restore", id, "../outside", "--exact", "--yes"}},
			{"restore ../outside/file", []string{"restore", id, "../outside/file", "--exact", "--yes"}},
			{"restore an absolute path outside", []string{"restore", id, filepath.Join(ws.outside, "file"), "--exact", "--yes"}},
			{"restore a path inside then one outside", []string{"restore", id, "a.txt", "/etc/passwd", "--exact", "--yes"}},
			{"unknown flag: status", []string{"status", "--bogus"}},
			{"unknown flag: restore", []string{"restore", id, "--bogus", "--yes"}},
			{"missing --session: run start", []string{"run", "start", "--run", "r9"}},
			{"missing --session: run end", []string{"run", "end", "--run", "r1"}},
			{"missing --session: tool start", []string{"tool", "start", "--run", "r9", "--call", "c1"}},
			{"missing --session: diff", []string{"diff", "--run", "r1"}},
			{"diff --checkpoint of another run: its end", []string{"diff", "--session", "s", "--run", "r2", "--checkpoint", r1.CheckpointID}},
			{"diff --checkpoint of another run: its pre_write", []string{"diff", "--session", "s", "--run", "r2", "--checkpoint", r1call.CheckpointID}},
			{"diff --checkpoint of a later run", []string{"diff", "--session", "s", "--run", "r1", "--checkpoint", r2.CheckpointID}},
			{"diff --checkpoint unknown", []string{"diff", "--session", "s", "--run", "r2", "--checkpoint", "ck999-deadbe"}},
		}
		for _, tc := range cases {
			parent := ws.t
			t.Run(tc.name, func(t *testing.T) {
				ws.t = t
				defer func() { ws.t = parent }()
				ws.assertBadInput(tc.args...)
			})
		}
	})
}

// TestRestoreThroughSymlinkOutside is CONTRACT semantics 10 and 14 against
// the disk: a directory of the checkpoint is now a symlink to a directory
// outside the workspace. A restore must write only inside the workspace
// (exit 0), or refuse the paths behind the symlink, list them and exit 1
// (here nothing else is to be restored: the workspace stays as it was);
// the outside directory stays byte for byte the same.
func TestRestoreThroughSymlinkOutside(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"exact", []string{"--exact"}},
		{"paths under the symlink", []string{"d/a", "d/c", "--exact"}},
		{"default scope after a run wrote there", nil},
	}
	bothModes(t, func(t *testing.T, m mode) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ws := newWorkspace(t, m)
				ws.write("d/a", "a inside\n")
				ws.write("d/b", "b inside\n")
				ws.write("other", "o\n")
				ws.start()
				var cp checkpointJSON
				ws.ckptJSON(&cp, "checkpoint")
				atID := ws.tree()
				ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
				ws.write("d/a", "a by the run\n")
				ws.write("d/c", "c by the run\n")
				ws.ckptOK("run", "end", "--session", "s", "--run", "r1")

				target := filepath.Join(ws.outside, "target")
				for name, content := range map[string]string{"a": "OUTSIDE a\n", "c": "OUTSIDE c\n", "z": "OUTSIDE z\n"} {
					if err := os.MkdirAll(target, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(target, name), []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				ws.rm("d")
				ws.symlink(target, "d")
				before, outside := ws.tree(), ws.outsideTree()

				r := ws.ckptResult(append([]string{"restore", cp.CheckpointID, "--yes", "--json"}, tc.args...)...)
				assertTree(t, "outside the workspace after the restore", outside, ws.outsideTree())
				switch r.code {
				case 0:
					got := ws.tree()
					if n := got["d"]; n.Kind != "dir" {
						t.Fatalf("restore succeeded but d is %s, not a directory inside the workspace\n%s", n, r)
					}
					if tc.args == nil || tc.args[0] == "--exact" {
						assertTree(t, "after restore --exact", atID, got)
					}
					var u restoreJSON
					ws.ckptJSON(&u, "undo", "--yes")
					assertTree(t, "after undo", before, ws.tree())
					assertTree(t, "outside the workspace after undo", outside, ws.outsideTree())
				case 1:
					assertTree(t, "the workspace after a refused restore", before, ws.tree())
					if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 {
						t.Errorf("refused restore: want one line on stderr:\n%s", r)
					}
					var res restoreOutcomeJSON
					if err := decodeOne(r.stdout, &res); err != nil {
						t.Fatalf("refused restore: %v\n%s", err, r)
					}
					if len(res.Refused) == 0 || res.Error == "" {
						t.Errorf("refused restore: want the refused paths listed and an error:\n%s", r)
					}
					for _, c := range res.Refused {
						if !strings.HasPrefix(c.Path, "d/") || c.Why == "" {
							t.Errorf("refused %s (%q): want only paths under the symlink d, each with why", c.Path, c.Why)
						}
					}
				default:
					t.Fatalf("restore through a symlink to outside: want exit 0 (written inside) or 1 (refused), got:\n%s", r)
				}
			})
		}
	})
}
