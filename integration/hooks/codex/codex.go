package codex

import (
	"strings"

	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/install"
	"github.com/ckptdev/ckpt/integration/hooks/payload"
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

// format is Codex's payload: its event names are the core's.
var format = hooks.Format{
	Events: map[string]string{
		EventUserPromptSubmit: claudecode.EventUserPromptSubmit,
		EventPreToolUse:       claudecode.EventPreToolUse,
		EventPostToolUse:      claudecode.EventPostToolUse,
		EventStop:             claudecode.EventStop,
		EventStopFailure:      claudecode.EventStop,
	},
	SessionKey: "session_id",
	CallIDKey:  "tool_use_id",
	Command:    command,
}

// Parse implements hooks.Adapter.
func (Adapter) Parse(data []byte) (hooks.Event, error) {
	ev, _, err := format.Parse(data)
	return ev, err
}

// command is the record of a call: the Bash command; for apply_patch,
// the files the patch adds, updates or deletes; else the tool's name.
func command(tool string, input payload.Payload) string {
	switch tool {
	case "Bash":
		return payload.ToolCommand(tool, input, true, "command")
	case "apply_patch":
		var files []string
		for _, line := range strings.Split(input.String("command"), "\n") {
			for _, op := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
				if f, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), op); ok {
					files = append(files, f)
				}
			}
		}
		return payload.Truncate(strings.TrimSpace("apply_patch "+strings.Join(files, " ")), payload.MaxCommandLen)
	}
	return payload.Truncate(tool, payload.MaxCommandLen)
}

// Output implements hooks.Adapter: the drift since the agent's last turn
// as UserPromptSubmit's additionalContext, unstored changes as
// PostToolUse's, and at Stop a systemMessage (shown to the person) with
// the command that undoes the turn.
func (Adapter) Output(o hooks.Outcome) []byte { return hooks.ContextOutput(o) }
