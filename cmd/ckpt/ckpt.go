// Command ckpt is the client of ckpt: people, scripts and agent runtimes
// call it to see drift, cut checkpoints, diff, restore and undo, and to
// mark runs and tool calls. The commands are in cmd/internal/cli.
//
// ckpt does not link the engine (the store, Badger, the MCP SDK): with a
// daemon it starts about as fast as a binary that does nothing. A command
// that needs the engine (no daemon serves the workspace, ckpt mcp) is run
// by ckptd, found beside ckpt or on $PATH, as `ckptd ckpt ARGS...`.
package main

import "github.com/ckptdev/ckpt/cmd/internal/cli"

func main() { cli.Main(cli.Options{}) }
