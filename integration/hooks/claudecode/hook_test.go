package claudecode

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
)

// Payloads as Claude Code sends them (fields from its hooks reference;
// ids shortened).
const (
	payloadUserPromptSubmit = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "transcript_path": "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
  "cwd": "/home/ann/proj",
  "permission_mode": "default",
  "hook_event_name": "UserPromptSubmit",
  "prompt": "rename foo to bar in main.go"
}`
	payloadPreToolUseBash = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "transcript_path": "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
  "cwd": "/home/ann/proj",
  "permission_mode": "acceptEdits",
  "hook_event_name": "PreToolUse",
  "tool_name": "Bash",
  "tool_input": {"command": "sed -i 's/foo/bar/g' main.go", "description": "Rename foo", "timeout": 120000},
  "tool_use_id": "toolu_01DUa9hYm3"
}`
	payloadPreToolUseEdit = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "cwd": "/home/ann/proj",
  "hook_event_name": "PreToolUse",
  "tool_name": "Edit",
  "tool_input": {"file_path": "/home/ann/proj/main.go", "old_string": "foo", "new_string": "bar", "replace_all": true},
  "tool_use_id": "toolu_01Edit"
}`
	payloadPostToolUseWrite = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "transcript_path": "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
  "cwd": "/home/ann/proj",
  "permission_mode": "default",
  "hook_event_name": "PostToolUse",
  "tool_name": "Write",
  "tool_input": {"file_path": "/home/ann/proj/notes.txt", "content": "hi\n"},
  "tool_response": {"filePath": "/home/ann/proj/notes.txt", "success": true},
  "tool_use_id": "toolu_01Write"
}`
	payloadPostToolUseFailure = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "cwd": "/home/ann/proj",
  "hook_event_name": "PostToolUseFailure",
  "tool_name": "Bash",
  "tool_input": {"command": "make test"},
  "tool_use_id": "toolu_01Fail",
  "error": "exit status 2",
  "is_interrupt": false
}`
	payloadStop = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "transcript_path": "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
  "cwd": "/home/ann/proj",
  "permission_mode": "default",
  "hook_event_name": "Stop",
  "stop_hook_active": true,
  "last_assistant_message": "Done."
}`
	payloadSessionStart = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "cwd": "/home/ann/proj",
  "hook_event_name": "SessionStart",
  "source": "resume",
  "model": "claude-opus-4-6"
}`
	payloadSessionEnd = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "cwd": "/home/ann/proj",
  "hook_event_name": "SessionEnd",
  "reason": "prompt_input_exit"
}`
	payloadNotification = `{
  "session_id": "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b",
  "hook_event_name": "Notification",
  "message": "Claude needs your permission to use Bash"
}`
)

const sid = "8c35adc1-2f0e-4d3c-9b1a-0c6d1f2e3a4b"

