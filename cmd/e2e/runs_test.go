package e2e

import (
	"maps"
	"slices"
	"testing"
)

// TestRunDriftRebase walks the runtime acceptance list for runs (CONTRACT
// semantics 2, 3, 4, 5, 7): the person's edits between two runs are drift
// at the next run start, which re-anchors the baseline on a
// pre_run_drift_rebase checkpoint; the run's diff is persisted (also across
// a daemon restart) and never holds the person's drift; a default restore
// reverts only the run's paths, --exact restores exactly the checkpoint,
// and every restore moves the current checkpoint to its target.
func TestRunDriftRebase(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		for _, f := range []string{"keep.txt", "edit.txt", "del.txt", "agent.txt", "r2del.txt"} {
			ws.write(f, f+" v1\n")
		}
		ws.start()

		// Run 1, with nothing changed since the initial checkpoint: the
		// baseline is that checkpoint, no drift.
		initial := ws.status().CurrentCheckpointID
		var s1 runStartJSON
		ws.ckptJSON(&s1, "run", "start", "--session", "s", "--run", "r1")
		if s1.WorkspaceDrifted || s1.PrevCheckpointID != initial || len(s1.Drift) > 0 || s1.Warning != "" {
			t.Errorf("run start without drift: got %+v, want prev_checkpoint_id %s, no drift, no warning", s1, initial)
		}
		ws.write("agent.txt", "agent.txt by r1\n")
		var e1 runDiffJSON
		ws.ckptJSON(&e1, "run", "end", "--session", "s", "--run", "r1")
		assertChanges(t, "run end r1", e1.Files, want("modified agent.txt"))
		if st := ws.status(); st.CurrentCheckpointID != e1.CheckpointID || st.Drifted {
			t.Errorf("after run end: current %s (want the end checkpoint %s), drifted %v", st.CurrentCheckpointID, e1.CheckpointID, st.Drifted)
		}

		// (1) The person adds, modifies and deletes between the runs.
		ws.write("person-new.txt", "mine\n")
		ws.write("edit.txt", "edit.txt by the person\n")
		ws.rm("del.txt")
		personDrift := want("added person-new.txt", "modified edit.txt", "deleted del.txt")
		var s2 runStartJSON
		ws.ckptJSON(&s2, "run", "start", "--session", "s", "--run", "r2")
		if !s2.WorkspaceDrifted || s2.Warning == "" {
			t.Errorf("run start after the person's edits: workspace_drifted %v, warning %q; want true and a warning", s2.WorkspaceDrifted, s2.Warning)
		}
		assertChanges(t, "run start r2: drift", s2.Drift, personDrift)
		// (2), (3) A pre_run_drift_rebase checkpoint is the baseline.
		rebase := s2.PrevCheckpointID
		if rebase == "" || rebase == e1.CheckpointID {
			t.Fatalf("run start r2: prev_checkpoint_id %q, want a new checkpoint (not r1's end %s)", rebase, e1.CheckpointID)
		}
		var show showJSON
		ws.ckptJSON(&show, "show", rebase)
		if show.Reason != "pre_run_drift_rebase" {
			t.Errorf("ckpt show %s: reason %q, want pre_run_drift_rebase", rebase, show.Reason)
		}
		if st := ws.status(); st.CurrentCheckpointID != rebase || st.Drifted {
			t.Errorf("after run start: current %s (want the baseline %s), drifted %v", st.CurrentCheckpointID, rebase, st.Drifted)
		}
		atRebase := ws.tree()

		ws.write("agent.txt", "agent.txt by r2\n")
		ws.write("agent2.txt", "new by r2\n")
		ws.rm("r2del.txt")
		runFiles := want("modified agent.txt", "added agent2.txt", "deleted r2del.txt")
		var e2 runDiffJSON
		ws.ckptJSON(&e2, "run", "end", "--session", "s", "--run", "r2")
		atEnd := ws.tree()

		// (4) The run's diff, now and after a daemon restart, is the same
		// and never holds the person's drift.
		check := func(what string, d runDiffJSON) {
			t.Helper()
			if d.PrevCheckpointID != rebase || !d.WorkspaceDrifted || d.CheckpointID != e2.CheckpointID {
				t.Errorf("%s: prev_checkpoint_id %s, workspace_drifted %v, checkpoint_id %s; want %s, true, %s",
					what, d.PrevCheckpointID, d.WorkspaceDrifted, d.CheckpointID, rebase, e2.CheckpointID)
			}
			assertChanges(t, what, d.Files, runFiles)
			for _, f := range d.Files {
				if f.CheckpointID == "" {
					t.Errorf("%s: %s has no checkpoint_id to roll back to", what, f.Path)
				}
			}
		}
		check("run end r2", e2)
		var d runDiffJSON
		ws.ckptJSON(&d, "diff", "--session", "s", "--run", "r2")
		check("diff --session s --run r2", d)
		if m == daemon {
			ws.restartDaemon()
			var d2 runDiffJSON
			ws.ckptJSON(&d2, "diff", "--session", "s", "--run", "r2")
			check("diff --session s --run r2 after a daemon restart", d2)
		}
		// (6) A checkpoint of another run is bad input.
		if r := ws.ckptResult("diff", "--session", "s", "--run", "r2", "--checkpoint", e1.CheckpointID, "--json"); r.code != 2 {
			t.Errorf("diff of r2 --checkpoint r1's end: want exit 2, got\n%s", r)
		}

		// (7) The person edits unrelated files after the run; a default
		// restore to the baseline reverts only the run's paths.
		ws.write("notes.txt", "my notes\n")
		ws.write("keep.txt", "keep.txt by the person\n")
		afterPerson := ws.tree()
		var r restoreJSON
		ws.ckptJSON(&r, "restore", rebase, "--yes")
		assertChanges(t, "restore to the drift rebase: restored", r.Restored,
			want("modified agent.txt", "deleted agent2.txt", "added r2del.txt"))
		var kept []change
		for _, k := range r.Kept {
			kept = append(kept, change{Path: k.Path, Kind: k.Kind})
		}
		assertChanges(t, "restore to the drift rebase: kept", kept, want("added notes.txt", "modified keep.txt"))
		if r.GuardCheckpointID == "" {
			t.Errorf("restore: no guard_checkpoint_id")
		}
		wantTree := maps.Clone(atRebase)
		wantTree["notes.txt"] = afterPerson["notes.txt"]
		wantTree["keep.txt"] = afterPerson["keep.txt"]
		assertTree(t, "after the default restore", wantTree, ws.tree())
		// (9) The target is the current checkpoint; kept files are drift.
		st := ws.status()
		if st.CurrentCheckpointID != rebase || !st.Drifted {
			t.Errorf("after restore: current %s (want %s), drifted %v (want true)", st.CurrentCheckpointID, rebase, st.Drifted)
		}
		assertChanges(t, "status after restore", st.Changes, want("added notes.txt", "modified keep.txt"))

		// (8) --exact restores exactly the checkpoint: the run's end, then
		// the baseline.
		ws.ckptJSON(&r, "restore", e2.CheckpointID, "--exact", "--yes")
		assertTree(t, "after restore --exact to the run's end", atEnd, ws.tree())
		if st := ws.status(); st.CurrentCheckpointID != e2.CheckpointID || st.Drifted {
			t.Errorf("after restore --exact: current %s (want %s), drifted %v", st.CurrentCheckpointID, e2.CheckpointID, st.Drifted)
		}
		ws.ckptJSON(&r, "restore", rebase, "--exact", "--yes")
		assertTree(t, "after restore --exact to the baseline", atRebase, ws.tree())
		if st := ws.status(); st.CurrentCheckpointID != rebase || st.Drifted {
			t.Errorf("after restore --exact: current %s (want %s), drifted %v", st.CurrentCheckpointID, rebase, st.Drifted)
		}
	})
}

