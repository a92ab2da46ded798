package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// party is one entry of a change's shared_with.
type party struct {
	SessionID  string `json:"session_id"`
	RunID      string `json:"run_id"`
	ToolCallID string `json:"tool_call_id"`
}

// sharedChange is a change with the fields CONTRACT semantic 13 adds.
type sharedChange struct {
	Path       string  `json:"path"`
	Kind       string  `json:"kind"`
	By         string  `json:"by"`
	SharedWith []party `json:"shared_with"`
}

func (p party) String() string {
	if p.ToolCallID == "" {
		return p.SessionID + "/" + p.RunID
	}
	return p.SessionID + "/" + p.RunID + "/" + p.ToolCallID
}

// shared renders changes as sorted "kind path [shared with...]" lines.
func shared(cs []sharedChange) []string {
	out := []string{}
	for _, c := range cs {
		line := c.Kind + " " + c.Path
		if c.SharedWith != nil {
			with := make([]string, len(c.SharedWith))
			for i, p := range c.SharedWith {
				with[i] = p.String()
			}
			slices.Sort(with)
			line += " shared with " + strings.Join(with, ",")
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

func assertShared(t *testing.T, what string, got []sharedChange, want ...string) {
	t.Helper()
	slices.Sort(want)
	if want == nil {
		want = []string{}
	}
	if g := shared(got); !slices.Equal(g, want) {
		t.Fatalf("%s:\n  got  %s\n  want %s", what, fmtList(g), fmtList(want))
	}
}

type sharedToolEnd struct {
	ToolCallID string         `json:"tool_call_id"`
	Changes    []sharedChange `json:"changes"`
}

type sharedFiles struct {
	Files []sharedChange `json:"files"`
}

type sharedStatus struct {
	Changes []sharedChange `json:"changes"`
}

// TestOverlappingSessions is CONTRACT semantic 13 across sessions: s1's
// tool window is open when s2 starts a run, and a file is edited. s1's
// tool end lists it (it used to list nothing: the edit went to the newer
// run alone), shared with s2's run; s2's run end lists it shared with s1's
// window; s1's run end lists it shared with s2's run; status calls it the
// runs' change and a default restore reverts it (never "changed only
// outside runs"); and the run diffs say the same after a daemon restart.
func TestOverlappingSessions(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("f.txt", "v1\n")
		ws.write("g.txt", "v1\n")
		ws.start()
		var s1 runStartJSON
		ws.ckptJSON(&s1, "run", "start", "--session", "s1", "--run", "r1")
		ws.ckptOK("tool", "start", "--session", "s1", "--run", "r1", "--call", "c1")
		var s2 runStartJSON
		ws.ckptJSON(&s2, "run", "start", "--session", "s2", "--run", "r2")
		if s2.WorkspaceDrifted {
			t.Fatalf("run start s2: nothing changed yet, but drifted: %+v", s2)
		}
		ws.write("f.txt", "edited while both were open\n")

		var st sharedStatus
		ws.ckptJSON(&st, "status")
		if len(st.Changes) != 1 || st.Changes[0].Path != "f.txt" || st.Changes[0].By != "run" {
			t.Errorf("status while s1's window and s2's run are open: changes %+v, want f.txt by run", st.Changes)
		}
		var dry restoreJSON
		ws.ckptJSON(&dry, "restore", s1.PrevCheckpointID, "--dry-run", "--yes")
		if len(dry.Kept) != 0 || len(dry.Restored) != 1 || dry.Restored[0].Path != "f.txt" {
			t.Errorf("default restore --dry-run of %s: restored %+v, kept %+v; want f.txt restored (a run's change), nothing kept",
				s1.PrevCheckpointID, dry.Restored, dry.Kept)
		}

		var te sharedToolEnd
		ws.ckptJSON(&te, "tool", "end", "--session", "s1", "--run", "r1", "--call", "c1")
		assertShared(t, "tool end s1/r1/c1", te.Changes, "modified f.txt shared with s2/r2")
		text := ws.ckptOK("diff", "--session", "s2", "--run", "r2")
		if !strings.Contains(text, "shared with s1/r1 call c1") {
			t.Errorf("diff --session s2 --run r2 (text) does not say f.txt is shared with s1's window:\n%s", text)
		}
		// r2 alone (r1 open between windows) changes g.txt.
		ws.write("g.txt", "by r2, r1 open\n")
		var e2 sharedFiles
		ws.ckptJSON(&e2, "run", "end", "--session", "s2", "--run", "r2")
		wantR2 := []string{"modified f.txt shared with s1/r1/c1", "modified g.txt shared with s1/r1"}
		assertShared(t, "run end s2/r2", e2.Files, wantR2...)
		var e1 sharedFiles
		ws.ckptJSON(&e1, "run", "end", "--session", "s1", "--run", "r1")
		wantR1 := []string{"modified f.txt shared with s2/r2", "modified g.txt shared with s2/r2"}
		assertShared(t, "run end s1/r1", e1.Files, wantR1...)

		if m == daemon {
			ws.restartDaemon()
		}
		var d sharedFiles
		ws.ckptJSON(&d, "diff", "--session", "s2", "--run", "r2")
		assertShared(t, "diff --session s2 --run r2 later", d.Files, wantR2...)
		var d1 sharedFiles // a fresh one: decoding into d would keep its old fields
		ws.ckptJSON(&d1, "diff", "--session", "s1", "--run", "r1")
		assertShared(t, "diff --session s1 --run r1 later", d1.Files, wantR1...)
	})
}

// TestOverlappingWindows is CONTRACT semantic 13 within one session (two
// windows open at once each report what changed while both were open,
// shared with the other) and its counterpart: windows one after another,
// and `ckpt exec`, report exactly their own changes with no shared_with.
func TestOverlappingWindows(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		for _, f := range []string{"a.txt", "b.txt", "both.txt", "one.txt", "two.txt"} {
			ws.write(f, "v1\n")
		}
		ws.start()
		ws.ckptOK("run", "start", "--session", "s", "--run", "r")
		tool := func(verb, call string) sharedToolEnd {
			t.Helper()
			var te sharedToolEnd
			if verb == "start" {
				ws.ckptOK("tool", "start", "--session", "s", "--run", "r", "--call", call)
				return te
			}
			ws.ckptJSON(&te, "tool", "end", "--session", "s", "--run", "r", "--call", call)
			return te
		}

		tool("start", "c1")
		ws.write("one.txt", "c1 alone\n")
		ws.status() // captured before c2 opens
		tool("start", "c2")
		ws.sh("sed -i s/v1/both/ both.txt")
		assertShared(t, "tool end c1", tool("end", "c1").Changes, "modified one.txt", "modified both.txt shared with s/r/c2")
		ws.rm("two.txt")
		assertShared(t, "tool end c2", tool("end", "c2").Changes, "modified both.txt shared with s/r/c1", "deleted two.txt")

		for i, f := range []string{"a.txt", "b.txt"} {
			call := fmt.Sprintf("seq%d", i)
			tool("start", call)
			ws.write(f, call+"\n")
			assertShared(t, "tool end "+call, tool("end", call).Changes, "modified "+f)
		}
		r := ws.ckptResult("exec", "--session", "s", "--run", "r", "--call", "x", "--json", "--", "sh", "-c", "echo x >> a.txt")
		var te sharedToolEnd
		if err := decodeOne(r.stdout, &te); r.code != 0 || err != nil {
			t.Fatalf("exec: %v\n%s", err, r)
		}
		assertShared(t, "exec x", te.Changes, "modified a.txt")

		var end sharedFiles
		ws.ckptJSON(&end, "run", "end", "--session", "s", "--run", "r")
		assertShared(t, "run end (its own windows are not others)", end.Files,
			"modified a.txt", "modified b.txt", "modified both.txt", "modified one.txt", "deleted two.txt")
	})
}

