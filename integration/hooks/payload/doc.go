// Package payload reads the agent runtimes' hook payloads leniently (an
// unknown field is ignored, an optional field of the wrong type is
// absent) and names their tool calls: the one reader that Claude Code's
// hook (hooks/claudecode) and the other runtimes' adapters share.
package payload