// TestRunWithoutBaseline is CONTRACT semantic 4: a run whose start was
// never recorded still gets a diff, with a warning.
func TestRunWithoutBaseline(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()

		// Tool calls of a run never started.
		var cp checkpointJSON
		ws.ckptJSON(&cp, "tool", "start", "--session", "s", "--run", "ghost", "--call", "c1")
		ws.write("ghost.txt", "ghost\n")
		var te toolEndJSON
		ws.ckptJSON(&te, "tool", "end", "--session", "s", "--run", "ghost", "--call", "c1")
		assertChanges(t, "tool end of a run never started", te.Changes, want("added ghost.txt"))
		var d runDiffJSON
		ws.ckptJSON(&d, "diff", "--session", "s", "--run", "ghost")
		if d.Warning == "" || d.PrevCheckpointID == "" {
			t.Errorf("diff of a run never started: warning %q, prev_checkpoint_id %q; want both", d.Warning, d.PrevCheckpointID)
		}
		if !slices.Contains(paths(d.Files), "ghost.txt") {
			t.Errorf("diff of a run never started: files %s, want ghost.txt among them", fmtList(kinds(d.Files)))
		}
		var e runDiffJSON
		ws.ckptJSON(&e, "run", "end", "--session", "s", "--run", "ghost")
		if e.Warning == "" {
			t.Errorf("run end of a run never started: no warning")
		}

		// A diff of a run nobody ever mentioned.
		var n runDiffJSON
		ws.ckptJSON(&n, "diff", "--session", "s", "--run", "never")
		if n.Warning == "" || n.PrevCheckpointID == "" {
			t.Errorf("diff of an unknown run: warning %q, prev_checkpoint_id %q; want both", n.Warning, n.PrevCheckpointID)
		}
	})
}