// TestOverlappingHookSessions is semantic 13 through the Claude Code hook:
// two sessions' turns overlap, and what changed while session A's Bash call
// was open is that call's, shared with session B's turn, and B's turn
// reports it shared with A's call.
func TestOverlappingHookSessions(t *testing.T) {
	bothModes(t, func(t *testing.T, m mode) {
		ws := newWorkspace(t, m)
		ws.write("f.txt", "v1\n")
		ws.start()
		hook := func(session string, payload map[string]any) {
			t.Helper()
			payload["session_id"] = session
			payload["cwd"] = ws.root
			payload["transcript_path"] = filepath.Join(ws.base, session+".jsonl")
			b, err := json.Marshal(payload)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(ckptBin, "hook", "claude-code")
			cmd.Dir, cmd.Env, cmd.Stdin = ws.base, ws.env, bytes.NewReader(b)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("hook %s for %s: %v\n%s", payload["hook_event_name"], session, err, out)
			}
		}
		bash := func(event string) map[string]any {
			return map[string]any{
				"hook_event_name": event, "tool_name": "Bash", "tool_use_id": "toolu_A",
				"tool_input": map[string]any{"command": "sed -i s/v1/v2/ f.txt"},
			}
		}
		hook("A", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit f"})
		hook("A", bash("PreToolUse"))
		hook("B", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "something else"})
		ws.sh("sed -i s/v1/v2/ f.txt")
		hook("A", bash("PostToolUse"))

		// The closed window's report, asked again.
		var te sharedToolEnd
		ws.ckptJSON(&te, "tool", "end", "--session", "A", "--run", "turn-1", "--call", "toolu_A")
		assertShared(t, "A's Bash call", te.Changes, "modified f.txt shared with B/turn-1")
		hook("B", map[string]any{"hook_event_name": "Stop"})
		var d sharedFiles
		ws.ckptJSON(&d, "diff", "--session", "B", "--run", "turn-1")
		assertShared(t, "B's turn", d.Files, "modified f.txt shared with A/turn-1/toolu_A")
		hook("A", map[string]any{"hook_event_name": "Stop"})
	})
}