func TestParseHook(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    HookInput
	}{
		{"user prompt submit", payloadUserPromptSubmit, HookInput{
			Event: EventUserPromptSubmit, SessionID: sid, Cwd: "/home/ann/proj",
			TranscriptPath: "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
			Prompt:         "rename foo to bar in main.go",
		}},
		{"pre tool use bash", payloadPreToolUseBash, HookInput{
			Event: EventPreToolUse, SessionID: sid, Cwd: "/home/ann/proj",
			TranscriptPath: "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
			ToolName:       "Bash", ToolUseID: "toolu_01DUa9hYm3", CallID: "toolu_01DUa9hYm3",
			Command: "sed -i 's/foo/bar/g' main.go",
		}},
		{"pre tool use edit", payloadPreToolUseEdit, HookInput{
			Event: EventPreToolUse, SessionID: sid, Cwd: "/home/ann/proj",
			ToolName: "Edit", ToolUseID: "toolu_01Edit", CallID: "toolu_01Edit",
			Command: "Edit /home/ann/proj/main.go",
		}},
		{"post tool use write", payloadPostToolUseWrite, HookInput{
			Event: EventPostToolUse, SessionID: sid, Cwd: "/home/ann/proj",
			TranscriptPath: "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
			ToolName:       "Write", ToolUseID: "toolu_01Write", CallID: "toolu_01Write",
			Command: "Write /home/ann/proj/notes.txt",
		}},
		{"interrupted tool call", strings.Replace(payloadPostToolUseFailure, `"is_interrupt": false`, `"is_interrupt": true`, 1), HookInput{
			Event: EventPostToolUseFailure, SessionID: sid, Cwd: "/home/ann/proj", IsInterrupt: true,
			ToolName: "Bash", ToolUseID: "toolu_01Fail", CallID: "toolu_01Fail", Command: "make test",
		}},
		{"post tool use failure", payloadPostToolUseFailure, HookInput{
			Event: EventPostToolUseFailure, SessionID: sid, Cwd: "/home/ann/proj",
			ToolName: "Bash", ToolUseID: "toolu_01Fail", CallID: "toolu_01Fail", Command: "make test",
		}},
		{"stop", payloadStop, HookInput{
			Event: EventStop, SessionID: sid, Cwd: "/home/ann/proj",
			TranscriptPath: "/home/ann/.claude/projects/-home-ann-proj/8c35adc1.jsonl",
			StopHookActive: true,
		}},
		{"session start", payloadSessionStart, HookInput{
			Event: EventSessionStart, SessionID: sid, Cwd: "/home/ann/proj", Source: "resume",
		}},
		{"session end", payloadSessionEnd, HookInput{
			Event: EventSessionEnd, SessionID: sid, Cwd: "/home/ann/proj", Reason: "prompt_input_exit",
		}},
		{"unknown event is accepted", payloadNotification, HookInput{Event: "Notification", SessionID: sid}},
		{"unknown event needs no session", `{"hook_event_name":"PreCompact"}`, HookInput{Event: "PreCompact"}},
		{"newer fields: prompt_id, agent_id", `{"hook_event_name":"Stop","session_id":"s","prompt_id":"p-1","agent_id":"a-1","future":{"x":[1]}}`,
			HookInput{Event: EventStop, SessionID: "s", PromptID: "p-1", AgentID: "a-1"}},
		{"optional field of the wrong type is absent", `{"hook_event_name":"Stop","session_id":"s","cwd":42,"stop_hook_active":"yes"}`,
			HookInput{Event: EventStop, SessionID: "s"}},
		{"no tool_input", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"mcp__fs__write","tool_use_id":"t1"}`,
			HookInput{Event: EventPreToolUse, SessionID: "s", ToolName: "mcp__fs__write", ToolUseID: "t1", CallID: "t1", Command: "mcp__fs__write"}},
		{"notebook path", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/p/a.ipynb"},"tool_use_id":"t"}`,
			HookInput{Event: EventPreToolUse, SessionID: "s", ToolName: "NotebookEdit", ToolUseID: "t", CallID: "t", Command: "NotebookEdit /p/a.ipynb"}},
		{"bash without command", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{},"tool_use_id":"t"}`,
			HookInput{Event: EventPreToolUse, SessionID: "s", ToolName: "Bash", ToolUseID: "t", CallID: "t", Command: "Bash"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHook([]byte(tt.payload))
			if err != nil {
				t.Fatalf("ParseHook: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseHook =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestParseHookBadInput(t *testing.T) {
	tests := []struct {
		name, payload, want string
	}{
		{"empty", ``, "not a JSON object"},
		{"not json", `hello`, "not a JSON object"},
		{"truncated", payloadPreToolUseBash[:60], "not a JSON object"},
		{"array", `[{"hook_event_name":"Stop"}]`, "not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"string", `"Stop"`, "not a JSON object"},
		{"no event", `{"session_id":"s"}`, "no hook_event_name"},
		{"event not a string", `{"hook_event_name":1,"session_id":"s"}`, "hook_event_name is not a string"},
		{"empty event", `{"hook_event_name":"","session_id":"s"}`, "hook_event_name is empty"},
		{"no session", `{"hook_event_name":"Stop"}`, "no session_id"},
		{"null session", `{"hook_event_name":"Stop","session_id":null}`, "no session_id"},
		{"session not a string", `{"hook_event_name":"UserPromptSubmit","session_id":7}`, "session_id is not a string"},
		{"session with NUL", `{"hook_event_name":"Stop","session_id":"a\u0000b"}`, "not a usable id"},
		{"session too long", `{"hook_event_name":"Stop","session_id":"` + strings.Repeat("s", maxIDLen+1) + `"}`, "not a usable id"},
		{"tool event without tool name", `{"hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"t"}`, "no tool_name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHook([]byte(tt.payload))
			if err == nil {
				t.Fatal("ParseHook succeeded, want an error")
			}
			if !errors.Is(err, drift.ErrInvalid) {
				t.Errorf("error %v is not drift.ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "bad hook input: ") {
				t.Errorf("error %q, want %q in it", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one line", err)
			}
		})
	}
}

