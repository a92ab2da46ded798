package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The main agent's Stop and a subagent's SubagentStop, as Claude Code
// 2.1.332 sends them while a background subagent runs.
const (
	stopWhileBackground = `{"hook_event_name":"Stop","session_id":"s","stop_hook_active":false,
		"background_tasks":[{"agent_type":"general-purpose","description":"bg","id":"a14a","status":"running","type":"subagent"},
		{"id":"b1","type":"shell","status":"running","command":"npm run dev"}]}`
	subagentStop = `{"hook_event_name":"SubagentStop","session_id":"s","agent_id":"a14a","agent_type":"general-purpose",
		"background_tasks":[{"agent_type":"general-purpose","description":"bg","id":"a14a","status":"running","type":"subagent"}]}`
)

func mustParse(t *testing.T, s string) HookInput {
	t.Helper()
	in, err := ParseHook([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func kindsOf(acts []Action) []ActionKind {
	var out []ActionKind
	for _, a := range acts {
		out = append(out, a.Kind)
	}
	return out
}

// TestBackgroundSubagents: a Stop with a running background subagent
// keeps the run open (a background shell does not); the subagent's tool
// calls go to it; its SubagentStop ends it; a later Stop with none running
// ends it; a foreground subagent's SubagentStop ends nothing.
func TestBackgroundSubagents(t *testing.T) {
	stop := mustParse(t, stopWhileBackground)
	if !slices.Equal(stop.RunningSubagents, []string{"a14a"}) {
		t.Fatalf("RunningSubagents = %v, want [a14a] (the shell task does not count)", stop.RunningSubagents)
	}
	st := HookState{Session: "s", Turns: 1, Run: "turn-1"}
	acts := Plan(stop, st)
	if !slices.Equal(kindsOf(acts), []ActionKind{ActionRunWait}) {
		t.Fatalf("Stop with a running subagent: %v, want run_wait", kindsOf(acts))
	}
	st = Apply(st, acts[0])
	if !st.Waiting || st.Run != "turn-1" {
		t.Fatalf("after run_wait: %+v", st)
	}
	pre := mustParse(t, `{"hook_event_name":"PreToolUse","session_id":"s","agent_id":"a14a","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo > s.txt"}}`)
	acts = Plan(pre, st)
	if len(acts) != 1 || acts[0].Kind != ActionToolStart || acts[0].Run != "turn-1" || acts[0].Agent != "a14a" {
		t.Fatalf("the subagent's PreToolUse: %+v, want a tool start in turn-1", acts)
	}
	if st2 := Apply(st, acts[0]); !st2.Waiting {
		t.Errorf("a subagent's tool call ended the wait")
	}
	acts = Plan(mustParse(t, subagentStop), st)
	if !slices.Equal(kindsOf(acts), []ActionKind{ActionRunEnd}) || acts[0].Run != "turn-1" {
		t.Fatalf("the last subagent's SubagentStop: %+v, want run end of turn-1", acts)
	}
	if acts := Plan(mustParse(t, subagentStop), HookState{Session: "s", Run: "turn-1"}); acts != nil {
		t.Errorf("SubagentStop while the main agent goes on: %v, want nothing", kindsOf(acts))
	}
	other := mustParse(t, `{"hook_event_name":"SubagentStop","session_id":"s","agent_id":"zz","background_tasks":[{"id":"a14a","status":"running","type":"subagent"},{"id":"zz","status":"running","type":"subagent"}]}`)
	if acts := Plan(other, st); acts != nil {
		t.Errorf("SubagentStop with another subagent running: %v, want nothing", kindsOf(acts))
	}
	done := mustParse(t, `{"hook_event_name":"Stop","session_id":"s","background_tasks":[]}`)
	if acts := Plan(done, st); !slices.Equal(kindsOf(acts), []ActionKind{ActionRunEnd}) {
		t.Errorf("Stop with none running: %v, want run end", kindsOf(acts))
	}
	main := mustParse(t, `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"true"}}`)
	if st2 := Apply(st, Plan(main, st)[0]); st2.Waiting {
		t.Errorf("the main agent's tool call left the run waiting: its next Stop decides")
	}
}

// TestStopFailureAndInterruptEndTheRun: StopFailure and an interrupt end
// the open run, and both are relevant events.
func TestStopFailureAndInterruptEndTheRun(t *testing.T) {
	st := HookState{Session: "s", Turns: 1, Run: "turn-1"}
	for _, in := range []HookInput{
		mustParse(t, `{"hook_event_name":"StopFailure","session_id":"s","error":"invalid_request"}`),
		{Event: EventInterrupt, SessionID: "s"},
	} {
		if !Relevant(in) {
			t.Errorf("%s is not relevant", in.Event)
		}
		if acts := Plan(in, st); !slices.Equal(kindsOf(acts), []ActionKind{ActionRunEnd}) {
			t.Errorf("%s: %v, want run end", in.Event, kindsOf(acts))
		}
	}
}

// TestTodaysTools: tools that only read get no window; those Claude Code
// 2.1.332 no longer has are not special any more.
func TestTodaysTools(t *testing.T) {
	for _, tool := range []string{"ToolSearch", "ListAgents", "Agent", "TaskList", "AskUserQuestion"} {
		if Windowed(tool) {
			t.Errorf("Windowed(%q) = true, want false", tool)
		}
	}
	for _, tool := range []string{"Bash", "Write", "Edit", "NotebookEdit", "Skill", "Workflow", "LS", "BashOutput"} {
		if !Windowed(tool) {
			t.Errorf("Windowed(%q) = false, want true", tool)
		}
	}
}

// TestFindInterrupt reads the interrupt line 2.1.332 writes, from an
// offset on, and only complete lines.
func TestFindInterrupt(t *testing.T) {
	prompt := `{"type":"user","message":{"role":"user","content":"go"},"timestamp":"2026-12-01T10:54:47.461Z","isSidechain":false}` + "\n"
	quoted := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"[Request interrupted by user] is what it says"}]},"timestamp":"2026-12-01T10:54:47.500Z"}` + "\n"
	sidechain := `{"type":"user","isSidechain":true,"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"timestamp":"2026-12-01T10:54:47.600Z"}` + "\n"
	interrupt := `{"parentUuid":"f3e9","isSidechain":false,"promptId":"bd48","type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"rowSource":"harness","timestamp":"2026-12-01T10:54:47.806Z"}` + "\n"
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(prompt + quoted + sidechain + interrupt[:40])
	_, found, next, err := FindInterrupt(path, 0, time.Time{})
	if err != nil || found || next != int64(len(prompt+quoted+sidechain)) {
		t.Fatalf("before the interrupt line is complete: found %v, next %d, %v", found, next, err)
	}
	write(prompt + quoted + sidechain + interrupt)
	at, found, _, err := FindInterrupt(path, next, time.Time{})
	if err != nil || !found || !at.Equal(time.Date(2026, 12, 1, 10, 54, 47, 806e6, time.UTC)) {
		t.Fatalf("FindInterrupt from the line's start = %v, %v, %v; want found at 10:54:47.806", at, found, err)
	}
	if _, found, _, _ := FindInterrupt(path, next+1, time.Time{}); found {
		t.Errorf("an offset inside the line found it: that line was cut")
	}
	if _, found, _, _ := FindInterrupt(path, 0, at.Add(time.Millisecond)); found {
		t.Errorf("an interrupt before since was found")
	}
	if _, found, _, err := FindInterrupt(filepath.Join(t.TempDir(), "none"), 0, time.Time{}); found || err != nil {
		t.Errorf("a missing transcript: found %v, %v", found, err)
	}
}

