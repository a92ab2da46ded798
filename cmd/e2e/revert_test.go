package e2e

import (
	"maps"
	"slices"
	"testing"
)

// revertJSON is `ckpt revert --json`: a restore's fields plus conflicts.
type revertJSON struct {
	restoreJSON
	Conflicts []struct {
		Path       string `json:"path"`
		Kind       string `json:"kind"`
		By         string `json:"by"`
		SessionID  string `json:"session_id"`
		RunID      string `json:"run_id"`
		ToolCallID string `json:"tool_call_id"`
		Reason     string `json:"reason"`
	} `json:"conflicts"`
}

// conflicts renders a revert's conflicts as sorted "kind path by" lines.
func (r revertJSON) conflicts() []string {
	out := []string{}
	for _, c := range r.Conflicts {
		out = append(out, c.Kind+" "+c.Path+" "+c.By+":"+c.SessionID+"/"+c.RunID+"/"+c.ToolCallID)
	}
	slices.Sort(out)
	return out
}

func assertConflicts(t *testing.T, what string, r revertJSON, want ...string) {
	t.Helper()
	slices.Sort(want)
	if want == nil {
		want = []string{}
	}
	if got := r.conflicts(); !slices.Equal(got, want) {
		t.Fatalf("%s: conflicts\n  got  %s\n  want %s", what, fmtList(got), fmtList(want))
	}
	for _, c := range r.Conflicts {
		if c.Reason == "" {
			t.Errorf("%s: conflict %s has no reason", what, c.Path)
		}
	}
}

// twoRunsAndThePerson: run r1 changes a, b and c, adds new.txt and deletes
// gone.txt; then the person edits c and p; then run r2 changes b and d.
// It returns r1's run end and the trees before r1 and after r2.
func twoRunsAndThePerson(ws *workspace) (r1 runDiffJSON, before, after tree) {
	ws.t.Helper()
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt", "p.txt", "gone.txt"} {
		ws.write(f, f+" v0\n")
	}
	ws.start()
	before = ws.tree()
	ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
	ws.write("a.txt", "a by r1\n")
	ws.write("b.txt", "b by r1\n")
	ws.write("c.txt", "c by r1\n")
	ws.write("new.txt", "new by r1\n")
	ws.rm("gone.txt")
	ws.ckptJSON(&r1, "run", "end", "--session", "s", "--run", "r1")
	ws.write("c.txt", "c by the person\n")
	ws.write("p.txt", "p by the person\n")
	ws.ckptOK("run", "start", "--session", "s", "--run", "r2")
	ws.write("b.txt", "b by r2\n")
	ws.write("d.txt", "d by r2\n")
	ws.ckptOK("run", "end", "--session", "s", "--run", "r2")
	return r1, before, ws.tree()
}

// TestRevertRun is `ckpt revert --session --run`: the run's own paths go
// back to their state before it; a later run's and the person's changes
// stay; paths changed after the run are conflicts, left alone unless
// --force; every revert is undoable, and one that changes nothing cuts no
// guard.
func TestRevertRun(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		r1, before, after := twoRunsAndThePerson(ws)
		revert := []string{"revert", "--session", "s", "--run", "r1"}

		var logBefore, logAfter logJSON
		ws.ckptJSON(&logBefore, "log")
		var dry revertJSON
		ws.ckptJSON(&dry, append(revert, "--dry-run")...)
		if ws.ckptJSON(&logAfter, "log"); len(logAfter.Checkpoints) != len(logBefore.Checkpoints) {
			t.Errorf("revert --dry-run cut a checkpoint")
		}
		assertTree(t, "after revert --dry-run", after, ws.tree())
		if !dry.DryRun || dry.GuardCheckpointID != "" {
			t.Errorf("revert --dry-run: dry_run %v, guard %q", dry.DryRun, dry.GuardCheckpointID)
		}
		assertChanges(t, "revert --dry-run: restored", dry.Restored, want("modified a.txt", "deleted new.txt", "added gone.txt"))

		var r revertJSON
		ws.ckptJSON(&r, append(revert, "--yes")...)
		assertChanges(t, "revert: restored", r.Restored, want("modified a.txt", "deleted new.txt", "added gone.txt"))
		assertConflicts(t, "revert", r, "modified b.txt run:s/r2/", "modified c.txt person://")
		if r.GuardCheckpointID == "" || r.CheckpointID != r1.PrevCheckpointID {
			t.Errorf("revert: guard %q, checkpoint_id %q (want r1's baseline %s)", r.GuardCheckpointID, r.CheckpointID, r1.PrevCheckpointID)
		}
		wantTree := maps.Clone(after)
		wantTree["a.txt"], wantTree["gone.txt"] = before["a.txt"], before["gone.txt"]
		delete(wantTree, "new.txt")
		assertTree(t, "after revert of r1", wantTree, ws.tree())
		var guard showJSON
		if ws.ckptJSON(&guard, "show", r.GuardCheckpointID); guard.Reason != "pre_restore_guard" {
			t.Errorf("revert's guard has reason %q", guard.Reason)
		}

		// Nothing left to revert: no guard, no checkpoint.
		ws.ckptJSON(&logBefore, "log")
		var again revertJSON
		ws.ckptJSON(&again, append(revert, "--yes")...)
		if len(again.Restored) != 0 || again.GuardCheckpointID != "" {
			t.Errorf("second revert: restored %v, guard %q; want nothing and no guard", kinds(again.Restored), again.GuardCheckpointID)
		}
		if ws.ckptJSON(&logAfter, "log"); len(logAfter.Checkpoints) != len(logBefore.Checkpoints) {
			t.Errorf("a revert that changed nothing cut a checkpoint")
		}

		var u restoreJSON
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of the revert", after, ws.tree())

		var f revertJSON
		ws.ckptJSON(&f, append(revert, "--force", "--yes")...)
		assertChanges(t, "revert --force: restored", f.Restored,
			want("modified a.txt", "modified b.txt", "modified c.txt", "deleted new.txt", "added gone.txt"))
		assertConflicts(t, "revert --force", f, "modified b.txt run:s/r2/", "modified c.txt person://")
		wantTree = maps.Clone(after)
		for _, p := range []string{"a.txt", "b.txt", "c.txt", "gone.txt"} {
			wantTree[p] = before[p]
		}
		delete(wantTree, "new.txt")
		assertTree(t, "after revert --force of r1", wantTree, ws.tree())
		ws.ckptJSON(&u, "undo", "--yes")
		assertTree(t, "after undo of revert --force", after, ws.tree())
	})
}

