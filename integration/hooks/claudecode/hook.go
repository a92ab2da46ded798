package claudecode

// Claude Code hooks: parsing a hook's JSON payload and mapping each event
// to the runs and tool windows ckpt keeps. Everything here is pure; the
// command (cmd/ckpt hook claude-code) reads stdin, persists HookState and
// calls the engine. HOOKS.md says how to register the hooks.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/integration/agenttext"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/hooks/payload"
	"github.com/ckptdev/ckpt/internal/ckptid"
	"github.com/ckptdev/ckpt/internal/plural"
)

// Claude Code hook events (hook_event_name) that ckpt acts on. Any other
// event is accepted and ignored.
const (
	EventSessionStart       = "SessionStart"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventStop               = "Stop"
	EventSessionEnd         = "SessionEnd"
)

// maxListed bounds the paths listed in a context message (agenttext).
const maxListed = agenttext.MaxListed

// HookInput is one hook payload: the common fields and those of the events
// ckpt handles. Unknown fields are ignored; optional fields of the wrong
// type are treated as absent, so a newer Claude Code does not break ckpt.
type HookInput struct {
	Event          string // hook_event_name
	SessionID      string
	Cwd            string
	TranscriptPath string
	PromptID       string // newer Claude Code versions only
	Prompt         string // UserPromptSubmit
	ToolName       string // PreToolUse, PostToolUse, PostToolUseFailure
	ToolUseID      string // as sent; may be empty in old versions
	StopHookActive bool   // Stop
	IsInterrupt    bool   // PostToolUseFailure: the person interrupted the call
	Source         string // SessionStart
	Reason         string // SessionEnd
	AgentID        string // set inside subagents
	// InterruptedAt: EventInterrupt: when the transcript says the person
	// interrupted the turn; the run ends as of then.
	InterruptedAt time.Time
	// RunningSubagents: Stop, SubagentStop: the background subagents
	// background_tasks lists as running (their agent ids).
	RunningSubagents []string

	// CallID is the tool call id ckpt uses: tool_use_id, or, when Claude
	// Code sent none, a hash of the tool name and input (the same in
	// PreToolUse and PostToolUse).
	CallID string
	// Command describes the tool call for the record: the Bash command, or
	// the tool name and the path it works on.
	Command string
}

// known reports whether ckpt acts on the event.
func known(event string) bool {
	switch event {
	case EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPostToolUse,
		EventPostToolUseFailure, EventStop, EventSessionEnd, EventStopFailure, EventSubagentStop:
		return true
	}
	return false
}

func isToolEvent(event string) bool {
	return event == EventPreToolUse || event == EventPostToolUse || event == EventPostToolUseFailure
}

// ParseHook parses a hook payload. Bad input (not a JSON object, no
// hook_event_name, no usable session_id or tool_name where ckpt needs them)
// is an error marked api.ErrInvalid.
func ParseHook(data []byte) (HookInput, error) {
	p, err := payload.Decode(data)
	if err != nil {
		return HookInput{}, err
	}
	var in HookInput
	if in.Event, err = p.Required("hook_event_name"); err != nil {
		return HookInput{}, err
	}
	in.Cwd = p.String("cwd")
	in.TranscriptPath = p.String("transcript_path")
	in.PromptID = p.String("prompt_id")
	in.Prompt = p.String("prompt")
	in.Source = p.String("source")
	in.Reason = p.String("reason")
	in.AgentID = p.String("agent_id")
	in.RunningSubagents = runningSubagents(p)
	in.ToolUseID = p.String("tool_use_id")
	in.SessionID = p.String("session_id")
	in.StopHookActive = p.Bool("stop_hook_active")
	in.IsInterrupt = p.Bool("is_interrupt")
	if !known(in.Event) {
		return in, nil
	}
	if in.SessionID, err = p.ID("session_id"); err != nil {
		return HookInput{}, err
	}
	if !isToolEvent(in.Event) {
		return in, nil
	}
	if in.ToolName, err = p.Required("tool_name"); err != nil {
		return HookInput{}, err
	}
	in.CallID = payload.CallID(in.ToolUseID, in.ToolName, p["tool_input"])
	in.Command = toolCommand(in.ToolName, p.Object("tool_input"))
	return in, nil
}

// toolCommand is the record of a tool call: "sed -i ... f" for Bash,
// "Edit src/a.go" for a tool working on a path, else the tool name.
func toolCommand(tool string, input payload.Payload) string {
	return payload.ToolCommand(tool, input, tool == "Bash", "command", "file_path", "notebook_path", "path", "url")
}

// readOnlyTools never write files: they get no tool window. They are
// Claude Code 2.1.332's tools (the tools of its API requests, and the
// deferred ones ToolSearch loads) that only read or keep the session's own
// records. Agent (formerly Task) starts a subagent whose own tool calls
// get windows of their own.
var readOnlyTools = map[string]bool{
	"Read": true, "Glob": true, "Grep": true, "WebFetch": true, "WebSearch": true,
	"TodoWrite": true, "ToolSearch": true, "ListAgents": true, "AskUserQuestion": true,
	"EnterPlanMode": true, "ExitPlanMode": true, "ListMcpResourcesTool": true, "ReadMcpResourceTool": true,
	"TaskCreate": true, "TaskGet": true, "TaskList": true, "TaskUpdate": true, "TaskOutput": true,
	"Task": true, "Agent": true,
}

