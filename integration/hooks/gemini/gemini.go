package gemini

import (
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// Gemini CLI's events that ckpt acts on.
const (
	EventBeforeAgent = "BeforeAgent"
	EventBeforeTool  = "BeforeTool"
	EventAfterTool   = "AfterTool"
	EventAfterAgent  = "AfterAgent"
	EventSessionEnd  = "SessionEnd"
)

// Install is where Gemini CLI reads hooks and what ckpt registers:
// timeouts in milliseconds.
var Install = install.Spec{
	Runtime:     "gemini",
	ProjectFile: ".gemini/settings.json",
	UserFile:    ".gemini/settings.json",
	Layout:      install.Grouped,
	TimeoutUnit: "ms",
	Name:        "ckpt",
	Hooks: []install.Hook{
		{Event: EventBeforeAgent, Timeout: 120000},
		{Event: EventBeforeTool, Matcher: ".*", Timeout: 60000},
		{Event: EventAfterTool, Matcher: ".*", Timeout: 60000},
		{Event: EventAfterAgent, Timeout: 60000},
		{Event: EventSessionEnd, Timeout: 60000},
	},
}

// Shell is Gemini CLI's shell tool; its input's "command" is the command.
const Shell = "run_shell_command"

// readOnly are Gemini CLI's built-in tools that never write a file in
// the workspace (packages/core/src/tools/definitions/base-declarations.ts).
var readOnly = map[string]bool{
	"read_file": true, "read_many_files": true, "list_directory": true, "glob": true,
	"grep_search": true, "google_web_search": true, "web_fetch": true, "write_todos": true,
	"get_internal_docs": true, "activate_skill": true, "ask_user": true,
	"enter_plan_mode": true, "exit_plan_mode": true, "update_topic": true,
	"complete_task": true, "read_mcp_resource": true, "list_mcp_resources": true,
	"save_memory": true, "invoke_agent": true,
}

// Adapter is Gemini CLI's hooks.Adapter.
type Adapter struct {
	// ProjectDir is $GEMINI_PROJECT_DIR, which Gemini CLI sets for hooks.
	ProjectDir string
}

// Runtime implements hooks.Adapter.
func (Adapter) Runtime() string { return "gemini" }

// Windowed implements hooks.Adapter: every tool but the read-only ones
// (run_shell_command, write_file, replace, MCP tools, tools ckpt does not
// know).
func (Adapter) Windowed(tool string) bool { return !readOnly[tool] }

// Parse implements hooks.Adapter.
func (a Adapter) Parse(data []byte) (hooks.Event, error) {
	p, err := hooks.Decode(data)
	if err != nil {
		return hooks.Event{}, err
	}
	native, err := p.Required("hook_event_name")
	if err != nil {
		return hooks.Event{}, err
	}
	ev := hooks.Event{Native: native, ProjectDir: a.ProjectDir}
	ev.Cwd = p.String("cwd")
	ev.TranscriptPath = p.String("transcript_path")
	ev.Prompt = p.String("prompt")
	switch native {
	case EventBeforeAgent:
		ev.Event = claudecode.EventUserPromptSubmit
	case EventBeforeTool:
		ev.Event = claudecode.EventPreToolUse
	case EventAfterTool:
		ev.Event = claudecode.EventPostToolUse
	case EventAfterAgent:
		ev.Event = claudecode.EventStop
	case EventSessionEnd:
		ev.Event = claudecode.EventSessionEnd
	default:
		return ev, nil
	}
	if ev.SessionID, err = p.ID("session_id"); err != nil {
		return hooks.Event{}, err
	}
	if ev.Event != claudecode.EventPreToolUse && ev.Event != claudecode.EventPostToolUse {
		return ev, nil
	}
	if ev.ToolName, err = p.Required("tool_name"); err != nil {
		return hooks.Event{}, err
	}
	// No call id: BeforeTool and AfterTool carry the same tool_input.
	ev.CallID = hooks.CallID("", ev.ToolName, p["tool_input"])
	ev.Command = hooks.ToolCommand(ev.ToolName, p.Object("tool_input"), ev.ToolName == Shell, "command", "file_path", "dir_path", "path")
	return ev, nil
}

// Output implements hooks.Adapter: the drift since the agent's last turn
// as BeforeAgent's additionalContext, unstored changes as AfterTool's,
// and at AfterAgent a systemMessage (shown to the person) with the
// command that undoes the turn.
func (Adapter) Output(o hooks.Outcome) []byte {
	switch {
	case o.Started != nil && o.Event.Native == EventBeforeAgent:
		return contextOutput(EventBeforeAgent, claudecode.DriftContext(*o.Started))
	case o.ToolEnd != nil && o.Event.Native == EventAfterTool:
		return contextOutput(EventAfterTool, claudecode.UncoveredContext(*o.ToolEnd))
	case o.Ended != nil && o.Event.Native == EventAfterAgent && len(o.Ended.Files) > 0:
		return hooks.JSONLine(map[string]string{"systemMessage": hooks.UndoLine(o.Ended.SessionID, o.Ended.RunID)})
	}
	return nil
}

func contextOutput(event, text string) []byte {
	if text == "" {
		return nil
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	return hooks.JSONLine(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{event, text}})
}