// TestRevertToolCall is `ckpt revert --call`: only that tool call's
// changes go back; the run's other calls stay, and a path a later call
// changed again is a conflict. A call of a run that is still open can be
// reverted once the call has ended.
func TestRevertToolCall(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a v0\n")
		ws.write("b.txt", "b v0\n")
		ws.start()
		before := ws.tree()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.ckptOK("exec", "--session", "s", "--run", "r1", "--call", "t1", "--", "sh", "-c", "echo a by t1 > a.txt; echo x > x.txt")
		ws.ckptOK("exec", "--session", "s", "--run", "r1", "--call", "t2", "--", "sh", "-c", "echo b by t2 > b.txt")
		ws.ckptOK("exec", "--session", "s", "--run", "r1", "--call", "t3", "--", "sh", "-c", "echo a by t3 > a.txt")
		after := ws.tree()

		var r revertJSON
		ws.ckptJSON(&r, "revert", "--session", "s", "--run", "r1", "--call", "t2", "--yes")
		assertChanges(t, "revert --call t2 (run open)", r.Restored, want("modified b.txt"))
		assertConflicts(t, "revert --call t2", r)
		wantTree := maps.Clone(after)
		wantTree["b.txt"] = before["b.txt"]
		assertTree(t, "after revert --call t2", wantTree, ws.tree())
		ws.ckptOK("undo", "--yes")
		assertTree(t, "after undo of revert --call t2", after, ws.tree())
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")

		ws.ckptJSON(&r, "revert", "--session", "s", "--run", "r1", "--call", "t1", "--yes")
		assertChanges(t, "revert --call t1", r.Restored, want("deleted x.txt"))
		assertConflicts(t, "revert --call t1", r, "modified a.txt tool:s/r1/t3")
		wantTree = maps.Clone(after)
		delete(wantTree, "x.txt")
		assertTree(t, "after revert --call t1", wantTree, ws.tree())
		ws.ckptOK("undo", "--yes")
		assertTree(t, "after undo of revert --call t1", after, ws.tree())
	})
}

// TestRevertBadInput: an unknown session, run or call, a run or call
// still open, and missing flags exit 2 and change nothing.
func TestRevertBadInput(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.write("a.txt", "a by r1\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.ckptOK("run", "start", "--session", "s", "--run", "open")
		ws.ckptOK("tool", "start", "--session", "s", "--run", "open", "--call", "c1")
		ws.write("a.txt", "a by the open run\n")
		cases := []struct {
			name string
			args []string
		}{
			{"unknown session", []string{"revert", "--session", "nope", "--run", "r1", "--yes"}},
			{"unknown run", []string{"revert", "--session", "s", "--run", "nope", "--yes"}},
			{"unknown call", []string{"revert", "--session", "s", "--run", "r1", "--call", "nope", "--yes"}},
			{"open run", []string{"revert", "--session", "s", "--run", "open", "--yes"}},
			{"open call", []string{"revert", "--session", "s", "--run", "open", "--call", "c1", "--yes"}},
			{"missing --run", []string{"revert", "--session", "s", "--yes"}},
			{"an argument", []string{"revert", "--session", "s", "--run", "r1", "extra", "--yes"}},
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

// TestRevertFailedPathJSON: a path the revert cannot write (a file now
// stands where its directory was) fails that path only; with --json the
// result, naming the error, is the one object on stdout, and the exit
// code is 1.
func TestRevertFailedPathJSON(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("d/x.txt", "x\n")
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
		ws.rm("d")
		ws.write("a.txt", "a by r1\n")
		ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
		ws.write("d", "a file where the directory was\n")

		res := ws.ckptResult("revert", "--session", "s", "--run", "r1", "--yes", "--json")
		var r revertJSON
		if err := decodeOne(res.stdout, &r); err != nil {
			t.Fatalf("%v\n%s", err, res)
		}
		if res.code != 1 {
			t.Errorf("want exit 1 when a path failed:\n%s", res)
		}
		var withErrors struct {
			Restored []struct {
				Path  string `json:"path"`
				Error string `json:"error"`
			} `json:"restored"`
		}
		if err := decodeOne(res.stdout, &withErrors); err != nil {
			t.Fatal(err)
		}
		failed := ""
		for _, c := range withErrors.Restored {
			if c.Path == "d/x.txt" {
				failed = c.Error
			}
		}
		if failed == "" || r.GuardCheckpointID == "" {
			t.Fatalf("revert: restored %v, guard %q; want d/x.txt listed with its error, and a guard", kinds(r.Restored), r.GuardCheckpointID)
		}
		if got := ws.read("a.txt"); got != "a\n" {
			t.Errorf("a.txt after the revert: %q, want it reverted although d/x.txt failed", got)
		}
	})
}
