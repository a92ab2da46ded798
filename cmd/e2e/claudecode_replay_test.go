package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// fixture is one recorded hook payload (testdata/claude-code/README.md).
type fixture struct {
	event   string
	payload map[string]any
}

// loadFixtures reads a recorded session's payloads in the order the CLI
// sent them, with the recording's workspace and home replaced by ws's.
func loadFixtures(t *testing.T, ws *workspace, dir string) []fixture {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", "claude-code", dir, "*-*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	sort.Strings(names)
	var out []fixture
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		recorded := p["cwd"].(string)
		s := strings.ReplaceAll(string(data), recorded, ws.root)
		s = strings.ReplaceAll(s, filepath.Dir(recorded), ws.base)
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			t.Fatal(err)
		}
		_, ev, _ := strings.Cut(strings.TrimSuffix(filepath.Base(n), ".json"), "-")
		out = append(out, fixture{event: ev, payload: p})
	}
	return out
}

// replay feeds a payload to `ckpt hook claude-code`, run in the workspace
// as Claude Code runs it, and fails the test unless it exits 0.
func (ws *workspace) replay(payload map[string]any) result {
	ws.t.Helper()
	data, err := json.Marshal(payload)
	if err != nil {
		ws.t.Fatal(err)
	}
	r := ws.hook("%s", data)
	if r.code != 0 {
		ws.t.Fatalf("%s: %s", payload["hook_event_name"], r)
	}
	return r
}

// TestClaudeCodeReplayBackgroundSubagent replays the real CLI's payloads
// for a turn whose background subagent writes after the main agent's Stop
// (testdata/claude-code/background), doing each tool call's write between
// its PreToolUse and PostToolUse. The subagent's file is the turn's, not
// the person's drift: the run waits for the subagent and ends at its
// SubagentStop; the Stop that waits shows the undo line.
func TestClaudeCodeReplayBackgroundSubagent(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("a.txt", "name=old\n")
		ws.start()
		writes := map[string]func(){
			"toolu_sed":      func() { ws.exec("sed", "-i", "s/old/new/", "a.txt") },
			"toolu_write":    func() { ws.write("w.txt", "written\n") },
			"toolu_subsleep": func() { ws.write("s.txt", "sub\n") },
		}
		var session string
		stops := 0
		for _, f := range loadFixtures(t, ws, "background") {
			session = f.payload["session_id"].(string)
			r := ws.replay(f.payload)
			if f.event == "PreToolUse" {
				if w := writes[f.payload["tool_use_id"].(string)]; w != nil {
					w()
				}
			}
			if f.event == "Stop" && stops == 0 {
				stops++
				if !strings.Contains(r.stdout, `"systemMessage"`) || !strings.Contains(r.stdout, "ckpt revert --session "+session+" --run turn-1") {
					t.Errorf("the Stop that waits for the subagent printed %q, want a systemMessage with the undo line", r.stdout)
				}
				var st lastRunJSON
				if ws.ckptJSON(&st, "status"); st.LastRun == nil || !st.LastRun.Open {
					t.Errorf("after the main agent's Stop with a running background subagent: last_run %+v, want turn-1 open", st.LastRun)
				}
			}
			if f.event == "SubagentStop" {
				var st lastRunJSON
				if ws.ckptJSON(&st, "status"); st.LastRun == nil || st.LastRun.RunID != "turn-1" || st.LastRun.Open {
					t.Errorf("after the last background subagent's SubagentStop: last_run %+v, want turn-1 ended", st.LastRun)
				}
			}
		}
		var r1 runDiffJSON
		ws.ckptJSON(&r1, "diff", "--session", session, "--run", "turn-1")
		assertChanges(t, "turn-1", r1.Files, want("modified a.txt", "added w.txt", "added s.txt"))
		if st := ws.status(); st.Drifted {
			t.Errorf("status drifted %v, want nothing outside runs", kinds(st.Changes))
		}
	})
}

// TestClaudeCodeReplayInterrupt replays the real CLI's payloads for a turn
// interrupted during a Bash call (testdata/claude-code/interrupt): after
// PreToolUse nothing comes, and the transcript gets the interrupt line.
// The run ends when it does, and the person's edit afterwards is drift that
// the next prompt reports.
func TestClaudeCodeReplayInterrupt(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.start()
		fx := loadFixtures(t, ws, "interrupt")
		transcript := fx[0].payload["transcript_path"].(string)
		lines, err := os.ReadFile(filepath.Join("testdata", "claude-code", "interrupt", "transcript.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		before, interrupt, ok := bytes.Cut(lines, []byte(`{"parentUuid":"f3e9c09f`))
		if !ok {
			t.Fatal("the interrupt fixture has no interrupt line")
		}
		if err := os.MkdirAll(filepath.Dir(transcript), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(transcript, before, 0o644); err != nil {
			t.Fatal(err)
		}
		var session string
		for _, f := range fx {
			if f.event != "UserPromptSubmit" && f.event != "PreToolUse" {
				continue
			}
			session = f.payload["session_id"].(string)
			ws.replay(f.payload)
			if f.event == "PreToolUse" {
				ws.write("x.txt", "agent\n")
			}
		}
		tf, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		tf.Write(stampedAt(append([]byte(`{"parentUuid":"f3e9c09f`), interrupt...), time.Now()))
		tf.Close()
		waitRunEnded(t, ws, session, "turn-1", followWait)
		ws.write("p.txt", "the person's\n")

		next := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": session, "cwd": ws.root,
			"transcript_path": transcript, "prompt": "next", "prompt_id": "c0ffee00-0000-4000-8000-000000000002"}
		r := ws.replay(next)
		if !strings.Contains(r.stdout, `added: \"p.txt\"`) {
			t.Errorf("the next prompt's context %q does not report the person's p.txt", r.stdout)
		}
		var r1 runDiffJSON
		ws.ckptJSON(&r1, "diff", "--session", session, "--run", "turn-1")
		assertChanges(t, "interrupted turn-1", r1.Files, want("added x.txt"))
	})
}
