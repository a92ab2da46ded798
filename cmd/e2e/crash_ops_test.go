package e2e

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// booked is what a workspace's bookkeeping looks like from outside, in
// terms that do not depend on random checkpoint ids: compared before an
// operation, after a crash in it and after the next open, it tells "not
// started" from "complete" from anything in between.
type booked struct {
	Log         []string // each checkpoint's reason and owner, oldest first
	Current     int      // the current checkpoint's place in Log
	LastRun     string   // the last run, with its checkpoints as places in Log
	LastRestore string   // the last restore, likewise
	Run, Call   string   // run s/r1 and its call c1: "none", "open" or "ended"
	Tree        string   // the workspace on disk
}

type bookStatusJSON struct {
	CurrentCheckpointID string `json:"current_checkpoint_id"`
	LastRun             *struct {
		SessionID        string `json:"session_id"`
		RunID            string `json:"run_id"`
		BaselineID       string `json:"prev_checkpoint_id"`
		EndID            string `json:"checkpoint_id"`
		Open             bool   `json:"open"`
		WorkspaceDrifted bool   `json:"workspace_drifted"`
	} `json:"last_run"`
	LastRestore *struct {
		CheckpointID      string `json:"checkpoint_id"`
		GuardCheckpointID string `json:"guard_checkpoint_id"`
	} `json:"last_restore"`
}

func (ws *workspace) booked() booked {
	ws.t.Helper()
	var l logJSON
	ws.ckptJSON(&l, "log")
	var st bookStatusJSON
	ws.ckptJSON(&st, "status")
	place := map[string]int{"": -1}
	var b booked
	for i := range l.Checkpoints {
		cp := l.Checkpoints[len(l.Checkpoints)-1-i]
		place[cp.CheckpointID] = i
		b.Log = append(b.Log, fmt.Sprintf("%s %s/%s", cp.Reason, cp.SessionID, cp.RunID))
	}
	b.Current = place[st.CurrentCheckpointID]
	if r := st.LastRun; r != nil {
		b.LastRun = fmt.Sprintf("%s/%s open=%v drifted=%v baseline=%d end=%d", r.SessionID, r.RunID, r.Open, r.WorkspaceDrifted, place[r.BaselineID], place[r.EndID])
	}
	if r := st.LastRestore; r != nil {
		b.LastRestore = fmt.Sprintf("target=%d guard=%d", place[r.CheckpointID], place[r.GuardCheckpointID])
	}
	b.Run = ws.openness("--session", "s", "--run", "r1")
	b.Call = ws.openness("--session", "s", "--run", "r1", "--call", "c1")
	b.Tree = fmt.Sprint(ws.tree())
	return b
}

// openness says whether a run (or tool call) is unknown, open or ended,
// by asking for a dry-run revert of it, which refuses an open one.
func (ws *workspace) openness(args ...string) string {
	ws.t.Helper()
	r := ws.ckptResult(append([]string{"revert", "--dry-run", "--json"}, args...)...)
	switch {
	case r.code == 0:
		return "ended"
	case strings.Contains(r.stderr, "still open"):
		return "open"
	case strings.Contains(r.stderr, "no run") || strings.Contains(r.stderr, "no tool call"):
		return "none"
	}
	ws.t.Fatalf("revert --dry-run %v:\n%s", args, r)
	return ""
}

// crashOp is one operation of the crash tests: what comes before it, its
// command, the crash points it passes and what a complete one leaves.
type crashOp struct {
	name  string
	setup func(ws *workspace)
	args  []string
	// steps: the crash points, each with whether the operation must be
	// complete after the next open (else not started).
	steps map[string]bool
	// again: the operation may be repeated once complete, changing
	// nothing (run and tool start and end); a restore is not repeated.
	again bool
	// check looks at the state the complete operation left (b), and what
	// the workspace does next.
	check func(t *testing.T, ws *workspace, before, b booked)
}

var updateSteps = map[string]bool{"commit": false, "committed": true}
var restoreSteps = map[string]bool{"commit": false, "intent": true, "staged": true, "applied": true}

// probeBy writes probe.txt and returns who its history says wrote it.
func (ws *workspace) probeBy(content string) string {
	ws.t.Helper()
	ws.write("probe.txt", content)
	ws.status()
	var h historyJSON
	ws.ckptJSON(&h, "history", "probe.txt")
	v := h.Versions[0]
	return strings.TrimSpace(strings.TrimRight(fmt.Sprintf("%s %s/%s/%s", v.By, v.SessionID, v.RunID, v.ToolCallID), "/"))
}