// TestRunWithoutBaselineKeepsItsWarning is CONTRACT semantic 4 after run
// end: the record run end makes of a run that had no baseline is not a
// recorded baseline, so every later diff of the run (also after a daemon
// restart) repeats the warning, from the same checkpoint.
func TestRunWithoutBaselineKeepsItsWarning(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.start()
		ws.ckptOK("tool", "start", "--session", "s", "--run", "ghost", "--call", "c1")
		ws.write("ghost.txt", "ghost\n")
		ws.ckptOK("tool", "end", "--session", "s", "--run", "ghost", "--call", "c1")
		var end runDiffJSON
		ws.ckptJSON(&end, "run", "end", "--session", "s", "--run", "ghost")
		if end.Warning == "" || end.PrevCheckpointID == "" {
			t.Fatalf("run end of a run never started: warning %q, prev_checkpoint_id %q; want both", end.Warning, end.PrevCheckpointID)
		}
		check := func(when string) {
			t.Helper()
			var d runDiffJSON
			ws.ckptJSON(&d, "diff", "--session", "s", "--run", "ghost")
			if d.Warning != end.Warning || d.PrevCheckpointID != end.PrevCheckpointID || d.CheckpointID != end.CheckpointID {
				t.Errorf("diff of the run %s: warning %q, %s -> %s; want run end's warning %q, %s -> %s",
					when, d.Warning, d.PrevCheckpointID, d.CheckpointID, end.Warning, end.PrevCheckpointID, end.CheckpointID)
			}
			assertChanges(t, "diff of the run "+when, d.Files, kinds(end.Files))
		}
		check("after run end")
		var again runDiffJSON
		ws.ckptJSON(&again, "run", "end", "--session", "s", "--run", "ghost")
		if again.Warning != end.Warning {
			t.Errorf("run end again: warning %q, want %q", again.Warning, end.Warning)
		}
		if m == daemon {
			ws.restartDaemon()
			check("after a daemon restart")
		}
	})
}

// TestRunStartDrift is CONTRACT semantic 2 in the cases the walk above
// does not cover: the person's edits before the very first run, and edits
// made while no daemon ran (in embedded mode there never is one).
func TestRunStartDrift(t *testing.T) {
	edit := func(ws *workspace) []string {
		ws.write("new.txt", "new\n")
		ws.write("mod.txt", "modified\n")
		ws.rm("del.txt")
		return want("added new.txt", "modified mod.txt", "deleted del.txt")
	}
	check := func(t *testing.T, ws *workspace, s runStartJSON, drift []string) {
		t.Helper()
		if !s.WorkspaceDrifted || s.Warning == "" {
			t.Errorf("run start: workspace_drifted %v, warning %q; want true and a warning", s.WorkspaceDrifted, s.Warning)
		}
		assertChanges(t, "run start: drift", s.Drift, drift)
		var show showJSON
		ws.ckptJSON(&show, "show", s.PrevCheckpointID)
		if show.Reason != "pre_run_drift_rebase" {
			t.Errorf("run start: the baseline %s has reason %q, want pre_run_drift_rebase", s.PrevCheckpointID, show.Reason)
		}
	}
	setup := func(ws *workspace) {
		ws.write("mod.txt", "original\n")
		ws.write("del.txt", "delete me\n")
		ws.start()
	}
	bothModes(t, func(t *testing.T, m mode) {
		t.Run("before the first run", func(t *testing.T) {
			ws := newWorkspace(t, m)
			setup(ws)
			drift := edit(ws)
			var s runStartJSON
			ws.ckptJSON(&s, "run", "start", "--session", "s", "--run", "r1")
			check(t, ws, s, drift)
		})
		t.Run("while no daemon ran", func(t *testing.T) {
			ws := newWorkspace(t, m)
			setup(ws)
			ws.ckptOK("run", "start", "--session", "s", "--run", "r1")
			ws.ckptOK("run", "end", "--session", "s", "--run", "r1")
			if m == daemon {
				ws.stopDaemon()
			}
			drift := edit(ws)
			if m == daemon {
				ws.startDaemon()
			}
			var s runStartJSON
			ws.ckptJSON(&s, "run", "start", "--session", "s", "--run", "r2")
			check(t, ws, s, drift)
		})
	})
}
