package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// restoreOutcomeJSON is a restore's one JSON object with the fields a
// restore that could not do everything adds.
type restoreOutcomeJSON struct {
	restoreJSON
	Restored []struct {
		Path  string `json:"path"`
		Kind  string `json:"kind"`
		Error string `json:"error"`
	} `json:"restored"`
	Refused []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
		Why  string `json:"why"`
	} `json:"refused"`
	Error string `json:"error"`
}

// logLen is how many checkpoints the workspace has.
func (ws *workspace) logLen() int {
	ws.t.Helper()
	var l logJSON
	ws.ckptJSON(&l, "log")
	return len(l.Checkpoints)
}

// TestRestoreNamedPathsWhoeverChanged is CONTRACT semantic 14: a named
// path is restored also when only the person changed it (as git checkout
// ID -- PATH does), guarded and undoable; without paths the person's edits
// are kept.
func TestRestoreNamedPathsWhoeverChanged(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("agent.txt", "a1\n")
		ws.write("notes/person.txt", "p1\n")
		ws.write("notes/other.txt", "o1\n")
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		atID := ws.tree()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("agent.txt", "a2 by the agent\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.write("notes/person.txt", "p2 by the person\n")
		ws.write("notes/other.txt", "o2 by the person\n")
		ws.write("notes/new.txt", "new by the person\n")
		before := ws.tree()

		// Without paths, the default scope keeps the person's edits.
		var all restoreJSON
		ws.ckptJSON(&all, "restore", cp.CheckpointID, "--dry-run")
		assertChanges(t, "restore ID --dry-run (default scope)", all.Restored, want("modified agent.txt"))

		var r restoreJSON
		ws.ckptJSON(&r, "restore", cp.CheckpointID, "notes/person.txt", "notes/new.txt", "--yes")
		assertChanges(t, "restore ID PATH... of paths only the person changed", r.Restored,
			want("modified notes/person.txt", "deleted notes/new.txt"))
		if len(r.Kept) != 0 || r.GuardCheckpointID == "" {
			t.Errorf("restore ID PATH...: kept %v, guard %q; want nothing kept and a guard", r.Kept, r.GuardCheckpointID)
		}
		wantTree := maps.Clone(before)
		wantTree["notes/person.txt"] = atID["notes/person.txt"]
		delete(wantTree, "notes/new.txt")
		assertTree(t, "after restore ID notes/person.txt notes/new.txt", wantTree, ws.tree())

		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of restore ID PATH...", before, ws.tree())

		// A directory named is every path under it, whoever changed it.
		var d restoreJSON
		ws.ckptJSON(&d, "restore", cp.CheckpointID, "notes", "--yes")
		assertChanges(t, "restore ID DIR", d.Restored,
			want("modified notes/person.txt", "modified notes/other.txt", "deleted notes/new.txt"))
		wantTree = maps.Clone(atID)
		wantTree["agent.txt"] = before["agent.txt"]
		assertTree(t, "after restore ID notes", wantTree, ws.tree())
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of restore ID notes", before, ws.tree())
	})
}

