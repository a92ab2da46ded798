package codex

import (
	"strings"

	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/install"
)

// Codex's events that ckpt acts on.
const (
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventStop             = "Stop"
	// EventStopFailure ends a turn on an API error (newer releases).
	EventStopFailure = "StopFailure"
)

// Install is where Codex reads hooks and what ckpt registers: timeouts
// in seconds; the first prompt in a workspace imports it (embedded mode).
var Install = install.Spec{
	Runtime:     "codex",
	ProjectFile: ".codex/hooks.json",
	UserFile:    ".codex/hooks.json",
	Layout:      install.Grouped,
	TimeoutUnit: "s",
	Hooks: []install.Hook{
		{Event: EventUserPromptSubmit, Timeout: 120},
		{Event: EventPreToolUse, Timeout: 60},
		{Event: EventPostToolUse, Timeout: 60},
		{Event: EventStop, Timeout: 60},
	},
}

// Config is Codex's config.toml beside hooks.json, and the feature flag
// that turns hooks on in it ([features] hooks = true; on by default in
// current releases, off in older ones).
const (
	Config       = ".codex/config.toml"
	FeatureTable = "features"
	FeatureKey   = "hooks"
	// TrustTable and TrustKey hold the trust records: [hooks.state."KEY"]
	// trusted_hash = "HASH" (see Trust).
	TrustTable = "hooks.state"
	TrustKey   = "trusted_hash"
)

// Adapter is Codex's hooks.Adapter.
type Adapter struct{}

// Runtime implements hooks.Adapter.
func (Adapter) Runtime() string { return "codex" }

// Windowed implements hooks.Adapter: Codex sends tool events only for
// tools that may write (Bash, apply_patch, MCP tools).
func (Adapter) Windowed(string) bool { return true }

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
	ev.Cwd = p.String("cwd")
	ev.TranscriptPath = p.String("transcript_path")
	ev.Prompt = p.String("prompt")
	switch native {
	case EventUserPromptSubmit, EventPreToolUse, EventPostToolUse, EventStop:
		ev.Event = native
	case EventStopFailure:
		ev.Event = claudecode.EventStop
	default:
		return ev, nil
	}
	if ev.SessionID, err = p.ID("session_id"); err != nil {
		return hooks.Event{}, err
	}
	if ev.Event != EventPreToolUse && ev.Event != EventPostToolUse {
		return ev, nil
	}
	if ev.ToolName, err = p.Required("tool_name"); err != nil {
		return hooks.Event{}, err
	}
	ev.ToolUseID = p.String("tool_use_id")
	ev.CallID = hooks.CallID(ev.ToolUseID, ev.ToolName, p["tool_input"])
	ev.Command = command(ev.ToolName, p.Object("tool_input"))
	return ev, nil
}

// command is the record of a call: the Bash command; for apply_patch,
// the files the patch adds, updates or deletes; else the tool's name.
func command(tool string, input hooks.Payload) string {
	switch tool {
	case "Bash":
		return hooks.ToolCommand(tool, input, true, "command")
	case "apply_patch":
		var files []string
		for _, line := range strings.Split(input.String("command"), "\n") {
			for _, op := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if f, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), op); ok {
					files = append(files, f)
				}
			}
		}
		return hooks.Truncate(strings.TrimSpace("apply_patch "+strings.Join(files, " ")), hooks.MaxCommandLen)
	}
	return hooks.Truncate(tool, hooks.MaxCommandLen)
}

// Output implements hooks.Adapter: the drift since the agent's last turn
// as UserPromptSubmit's additionalContext, unstored changes as
// PostToolUse's, and at Stop a systemMessage (shown to the person) with
// the command that undoes the turn.
func (Adapter) Output(o hooks.Outcome) []byte {
	switch {
	case o.Started != nil && o.Event.Event == EventUserPromptSubmit:
		return contextOutput(EventUserPromptSubmit, claudecode.DriftContext(*o.Started))
	case o.ToolEnd != nil && o.Event.Event == EventPostToolUse:
		return contextOutput(EventPostToolUse, claudecode.UncoveredContext(*o.ToolEnd))
	case o.Ended != nil && o.Event.Event == EventStop && len(o.Ended.Files) > 0:
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
