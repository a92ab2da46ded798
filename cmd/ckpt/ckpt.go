// Command ckpt is the client of ckpt: people, scripts and agent runtimes
// call it to see drift, cut checkpoints, diff, restore and undo, and to
// mark runs and tool calls. The commands are in cmd/internal/cli.
package main

import "github.com/ckptdev/ckpt/cmd/internal/cli"

func main() { cli.Main() }