// Windowed reports whether a tool's calls get a tool window (a pre_write
// checkpoint and a side-effect report). Unknown tools, MCP tools included,
// do: they may write files.
func Windowed(tool string) bool { return !readOnlyTools[tool] }

// HookState is what the hook remembers about one Claude Code session
// between invocations; the command persists it in the state directory.
type HookState struct {
	Session string `json:"session_id"`
	// Turns counts the runs started in this session: the next one is
	// turn-(Turns+1).
	Turns int `json:"turns"`
	// Run is the open run, if any.
	Run string `json:"run_id,omitempty"`
	// Workspace is the root the open run lives in: its tool windows and its
	// end go there even if the agent cd'ed elsewhere.
	Workspace string `json:"workspace,omitempty"`
	// Waiting: the main agent stopped while background subagents ran; the
	// run ends when they do.
	Waiting bool `json:"waiting,omitempty"`
	// Transcript is the open run's transcript_path, and TranscriptOffset
	// how far the hooks have read it: an interrupt it records after that
	// ends the run.
	Transcript       string `json:"transcript,omitempty"`
	TranscriptOffset int64  `json:"transcript_offset,omitempty"`
}

// NextRun is the id of the session's next run.
func (s HookState) NextRun() string { return "turn-" + strconv.Itoa(s.Turns+1) }

// ActionKind is what the hook asks the engine to do.
type ActionKind string

// The actions, as `ckpt run start|end` and `ckpt tool start|end`.
const (
	ActionRunStart  ActionKind = "run_start"
	ActionRunEnd    ActionKind = "run_end"
	ActionToolStart ActionKind = "tool_start"
	ActionToolEnd   ActionKind = "tool_end"
	// ActionRunWait keeps the run open for its background subagents; it
	// calls nothing.
	ActionRunWait ActionKind = "run_wait"
)

// Action is one engine call, with every id filled in.
type Action struct {
	Kind    ActionKind
	Session string
	Run     string
	Call    string
	Command string
	// Agent is the subagent that made a tool call; "" for the main agent.
	Agent string
	// AsOf: a run end as of this moment already past (an interrupt);
	// zero: now.
	AsOf time.Time
}

// ToolRequest is the action as the engine's tool request.
func (a Action) ToolRequest() api.ToolRequest {
	return api.ToolRequest{Session: a.Session, Run: a.Run, Call: a.Call, Command: a.Command}
}

// Relevant reports whether an event can lead to any action. When it is
// false, Plan returns none whatever the state, and the command need not
// load the state or open the workspace.
func Relevant(in HookInput) bool {
	switch in.Event {
	case EventUserPromptSubmit, EventStop, EventSessionEnd, EventStopFailure, EventSubagentStop, EventInterrupt:
		return true
	case EventPreToolUse, EventPostToolUse:
		return Windowed(in.ToolName)
	case EventPostToolUseFailure:
		return Windowed(in.ToolName) || in.IsInterrupt
	}
	return false
}

// Plan maps an event to the actions it takes, given the session's state:
//
//	UserPromptSubmit        end the open run if any (a turn the person
//	                        interrupted gets no Stop), start turn-N+1
//	PreToolUse              start a run if none is open (hooks installed
//	                        mid-turn, or a Stop hook made the agent go on),
//	                        then open the call's tool window
//	PostToolUse(Failure)    close the call's window, if a run is open; a
//	                        failure the person caused by interrupting also
//	                        ends the run: the turn is over, and no Stop comes
//	Stop                    end the open run, if any, unless background
//	                        subagents still run: then the run waits for them
//	SubagentStop            end a waiting run when its last subagent stops
//	StopFailure, SessionEnd end the open run, if any; so does an interrupt
//	                        the transcript records (EventInterrupt), as of
//	                        the interrupt's time
//	anything else           nothing
//
// Read-only tools get no window. Apply each action's effect on the state,
// in order, as it succeeds.
func Plan(in HookInput, st HookState) []Action {
	s := in.SessionID
	var acts []Action
	endOpen := func() {
		if st.Run != "" {
			acts = append(acts, Action{Kind: ActionRunEnd, Session: s, Run: st.Run})
		}
	}
	switch in.Event {
	case EventUserPromptSubmit:
		endOpen()
		acts = append(acts, Action{Kind: ActionRunStart, Session: s, Run: st.NextRun()})
	case EventPreToolUse:
		if !Windowed(in.ToolName) {
			return nil
		}
		run := st.Run
		if run == "" {
			run = st.NextRun()
			acts = append(acts, Action{Kind: ActionRunStart, Session: s, Run: run})
		}
		acts = append(acts, Action{Kind: ActionToolStart, Session: s, Run: run, Call: in.CallID, Command: in.Command, Agent: in.AgentID})
	case EventPostToolUse, EventPostToolUseFailure:
		if st.Run == "" {
			return nil
		}
		if !Windowed(in.ToolName) {
			if in.IsInterrupt {
				endOpen()
			}
			return acts
		}
		acts = append(acts, Action{Kind: ActionToolEnd, Session: s, Run: st.Run, Call: in.CallID})
		if in.IsInterrupt {
			endOpen()
		}
	case EventStop:
		return planStop(in, st)
	case EventSubagentStop:
		return planSubagentStop(in, st)
	case EventInterrupt:
		if st.Run != "" {
			acts = append(acts, Action{Kind: ActionRunEnd, Session: s, Run: st.Run, AsOf: interruptEnd(in.InterruptedAt)})
		}
	case EventSessionEnd, EventStopFailure:
		endOpen()
	}
	return acts
}

