package claudecode

import "github.com/ckptdev/ckpt/integration/hooks/install"

// Install registers `ckpt hook claude-code` for every event it acts on:
// timeouts in seconds; the first prompt in a workspace imports it
// (embedded mode), and SessionEnd may end a run whose final scan takes a
// while on a large tree.
var Install = install.Spec{
	Runtime:     "claude-code",
	ProjectFile: ".claude/settings.json",
	UserFile:    ".claude/settings.json",
	Layout:      install.Grouped,
	TimeoutUnit: "s",
	Hooks: []install.Hook{
		{Event: "UserPromptSubmit", Timeout: 120},
		{Event: "PreToolUse", Matcher: "*", Timeout: 60},
		{Event: "PostToolUse", Matcher: "*", Timeout: 60},
		{Event: "PostToolUseFailure", Matcher: "*", Timeout: 60},
		{Event: "Stop", Timeout: 60},
		{Event: "StopFailure", Timeout: 60},
		{Event: "SubagentStop", Timeout: 60},
		{Event: "SessionEnd", Timeout: 60},
	},
}
