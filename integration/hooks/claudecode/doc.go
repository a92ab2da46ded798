// Package claudecode is the Claude Code adapter: it parses a hook's JSON
// payload and maps each event onto the runs and tool windows ckpt keeps
// (Plan, Apply), and writes the context Claude Code is shown. Everything
// here is pure; the command (ckpt hook claude-code) reads stdin, persists
// HookState and calls the engine or the daemon. integration/HOOKS.md says
// how to register the hooks.
package claudecode
