// Package codex is the OpenAI Codex CLI's side of `ckpt hook codex` and
// `ckpt integrate codex`. Codex's command hooks (codex-rs/hooks, its
// generated schemas in codex-rs/hooks/schema/generated) send Claude
// Code's payload shape: hook_event_name, session_id, turn_id, cwd,
// tool_name ("Bash", "apply_patch", or an MCP tool "mcp__server__tool"),
// tool_input (the shell command, or the patch, in "command"),
// tool_use_id. Exit code 2 blocks (PreToolUse: the call; Stop: the agent
// goes on); any other non-zero code is a failure Codex reports and goes
// past.
package codex