func crashOps() []crashOp {
	runStart := []string{"run", "start", "--session", "s", "--run", "r1"}
	toolStart := []string{"tool", "start", "--session", "s", "--run", "r1", "--call", "c1", "--command", "edit"}
	toolEnd := []string{"tool", "end", "--session", "s", "--run", "r1", "--call", "c1"}
	runEnd := []string{"run", "end", "--session", "s", "--run", "r1"}
	return []crashOp{
		{name: "run start with drift", steps: updateSteps, again: true, args: runStart,
			setup: func(ws *workspace) { ws.write("person.txt", "the person's, before the run\n") },
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if len(b.Log) != len(before.Log)+1 || !strings.HasPrefix(b.Log[b.Current], "pre_run_drift_rebase s/r1") || b.Run != "open" {
					t.Errorf("run start with drift: log %v, current %d, run %s; want a pre_run_drift_rebase, current, the run open", b.Log, b.Current, b.Run)
				}
				if by := ws.probeBy("by r1\n"); by != "run s/r1" {
					t.Errorf("a write after the run start is attributed to %q, want run s/r1", by)
				}
				var e runDiffJSON
				ws.ckptJSON(&e, "run", "end", "--session", "s", "--run", "r1")
				assertChanges(t, "run end after run start with drift", e.Files, want("added probe.txt"))
			}},
		{name: "run start", steps: updateSteps, again: true, args: runStart,
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if len(b.Log) != len(before.Log) || b.Run != "open" || !strings.Contains(b.LastRun, "baseline=0") {
					t.Errorf("run start: log %v, last run %s; want no new checkpoint, the run open on the initial one", b.Log, b.LastRun)
				}
				if by := ws.probeBy("by r1\n"); by != "run s/r1" {
					t.Errorf("a write after the run start is attributed to %q, want run s/r1", by)
				}
			}},
		{name: "tool start", steps: updateSteps, again: true, args: toolStart,
			setup: func(ws *workspace) { ws.ckptOK(runStart...) },
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if len(b.Log) != len(before.Log)+1 || !strings.HasPrefix(b.Log[len(b.Log)-1], "pre_write s/r1") || b.Call != "open" {
					t.Errorf("tool start: log %v, call %s; want a pre_write, the call open", b.Log, b.Call)
				}
				if by := ws.probeBy("by c1\n"); by != "tool s/r1/c1" {
					t.Errorf("a write after the tool start is attributed to %q, want tool s/r1/c1", by)
				}
				var te toolEndJSON
				ws.ckptJSON(&te, toolEnd...)
				assertChanges(t, "tool end after the tool start", te.Changes, want("added probe.txt"))
			}},
		{name: "tool end", steps: updateSteps, again: true, args: toolEnd,
			setup: func(ws *workspace) {
				ws.ckptOK(runStart...)
				ws.ckptOK(toolStart...)
				ws.write("tool.txt", "by c1\n")
				ws.status()
			},
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if b.Call != "ended" || b.Run != "open" {
					t.Errorf("tool end: call %s, run %s; want the call ended, the run open", b.Call, b.Run)
				}
				if by := ws.probeBy("by r1 after c1\n"); by != "run s/r1" {
					t.Errorf("a write after the tool end is attributed to %q, want run s/r1", by)
				}
				var te toolEndJSON
				ws.ckptJSON(&te, toolEnd...)
				assertChanges(t, "tool end repeated after a later write", te.Changes, want("added tool.txt"))
			}},
		{name: "run end", steps: updateSteps, again: true, args: runEnd,
			setup: func(ws *workspace) {
				ws.ckptOK(runStart...)
				ws.ckptOK(toolStart...) // still open when the run ends: it ends with it
				ws.write("tool.txt", "by c1\n")
				ws.status()
			},
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if b.Run != "ended" || b.Call != "ended" || !strings.HasPrefix(b.Log[b.Current], "end_of_turn s/r1") {
					t.Errorf("run end: run %s, call %s, log %v, current %d; want both ended, end_of_turn current", b.Run, b.Call, b.Log, b.Current)
				}
				if by := ws.probeBy("the person's, after the run\n"); by != "person" {
					t.Errorf("a write after the run end is attributed to %q, want person", by)
				}
			}},
		{name: "restore", steps: restoreSteps, args: []string{"restore", "--exact", "--yes"},
			setup: crashRestoreSetup,
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if b.Current != 0 || b.LastRestore != fmt.Sprintf("target=0 guard=%d", len(b.Log)-1) || b.Tree != fmt.Sprint(crashTarget) {
					t.Errorf("restore: current %d, last restore %s, tree\n  %s\nwant the initial checkpoint current and its tree\n  %v", b.Current, b.LastRestore, b.Tree, crashTarget)
				}
			}},
		{name: "undo", steps: restoreSteps, args: []string{"undo", "--yes"},
			setup: func(ws *workspace) {
				crashRestoreSetup(ws)
				ws.ckptOK("restore", "--exact", "--yes", ws.initial())
			},
			check: func(t *testing.T, ws *workspace, before, b booked) {
				if strings.Contains(b.Tree, "later") == false || b.Current != 1 || b.LastRestore != fmt.Sprintf("target=1 guard=%d", len(b.Log)-1) {
					t.Errorf("undo: current %d, last restore %s, tree %s; want the checkpoint current before the restore, the tree before it", b.Current, b.LastRestore, b.Tree)
				}
			}},
	}
}

