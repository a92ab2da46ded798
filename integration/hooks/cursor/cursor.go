package cursor

import (
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// Cursor's events that ckpt acts on.
const (
	EventBeforeSubmitPrompt = "beforeSubmitPrompt"
	EventPreToolUse         = "preToolUse"
	EventPostToolUse        = "postToolUse"
	EventPostToolUseFailure = "postToolUseFailure"
	EventStop               = "stop"
	EventSessionEnd         = "sessionEnd"
)

// Install is where Cursor reads hooks and what ckpt registers: timeouts
// in seconds.
var Install = install.Spec{
	Runtime:     "cursor",
	ProjectFile: ".cursor/hooks.json",
	UserFile:    ".cursor/hooks.json",
	Layout:      install.Flat,
	TimeoutUnit: "s",
	TopLevel:    map[string]any{"version": 1},
	Hooks: []install.Hook{
		{Event: EventBeforeSubmitPrompt, Timeout: 120},
		{Event: EventPreToolUse, Timeout: 60},
		{Event: EventPostToolUse, Timeout: 60},
		{Event: EventPostToolUseFailure, Timeout: 60},
		{Event: EventStop, Timeout: 60},
		{Event: EventSessionEnd, Timeout: 60},
	},
}

// Shell is Cursor's shell tool; its input's "command" is the command.
const Shell = "Shell"

// readOnly are Cursor's agent tools that never write a file; Task starts
// a subagent whose own tool calls get windows.
var readOnly = map[string]bool{
	"Read": true, "Grep": true, "Glob": true, "LS": true, "SemanticSearch": true,
	"WebSearch": true, "WebFetch": true, "TodoWrite": true, "ReadLints": true, "Task": true,
}

// Adapter is Cursor's hooks.Adapter.
type Adapter struct{}

// Runtime implements hooks.Adapter.
func (Adapter) Runtime() string { return "cursor" }

// Windowed implements hooks.Adapter.
func (Adapter) Windowed(tool string) bool { return !readOnly[tool] }

// Parse implements hooks.Adapter.
func (Adapter) Parse(data []byte) (hooks.Event, error) {
	p, err := hooks.Decode(data)
	if err != nil {
		return hooks.Event{}, err
	}
	native, err := p.Required("hook_event_name")
	if err != nil {
		return hooks.Event{}, err
	}
	ev := hooks.Event{Native: native}
	roots := p.Strings("workspace_roots")
	if len(roots) > 0 {
		ev.ProjectDir = roots[0]
	}
	ev.Cwd = p.String("cwd")
	if ev.Cwd == "" {
		ev.Cwd = ev.ProjectDir
	}
	ev.TranscriptPath = p.String("transcript_path")
	ev.Prompt = p.String("prompt")
	switch native {
	case EventBeforeSubmitPrompt:
		ev.Event = claudecode.EventUserPromptSubmit
	case EventPreToolUse:
		ev.Event = claudecode.EventPreToolUse
	case EventPostToolUse, EventPostToolUseFailure:
		ev.Event = claudecode.EventPostToolUse
	case EventStop:
		ev.Event = claudecode.EventStop
	case EventSessionEnd:
		ev.Event = claudecode.EventSessionEnd
	default:
		return ev, nil
	}
	if ev.SessionID, err = p.ID("conversation_id"); err != nil {
		return hooks.Event{}, err
	}
	if ev.Event != claudecode.EventPreToolUse && ev.Event != claudecode.EventPostToolUse {
		return ev, nil
	}
	if ev.ToolName, err = p.Required("tool_name"); err != nil {
		return hooks.Event{}, err
	}
	ev.ToolUseID = p.String("tool_use_id")
	ev.CallID = hooks.CallID(ev.ToolUseID, ev.ToolName, p["tool_input"])
	ev.Command = hooks.ToolCommand(ev.ToolName, p.Object("tool_input"), ev.ToolName == Shell, "command", "file_path", "path", "target_file")
	return ev, nil
}

// DefersDrift implements hooks.DriftDeferrer: beforeSubmitPrompt takes no
// context, so the drift is told at the turn's first postToolUse.
func (Adapter) DefersDrift() bool { return true }

// Output implements hooks.Adapter: postToolUse's additional_context
// carries the drift since the agent's last turn (at the turn's first
// tool call) and the files the call changed that ckpt could not store.
// Nothing else: beforeSubmitPrompt takes no context, stop's answer would
// continue the agent.
func (Adapter) Output(o hooks.Outcome) []byte {
	if o.ToolEnd != nil && o.Event.Native == EventPostToolUse {
		if text := o.Pending + claudecode.UncoveredContext(*o.ToolEnd); text != "" {
			return hooks.JSONLine(map[string]string{"additional_context": text})
		}
	}
	return nil
}
