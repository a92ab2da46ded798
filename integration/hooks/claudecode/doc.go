// Package claudecode is Claude Code's side of `ckpt integrate
// claude-code`: where Claude Code reads hooks and what ckpt registers
// there (the events integration/HOOKS.md documents).
package claudecode