// crashTarget is the tree of the initial checkpoint in the crash tests.
var crashTarget tree

// crashRestoreSetup changes the workspace since the initial checkpoint and
// cuts a checkpoint, which becomes current, so that a restore of the
// initial one has several paths to write and moves the current checkpoint.
func crashRestoreSetup(ws *workspace) {
	ws.write("a.txt", "a later\n")
	ws.rm("b.txt")
	ws.write("d/new.txt", "later\n")
	ws.ckptOK("run", "start", "--session", "s", "--run", "r0")
}

// initial is the id of the oldest checkpoint.
func (ws *workspace) initial() string {
	ws.t.Helper()
	var l logJSON
	ws.ckptJSON(&l, "log")
	return l.Checkpoints[len(l.Checkpoints)-1].CheckpointID
}

// TestCrashOperationSteps kills each multi-step operation (run start with
// and without drift, tool start, tool end, run end, restore, undo) at each
// of its crash points (CKPT_TEST_CRASH_AT: the process exits 3 there;
// with a daemon, the daemon is the process), then opens the workspace
// again: the operation is complete or not started, never in between;
// done again, it completes, or changes nothing if it was complete; and
// what it set up (the baseline, the open run or call, the current
// checkpoint) holds.
func TestCrashOperationSteps(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		for _, op := range crashOps() {
			for _, step := range slices.Sorted(maps.Keys(op.steps)) {
				t.Run(op.name+" at "+step, func(t *testing.T) {
					testCrashOperationStep(t, m, op, step)
				})
			}
		}
	})
}

func testCrashOperationStep(t *testing.T, m mode, op crashOp, step string) {
	ws := newWorkspace(t, m)
	ws.write("a.txt", "a\n")
	ws.write("b.txt", "b\n")
	ws.write("d/c.txt", "c\n")
	crashTarget = ws.tree()
	ws.start()
	if op.setup != nil {
		op.setup(ws)
	}
	args := op.args
	if op.name == "restore" {
		args = append(slices.Clone(args), ws.initial())
	}
	before := ws.booked()

	crash := "CKPT_TEST_CRASH_AT=" + step
	if m == embedded {
		if r := ws.ckptEnv([]string{crash}, args...); r.code != 3 {
			t.Fatalf("%v with %s: want exit 3 (the test crash), got\n%s", args, crash, r)
		}
	} else {
		ws.restartDaemon(crash)
		if r := ws.ckptResult(args...); r.code == 0 {
			t.Fatalf("%v with the daemon started with %s: want a failure (the daemon died), got\n%s", args, crash, r)
		}
		if code := ws.waitDaemonExit(10 * time.Second); code != 3 {
			t.Fatalf("ckptd with %s: exit %d, want 3", crash, code)
		}
		ws.startDaemon()
	}

	after := ws.booked()
	wantComplete := op.steps[step]
	switch {
	case !wantComplete && !reflect.DeepEqual(after, before):
		t.Fatalf("stopped at %s, the next open finds the operation started:\n  before %+v\n  after  %+v", step, before, after)
	case wantComplete && reflect.DeepEqual(after, before):
		t.Fatalf("stopped at %s (after its commit), the next open finds the operation not started: %+v", step, after)
	case !wantComplete:
		ws.ckptOK(args...) // not started: do it now
		after = ws.booked()
	case op.again:
		ws.ckptOK(args...) // complete: once more changes nothing
		if again := ws.booked(); !reflect.DeepEqual(again, after) {
			t.Errorf("the operation done again after the crash changed the bookkeeping:\n  after the crash %+v\n  again           %+v", after, again)
		}
	}
	op.check(t, ws, before, after)
}