// TestRestoreThatChangesNothing: a restore (or undo) with nothing to write
// cuts no guard, prints no "undo with", and leaves undo pointing at the
// last restore that changed something.
func TestRestoreThatChangesNothing(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("agent.txt", "a1\n")
		ws.write("person.txt", "p1\n")
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("agent.txt", "a2 by the agent\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		beforeRestore := ws.tree()

		var real restoreJSON
		ws.ckptJSON(&real, "restore", cp.CheckpointID, "--yes")
		assertChanges(t, "the restore that changes something", real.Restored, want("modified agent.txt"))
		if real.GuardCheckpointID == "" {
			t.Fatalf("a restore that changed agent.txt cut no guard")
		}
		ws.write("person.txt", "p2 by the person\n")
		afterRestore := ws.tree()
		n := ws.logLen()
		st := ws.status()

		noop := [][]string{
			{"restore", cp.CheckpointID, "--yes"},              // only the person's edit: kept
			{"restore", cp.CheckpointID, "agent.txt", "--yes"}, // already as at the checkpoint
		}
		for _, args := range noop {
			var r restoreJSON
			ws.ckptJSON(&r, args...)
			if r.GuardCheckpointID != "" || len(r.Restored) != 0 {
				t.Errorf("ckpt %s changed nothing but reports guard %q, restored %v", strings.Join(args, " "), r.GuardCheckpointID, kinds(r.Restored))
			}
			out := ws.ckptOK(args...)
			if strings.Contains(out, "undo with") || strings.Contains(out, "guard checkpoint ck") {
				t.Errorf("ckpt %s changed nothing but prints:\n%s", strings.Join(args, " "), out)
			}
			assertTree(t, "after ckpt "+strings.Join(args, " "), afterRestore, ws.tree())
		}
		if got := ws.logLen(); got != n {
			t.Errorf("restores that changed nothing cut %d checkpoints", got-n)
		}
		if st2 := ws.status(); st2.CurrentCheckpointID != st.CurrentCheckpointID {
			t.Errorf("a restore that changed nothing moved the current checkpoint from %s to %s", st.CurrentCheckpointID, st2.CurrentCheckpointID)
		}

		// undo still undoes the restore that changed agent.txt.
		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertChanges(t, "undo after restores that changed nothing", u.Restored, want("modified agent.txt", "modified person.txt"))
		assertTree(t, "after undo", beforeRestore, ws.tree())

		// An undo with nothing to do: the person put agent.txt back as the
		// undo's guard had it.
		ws.write("agent.txt", afterRestore["agent.txt"].Content)
		ws.write("person.txt", afterRestore["person.txt"].Content)
		n = ws.logLen()
		var redo restoreJSON
		ws.ckptJSON(&redo, "undo", "--yes")
		if len(redo.Restored) != 0 || redo.GuardCheckpointID != "" || ws.logLen() != n {
			t.Errorf("undo with nothing to do: restored %v, guard %q, %d new checkpoints; want nothing and no guard",
				kinds(redo.Restored), redo.GuardCheckpointID, ws.logLen()-n)
		}
	})
}

// setupRefusal makes a workspace where a run changed a.txt, d/f and
// keep/g after the checkpoint, and the person then replaced the directory
// d by a symlink to a directory outside the workspace: d/f cannot be
// restored safely, the others can.
func setupRefusal(ws *workspace) (cp checkpointJSON, atID tree) {
	ws.t.Helper()
	ws.write("a.txt", "a1\n")
	ws.write("d/f", "f1\n")
	ws.write("keep/g", "g1\n")
	ws.start()
	ws.ckptJSON(&cp, "checkpoint")
	atID = ws.tree()
	ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
	ws.write("a.txt", "a2 by the run\n")
	ws.write("d/f", "f2 by the run\n")
	ws.write("keep/g", "g2 by the run\n")
	ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
	target := filepath.Join(ws.outside, "elsewhere")
	if err := os.MkdirAll(target, 0o755); err != nil {
		ws.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "f"), []byte("OUTSIDE f\n"), 0o644); err != nil {
		ws.t.Fatal(err)
	}
	ws.rm("d")
	ws.symlink(target, "d")
	return cp, atID
}

