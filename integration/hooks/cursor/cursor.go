package cursor

import (
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/install"
	"github.com/ckptdev/ckpt/integration/hooks/payload"
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

// format is Cursor's payload: the session is the conversation.
var format = hooks.Format{
	Events: map[string]string{
		EventBeforeSubmitPrompt: claudecode.EventUserPromptSubmit,
		EventPreToolUse:         claudecode.EventPreToolUse,
		EventPostToolUse:        claudecode.EventPostToolUse,
		EventPostToolUseFailure: claudecode.EventPostToolUse,
		EventStop:               claudecode.EventStop,
		EventSessionEnd:         claudecode.EventSessionEnd,
	},
	SessionKey: "conversation_id",
	CallIDKey:  "tool_use_id",
	Command: func(tool string, input payload.Payload) string {
		return payload.ToolCommand(tool, input, tool == Shell, "command", "file_path", "path", "target_file")
	},
}

// Parse implements hooks.Adapter: the project is the first of
// workspace_roots, and the cwd when the payload has none.
func (Adapter) Parse(data []byte) (hooks.Event, error) {
	ev, p, err := format.Parse(data)
	if err != nil {
		return hooks.Event{}, err
	}
	if roots := p.Strings("workspace_roots"); len(roots) > 0 {
		ev.ProjectDir = roots[0]
	}
	if ev.Cwd == "" {
		ev.Cwd = ev.ProjectDir
	}
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