func TestDerivedCallID(t *testing.T) {
	pre := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm a","description":"x"}}`
	// PostToolUse: same input, other key order and spacing, and a response.
	post := `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_input":{ "description":"x", "command":"rm a" },"tool_response":{"stdout":""}}`
	other := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm b","description":"x"}}`
	badID := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"rm a","description":"x"},"tool_use_id":"a\u0001"}`
	ids := map[string]string{}
	for name, p := range map[string]string{"pre": pre, "post": post, "other": other, "bad id": badID} {
		in, err := ParseHook([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !validID(in.CallID) || !strings.HasPrefix(in.CallID, "call-") {
			t.Errorf("%s: call id %q", name, in.CallID)
		}
		ids[name] = in.CallID
	}
	if ids["pre"] != ids["post"] || ids["pre"] != ids["bad id"] {
		t.Errorf("PreToolUse and PostToolUse of one call get ids %q, %q, %q", ids["pre"], ids["post"], ids["bad id"])
	}
	if ids["pre"] == ids["other"] {
		t.Errorf("different calls share id %q", ids["pre"])
	}
}

func TestToolCommandTruncated(t *testing.T) {
	long := strings.Repeat("é", maxCommandLen) // 2 bytes each
	b, _ := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash",
		"tool_input": map[string]string{"command": long}, "tool_use_id": "t",
	})
	in, err := ParseHook(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Command) > maxCommandLen || !utf8.ValidString(in.Command) || !strings.HasSuffix(in.Command, "…") {
		t.Errorf("command of %d bytes, valid UTF-8 %v: %q…", len(in.Command), utf8.ValidString(in.Command), in.Command[:20])
	}
}

func TestPlan(t *testing.T) {
	parse := func(p string) HookInput {
		in, err := ParseHook([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	idle := HookState{Session: sid, Turns: 2}
	open := HookState{Session: sid, Turns: 3, Run: "turn-3", Workspace: "/home/ann/proj"}
	read := parse(`{"hook_event_name":"PreToolUse","session_id":"` + sid + `","tool_name":"Read","tool_input":{"file_path":"/x"},"tool_use_id":"r"}`)
	readPost := read
	readPost.Event = EventPostToolUse
	interruptedRead := read
	interruptedRead.Event, interruptedRead.IsInterrupt = EventPostToolUseFailure, true
	tests := []struct {
		name string
		in   HookInput
		st   HookState
		want []Action
	}{
		{"prompt starts the next turn", parse(payloadUserPromptSubmit), idle, []Action{
			{Kind: ActionRunStart, Session: sid, Run: "turn-3"},
		}},
		{"prompt ends an interrupted turn first", parse(payloadUserPromptSubmit), open, []Action{
			{Kind: ActionRunEnd, Session: sid, Run: "turn-3"},
			{Kind: ActionRunStart, Session: sid, Run: "turn-4"},
		}},
		{"first prompt of a session", parse(payloadUserPromptSubmit), HookState{Session: sid}, []Action{
			{Kind: ActionRunStart, Session: sid, Run: "turn-1"},
		}},
		{"bash opens a window in the open run", parse(payloadPreToolUseBash), open, []Action{
			{Kind: ActionToolStart, Session: sid, Run: "turn-3", Call: "toolu_01DUa9hYm3", Command: "sed -i 's/foo/bar/g' main.go"},
		}},
		{"tool call without an open run starts one", parse(payloadPreToolUseEdit), idle, []Action{
			{Kind: ActionRunStart, Session: sid, Run: "turn-3"},
			{Kind: ActionToolStart, Session: sid, Run: "turn-3", Call: "toolu_01Edit", Command: "Edit /home/ann/proj/main.go"},
		}},
		{"post tool use closes the window", parse(payloadPostToolUseWrite), open, []Action{
			{Kind: ActionToolEnd, Session: sid, Run: "turn-3", Call: "toolu_01Write"},
		}},
		{"a failed tool call closes its window too", parse(payloadPostToolUseFailure), open, []Action{
			{Kind: ActionToolEnd, Session: sid, Run: "turn-3", Call: "toolu_01Fail"},
		}},
		{"an interrupted tool call ends the turn", parse(strings.Replace(payloadPostToolUseFailure, `"is_interrupt": false`, `"is_interrupt": true`, 1)), open, []Action{
			{Kind: ActionToolEnd, Session: sid, Run: "turn-3", Call: "toolu_01Fail"},
			{Kind: ActionRunEnd, Session: sid, Run: "turn-3"},
		}},
		{"an interrupted read-only call ends the turn", interruptedRead, open, []Action{
			{Kind: ActionRunEnd, Session: sid, Run: "turn-3"},
		}},
		{"an interrupt without a run does nothing", interruptedRead, idle, nil},
		{"post tool use without a run does nothing", parse(payloadPostToolUseWrite), idle, nil},
		{"read-only tool: no window", read, open, nil},
		{"read-only tool, post: nothing", readPost, open, nil},
		{"stop ends the run", parse(payloadStop), open, []Action{
			{Kind: ActionRunEnd, Session: sid, Run: "turn-3"},
		}},
		{"stop without a run does nothing", parse(payloadStop), idle, nil},
		{"session end ends the run", parse(payloadSessionEnd), open, []Action{
			{Kind: ActionRunEnd, Session: sid, Run: "turn-3"},
		}},
		{"session start does nothing", parse(payloadSessionStart), open, nil},
		{"other events do nothing", parse(payloadNotification), open, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Plan(tt.in, tt.st)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Plan =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !Relevant(tt.in) && len(got) > 0 {
				t.Errorf("Relevant is false but Plan has %d actions", len(got))
			}
		})
	}
}

// TestTurnSequence walks one session through two turns, the second one
// interrupted, applying each plan as the command does.
func TestTurnSequence(t *testing.T) {
	st := HookState{Session: sid}
	var log []string
	step := func(payload string) {
		t.Helper()
		in, err := ParseHook([]byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range Plan(in, st) {
			log = append(log, string(a.Kind)+" "+a.Run+" "+a.Call)
			st = Apply(st, a)
		}
	}
	step(payloadUserPromptSubmit)
	step(payloadPreToolUseBash)
	step(strings.Replace(payloadPreToolUseBash, "PreToolUse", "PostToolUse", 1))
	step(payloadStop)
	step(payloadUserPromptSubmit)
	step(payloadPreToolUseEdit) // interrupted: no PostToolUse, no Stop
	step(payloadUserPromptSubmit)
	step(payloadSessionEnd)
	want := []string{
		"run_start turn-1 ", "tool_start turn-1 toolu_01DUa9hYm3", "tool_end turn-1 toolu_01DUa9hYm3", "run_end turn-1 ",
		"run_start turn-2 ", "tool_start turn-2 toolu_01Edit",
		"run_end turn-2 ", "run_start turn-3 ",
		"run_end turn-3 ",
	}
	if !reflect.DeepEqual(log, want) {
		t.Errorf("actions\n%q\nwant\n%q", log, want)
	}
	if st != (HookState{Session: sid, Turns: 3}) {
		t.Errorf("final state %+v", st)
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name string
		st   HookState
		a    Action
		want HookState
	}{
		{"run start", HookState{Session: "s", Turns: 1}, Action{Kind: ActionRunStart, Run: "turn-2"}, HookState{Session: "s", Turns: 2, Run: "turn-2"}},
		{"run start after skipped ids", HookState{Session: "s", Turns: 1}, Action{Kind: ActionRunStart, Run: "turn-5"}, HookState{Session: "s", Turns: 5, Run: "turn-5"}},
		{"run end", HookState{Session: "s", Turns: 2, Run: "turn-2", Workspace: "/w"}, Action{Kind: ActionRunEnd, Run: "turn-2"}, HookState{Session: "s", Turns: 2}},
		{"end of another run", HookState{Session: "s", Turns: 2, Run: "turn-2", Workspace: "/w"}, Action{Kind: ActionRunEnd, Run: "turn-1"}, HookState{Session: "s", Turns: 2, Run: "turn-2", Workspace: "/w"}},
		{"tool start", HookState{Session: "s", Turns: 2, Run: "turn-2"}, Action{Kind: ActionToolStart, Run: "turn-2", Call: "c"}, HookState{Session: "s", Turns: 2, Run: "turn-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Apply(tt.st, tt.a); got != tt.want {
				t.Errorf("Apply = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWindowed(t *testing.T) {
	for tool, want := range map[string]bool{
		"Bash": true, "Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true, "mcp__github__push": true,
		"Read": false, "Grep": false, "Glob": false, "WebFetch": false, "TodoWrite": false, "Task": false,
	} {
		if got := Windowed(tool); got != want {
			t.Errorf("Windowed(%q) = %v, want %v", tool, got, want)
		}
	}
}

func TestHookStateName(t *testing.T) {
	tests := []struct{ session, want string }{
		{sid, sid},
		{"abc_DEF.1", "abc_DEF.1"},
	}
	for _, tt := range tests {
		if got := HookStateName(tt.session); got != tt.want {
			t.Errorf("HookStateName(%q) = %q, want %q", tt.session, got, tt.want)
		}
	}
	for _, s := range []string{"../../etc/passwd", "a/b", ".hidden", "x y", strings.Repeat("a", 200), "é"} {
		got := HookStateName(s)
		if !safeNamePattern.MatchString(got) || !strings.HasPrefix(got, "session-") {
			t.Errorf("HookStateName(%q) = %q, not a safe hashed name", s, got)
		}
	}
	if HookStateName("a/b") == HookStateName("a/c") {
		t.Error("different sessions share a state file")
	}
}

func TestDriftContext(t *testing.T) {
	if got := DriftContext(api.RunStart{SessionID: "s", RunID: "turn-2", PrevCheckpointID: "c1"}); got != "" {
		t.Errorf("no drift: context %q", got)
	}
	rs := api.RunStart{
		SessionID: "s", RunID: "turn-2", PrevCheckpointID: "c9", WorkspaceDrifted: true,
		Drift: []api.Change{{Path: "src/a.go", Kind: "modified"}, {Path: "new.txt", Kind: "added"}, {Path: "old.txt", Kind: "deleted"}},
	}
	got := DriftContext(rs)
	for _, want := range []string{"3 paths", "  modified: \"src/a.go\"\n", "  added: \"new.txt\"\n", "  deleted: \"old.txt\"\n", "run s/turn-2", "checkpoint c9", "ckpt diff --session s --run turn-2"} {
		if !strings.Contains(got, want) {
			t.Errorf("context lacks %q:\n%s", want, got)
		}
	}
	var many []api.Change
	for i := range maxListed + 7 {
		many = append(many, api.Change{Path: "f" + strings.Repeat("x", i), Kind: "added"})
	}
	rs.Drift = many
	got = DriftContext(rs)
	if n := strings.Count(got, "  added: "); n != maxListed {
		t.Errorf("listed %d paths, want %d", n, maxListed)
	}
	if !strings.Contains(got, "</ckpt-paths>\n… and 7 more (ckpt show c9 lists them all)\n") {
		t.Errorf("no tail line:\n%s", got)
	}
}

func TestContextOutput(t *testing.T) {
	if got := ContextOutput(EventUserPromptSubmit, ""); got != nil {
		t.Errorf("empty text: output %q", got)
	}
	got := ContextOutput(EventUserPromptSubmit, "ckpt: a \"b\"\n")
	var o struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(got, &o); err != nil {
		t.Fatalf("output %q: %v", got, err)
	}
	if o.HookSpecificOutput.HookEventName != EventUserPromptSubmit || o.HookSpecificOutput.AdditionalContext != "ckpt: a \"b\"\n" {
		t.Errorf("output %+v", o)
	}
	if strings.Count(string(got), "\n") != 1 {
		t.Errorf("output %q is not one line", got)
	}
}

func TestUncoveredContext(t *testing.T) {
	if got := UncoveredContext(api.ToolEnd{}); got != "" {
		t.Errorf("nothing uncovered: %q", got)
	}
	got := UncoveredContext(api.ToolEnd{UncoveredPaths: []string{"big.bin"}})
	if !strings.Contains(got, "<ckpt-paths>\n  \"big.bin\"\n</ckpt-paths>\n") || !strings.Contains(got, "cannot undo") {
		t.Errorf("context %q", got)
	}
}

// TestSettingsExample: the example settings.json registers ckpt for
// exactly the events it acts on.
func TestSettingsExample(t *testing.T) {
	data, err := os.ReadFile("../../claude-code-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	want := []string{EventUserPromptSubmit, EventPreToolUse, EventPostToolUse, EventPostToolUseFailure, EventStop, EventStopFailure, EventSubagentStop, EventSessionEnd}
	if len(s.Hooks) != len(want) {
		t.Errorf("registers %d events, want %v", len(s.Hooks), want)
	}
	for _, ev := range want {
		groups := s.Hooks[ev]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: %+v, want one hook", ev, groups)
			continue
		}
		h := groups[0].Hooks[0]
		if h.Type != "command" || h.Command != "ckpt hook claude-code" || h.Timeout <= 0 {
			t.Errorf("%s: hook %+v", ev, h)
		}
		if isToolEvent(ev) != (groups[0].Matcher != "") {
			t.Errorf("%s: matcher %q", ev, groups[0].Matcher)
		}
	}
}
