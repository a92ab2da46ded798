// Package claudecode is the Claude Code adapter and its installer.
//
// The adapter parses a hook's JSON payload and maps each event onto the
// runs and tool windows ckpt keeps (Plan, Apply), and writes the context
// Claude Code is shown. It is also the core the other runtimes' adapters
// (integration/hooks/codex, gemini, cursor) map their events onto.
// Everything here is pure; the command (ckpt hook claude-code, ckpt hook
// RUNTIME) reads stdin, persists HookState and calls the engine or the
// daemon.
//
// Install is where Claude Code reads hooks and what `ckpt integrate
// claude-code` registers there: the events integration/HOOKS.md documents
// and integration/claude-code-settings.json shows.
package claudecode