// transcriptTick is the precision of a transcript's timestamps: Claude
// Code writes JavaScript's toISOString, to the millisecond.
const transcriptTick = time.Millisecond

// interruptEnd is the moment a run interrupted at at (as the transcript
// writes it) ends as of: the end of that millisecond, since the interrupt
// came within it, and what the agent wrote just before it is the run's.
func interruptEnd(at time.Time) time.Time {
	if at.IsZero() {
		return at
	}
	return at.Truncate(transcriptTick).Add(transcriptTick - 1)
}

// Apply is the state after an action succeeded. The command sets
// Workspace after a run start.
func Apply(st HookState, a Action) HookState {
	switch a.Kind {
	case ActionRunStart:
		st.Turns++
		if n, ok := strings.CutPrefix(a.Run, "turn-"); ok {
			if n, err := strconv.Atoi(n); err == nil && n > st.Turns {
				st.Turns = n
			}
		}
		st.Run, st.Waiting = a.Run, false
	case ActionRunEnd:
		if st.Run == a.Run {
			st.Run, st.Workspace, st.Waiting, st.Transcript, st.TranscriptOffset = "", "", false, "", 0
		}
	case ActionRunWait:
		st.Waiting = st.Run == a.Run
	case ActionToolStart:
		if a.Agent == "" {
			st.Waiting = false // the main agent goes on: its next Stop decides
		}
	}
	return st
}

// HookStateName is the file name (without extension) of a session's state:
// the session id if it is a safe file name, else a hash of it.
func HookStateName(session string) string {
	if ckptid.Valid(session) {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return "session-" + hex.EncodeToString(sum[:16])
}

// hookOutput is the JSON answer Claude Code reads from a hook's stdout.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// ContextOutput is the stdout that adds text to the agent's context for
// this event (UserPromptSubmit, SessionStart, PostToolUse); nil when there
// is nothing to say.
func ContextOutput(event, text string) []byte {
	if text == "" {
		return nil
	}
	var o hookOutput
	o.HookSpecificOutput.HookEventName = event
	o.HookSpecificOutput.AdditionalContext = text
	b, err := json.Marshal(o)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// DriftContext tells the agent, at the start of its turn, which files
// changed outside any run since its last turn ended: the person's (or
// another program's) edits. Empty when nothing drifted. The paths are data
// written by anyone who can name a file: they are quoted, capped and
// fenced off (writePaths) so that none can read as an instruction.
func DriftContext(rs api.RunStart) string {
	if !rs.WorkspaceDrifted || len(rs.Drift) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ckpt: since your last turn, %s in this workspace %s changed outside your runs (by the person or another program). Re-read them before relying on what you remember of them; do not undo these changes unless asked.\n", plural.Count(len(rs.Drift), "path"), wereWas(len(rs.Drift)))
	writePaths(&b, rs.Drift, "ckpt show "+contextID(rs.PrevCheckpointID)+" lists them all")
	session, run, cp := contextID(rs.SessionID), contextID(rs.RunID), contextID(rs.PrevCheckpointID)
	fmt.Fprintf(&b, "This turn is ckpt run %s/%s; its baseline is checkpoint %s (taken after those changes), so `ckpt diff --session %s --run %s` will show only your changes.\n",
		session, run, cp, session, run)
	return b.String()
}

// UncoveredContext warns the agent, after a tool call, about paths the
// call changed whose earlier content ckpt could not store (too large,
// unreadable): that change cannot be undone by ckpt. Empty otherwise.
func UncoveredContext(te api.ToolEnd) string {
	if len(te.UncoveredPaths) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ckpt: this tool call changed %s whose earlier content is not stored (too large or unreadable); ckpt cannot undo these changes.\n", plural.Count(len(te.UncoveredPaths), "path"))
	changes := make([]api.Change, len(te.UncoveredPaths))
	for i, p := range te.UncoveredPaths {
		changes[i] = api.Change{Path: p}
	}
	writePaths(&b, changes, "")
	return b.String()
}

// wereWas agrees the verb with a count of n.
func wereWas(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}