// TestRestoreRefusesOnlyUnsafePaths is CONTRACT semantic 14: a path that
// lies behind the person's symlink is refused and listed with why; every
// other path is restored, guarded and undoable; ckpt exits 1 with exactly
// one JSON object.
func TestRestoreRefusesOnlyUnsafePaths(t *testing.T) {
	for _, scope := range [][]string{nil, {"a.txt", "d/f", "keep"}} {
		name := "default scope"
		if scope != nil {
			name = "named paths"
		}
		t.Run(name, func(t *testing.T) {
			bothModes(t, func(t *testing.T, m mode) {
				ws := newWorkspace(t, m)
				cp, atID := setupRefusal(ws)
				before, outside := ws.tree(), ws.outsideTree()
				args := append([]string{"restore", cp.CheckpointID}, scope...)

				dry := ws.ckptResult(append(args, "--dry-run")...)
				if dry.code != 1 || !strings.Contains(dry.stdout, "refused") || !strings.Contains(dry.stdout, "d/f") {
					t.Errorf("restore --dry-run with a refused path: want exit 1 and d/f listed as refused:\n%s", dry)
				}
				assertTree(t, "after restore --dry-run", before, ws.tree())

				r := ws.ckptResult(append(args, "--yes", "--json")...)
				var res restoreOutcomeJSON
				if err := decodeOne(r.stdout, &res); err != nil {
					t.Fatalf("restore with a refused path: %v\n%s", err, r)
				}
				if r.code != 1 {
					t.Errorf("restore with a refused path: want exit 1, got\n%s", r)
				}
				if lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(r.stderr, "d/f") {
					t.Errorf("restore with a refused path: want one line on stderr naming d/f:\n%s", r)
				}
				if len(res.Refused) != 1 || res.Refused[0].Path != "d/f" || !strings.Contains(res.Refused[0].Why, "symlink d") {
					t.Errorf("restore: refused %+v; want d/f, because of the symlink d", res.Refused)
				}
				if res.Error == "" || res.GuardCheckpointID == "" {
					t.Errorf("restore with a refused path: error %q, guard %q; want both", res.Error, res.GuardCheckpointID)
				}
				var restored []string
				for _, c := range res.Restored {
					restored = append(restored, c.Kind+" "+c.Path)
				}
				if got := want(restored...); strings.Join(got, ",") != "modified a.txt,modified keep/g" {
					t.Errorf("restore with a refused path: restored %s, want a.txt and keep/g", fmtList(got))
				}
				wantTree := maps.Clone(before)
				wantTree["a.txt"], wantTree["keep/g"] = atID["a.txt"], atID["keep/g"]
				assertTree(t, "after a restore that refused d/f", wantTree, ws.tree())
				assertTree(t, "outside the workspace", outside, ws.outsideTree())

				var u restoreJSON
				ws.ckptJSON(&u, "undo", "--yes")
				assertTree(t, "after undo of a restore that refused d/f", before, ws.tree())
				assertTree(t, "outside the workspace after undo", outside, ws.outsideTree())
			})
		})
	}
}

// TestRestoreJSONOneObjectOnFailure: a restore that could not write a path
// (a directory of the person's files stands where a file goes back) exits
// 1 with exactly one JSON object, which names the failure.
func TestRestoreJSONOneObjectOnFailure(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a1\n")
		ws.write("x", "x1\n")
		ws.start()
		var cp checkpointJSON
		ws.ckptJSON(&cp, "checkpoint")
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("a.txt", "a2 by the run\n")
		ws.rm("x")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.write("x/mine", "the person's\n")

		r := ws.ckptResult("restore", cp.CheckpointID, "--yes", "--json")
		var res restoreOutcomeJSON
		if err := decodeOne(r.stdout, &res); err != nil {
			t.Fatalf("restore --json with a failed path: %v\n%s", err, r)
		}
		if r.code != 1 || res.Error == "" || !strings.Contains(res.Error, "x") {
			t.Errorf("restore --json with a failed path: want exit 1 and error naming x:\n%s", r)
		}
		failed := false
		for _, c := range res.Restored {
			failed = failed || (c.Path == "x" && c.Error != "")
		}
		if !failed {
			t.Errorf("restore --json: restored %+v; want x with its error", res.Restored)
		}
		if ws.read("a.txt") != "a1\n" || ws.read("x/mine") != "the person's\n" {
			t.Errorf("restore with a failed path: a.txt %q, x/mine %q; want a.txt restored, x/mine kept", ws.read("a.txt"), ws.read("x/mine"))
		}
	})
}