func TestUndoMessage(t *testing.T) {
	got := string(UndoMessage("8f14e45f-ceea", "turn-2"))
	want := `{"systemMessage":"ckpt: to undo this turn: ckpt revert --session 8f14e45f-ceea --run turn-2"}` + "\n"
	if got != want {
		t.Errorf("UndoMessage = %q, want %q", got, want)
	}
}

// TestInterruptEndsAsOfIt: the run an interrupt ends ends as of the end of
// the millisecond the transcript gives for it, not when ckpt learns of it.
func TestInterruptEndsAsOfIt(t *testing.T) {
	st := HookState{Session: "s", Turns: 1, Run: "turn-1"}
	at := time.Date(2026, 12, 1, 10, 54, 47, 806e6, time.UTC)
	acts := Plan(HookInput{Event: EventInterrupt, SessionID: "s", InterruptedAt: at}, st)
	if len(acts) != 1 || acts[0].Kind != ActionRunEnd || !acts[0].AsOf.Equal(at.Add(time.Millisecond-1)) {
		t.Fatalf("plan = %+v, want a run end as of %v", acts, at.Add(time.Millisecond-1))
	}
	stop := mustParse(t, `{"hook_event_name":"Stop","session_id":"s"}`)
	if acts := Plan(stop, st); len(acts) != 1 || !acts[0].AsOf.IsZero() {
		t.Errorf("Stop's run end = %+v, want one as of now", acts)
	}
}
