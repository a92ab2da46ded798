package e2e

import (
	"strings"
	"testing"
	"time"
)

// lastRunJSON is status's last_run.
type lastRunJSON struct {
	LastRun *struct {
		SessionID string `json:"session_id"`
		RunID     string `json:"run_id"`
		Open      bool   `json:"open"`
	} `json:"last_run"`
}

// followWait bounds how long the transcript follower may take to end an
// interrupted run (it polls every 100 ms).
const followWait = 20 * time.Second

// waitRunEnded waits until the run is no longer open.
func waitRunEnded(t *testing.T, ws *workspace, session, run string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		var st lastRunJSON
		ws.ckptJSON(&st, "status")
		if st.LastRun != nil && st.LastRun.RunID == run && !st.LastRun.Open {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("run %s/%s still open %s after it should have ended (last_run %+v)", session, run, within, st.LastRun)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClaudeCodeInterrupt interrupts the real CLI during a tool call, as
// Esc does (the SDK's interrupt request): Claude Code sends no PostToolUse
// and no Stop, and records the interrupt in the transcript. The run ends
// as of the interrupt all the same, even when ckpt learns of it only after
// the person has edited, so the person's edits afterwards are drift, told to
// the agent at the next prompt, and reverting the interrupted turn takes
// back only what the agent wrote and keeps them byte for byte.
func TestClaudeCodeInterrupt(t *testing.T) {
	claudeBinary(t)
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "a\n")
		ws.write("notes.txt", "the person's notes\n")
		c := newClaudeSession(t, ws, map[string][]apiReply{
			"t1": {
				{tools: []apiToolUse{{id: "toolu_slow", name: "Bash", input: map[string]any{"command": "echo by the agent > x.txt; sleep 60", "description": "slow"}}}},
				{text: "never reached"},
			},
			"t2": {
				{tools: []apiToolUse{{id: "toolu_z", name: "Bash", input: map[string]any{"command": "echo z > z.txt", "description": "z"}}}},
				{text: "turn 2 done"},
			},
		}, false)
		ws.start()
		before := ws.tree()
		p := c.startInteractive()
		p.send(`{"type":"user","message":{"role":"user","content":"[[script:t1]] go"}}`)
		p.waitFile(ws.path("x.txt"))
		time.Sleep(200 * time.Millisecond) // the PreToolUse hook has returned: the command runs
		// Hold the session's lock, so that ckpt ends the run only after the
		// person's edits below: they come after the interrupt all the same.
		unlock := holdSessionLock(t, ws, c.id)
		p.send(`{"type":"control_request","request_id":"int-1","request":{"subtype":"interrupt"}}`)
		waitTranscriptInterrupt(t, c.home, c.id)
		time.Sleep(200 * time.Millisecond)
		ws.write("p.txt", "by the person\n")
		ws.write("notes.txt", "the person's notes, edited after the interrupt\n")
		time.Sleep(200 * time.Millisecond)
		unlock()
		took := waitRunEnded(t, ws, c.id, "turn-1", followWait)
		t.Logf("the interrupted run ended %s after the person's edits", took.Round(time.Millisecond))
		if st := ws.status(); !st.Drifted {
			t.Errorf("the person's edits after the interrupt are not drift: %+v", st.Changes)
		}
		p.send(`{"type":"user","message":{"role":"user","content":"[[script:t2]] next"}}`)
		p.waitFile(ws.path("z.txt"))
		p.close()

		var r1, r2 runDiffJSON
		ws.ckptJSON(&r1, "diff", "--session", c.id, "--run", "turn-1")
		assertChanges(t, "interrupted turn-1", r1.Files, want("added x.txt"))
		ws.ckptJSON(&r2, "diff", "--session", c.id, "--run", "turn-2")
		assertChanges(t, "turn-2", r2.Files, want("added z.txt"))
		pr := firstPrompt(c.api, "t2")
		if !strings.Contains(pr, `added: \"p.txt\"`) || !strings.Contains(pr, `modified: \"notes.txt\"`) {
			t.Errorf("turn 2's prompt does not tell the agent of the person's p.txt and notes.txt:\n%s", pr)
		}
		afterT2 := ws.tree()
		var rv revertJSON
		ws.ckptJSON(&rv, "revert", "--session", c.id, "--run", "turn-1", "--yes")
		wantTree := afterT2
		delete(wantTree, "x.txt")
		assertTree(t, "after revert of the interrupted turn", wantTree, ws.tree())
		if !ws.exists("p.txt") || before["a.txt"] != ws.tree()["a.txt"] || ws.read("notes.txt") != "the person's notes, edited after the interrupt\n" {
			t.Errorf("revert of turn-1 touched the person's files")
		}
	})
}

// TestClaudeCodeStopFailure: an API error ends the turn with StopFailure,
// not Stop; the run ends there, while the CLI is still up, so the person's
// edit afterwards is drift.
func TestClaudeCodeStopFailure(t *testing.T) {
	claudeBinary(t)
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		c := newClaudeSession(t, ws, map[string][]apiReply{
			"t1": {
				{tools: []apiToolUse{{id: "toolu_w", name: "Bash", input: map[string]any{"command": "echo w > w.txt", "description": "w"}}}},
				{status: 400},
			},
		}, true)
		ws.start()
		// Driven through stdin, the CLI stays up after the turn: no
		// SessionEnd ends the run for it.
		p := c.startInteractive()
		p.send(`{"type":"user","message":{"role":"user","content":"[[script:t1]] go"}}`)
		p.waitResult()
		waitRunEnded(t, ws, c.id, "turn-1", followWait)
		p.close()
		names, _ := c.recordedPayloads()
		var events []string
		for _, n := range names {
			_, ev, _ := strings.Cut(strings.TrimSuffix(n, ".json"), "-")
			events = append(events, ev)
		}
		if got := strings.Join(events, " "); !strings.Contains(got, "PostToolUse StopFailure") || strings.Contains(got, " Stop ") {
			t.Fatalf("the CLI sent %s; want PostToolUse then StopFailure and no Stop", got)
		}
		ws.write("p.txt", "by the person\n")
		var r1 runDiffJSON
		ws.ckptJSON(&r1, "diff", "--session", c.id, "--run", "turn-1")
		assertChanges(t, "turn-1", r1.Files, want("added w.txt"))
		if st := ws.status(); !st.Drifted {
			t.Errorf("status: not drifted after the person's edit following a failed turn")
		}
	})
}
