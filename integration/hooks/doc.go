// Package hooks holds what the agent runtimes' hook adapters share: the
// Adapter interface through which `ckpt hook RUNTIME` drives the one
// core (claudecode.Plan: a run per turn, a tool window per writing tool
// call), and lenient payload readers. Each runtime's package
// (hooks/codex, hooks/gemini, hooks/cursor) maps its own events onto the
// core's (claudecode.Event*) and formats its own answers; hooks/install
// writes the runtimes' settings files.
package hooks
