package cli

import "github.com/spf13/cobra"

// topCommand builds one or more top-level commands, named by names.
type topCommand struct {
	names []string
	add   func(root *cobra.Command, g *globalOptions)
}

func one(name string, build func(*globalOptions) *cobra.Command) topCommand {
	return topCommand{[]string{name}, func(root *cobra.Command, g *globalOptions) { root.AddCommand(build(g)) }}
}

// topCommands are ckpt's commands, in the order `ckpt --help` lists them
// within each group.
var topCommands = []topCommand{
	one("status", newStatusCommand),
	one("checkpoint", newCheckpointCommand),
	one("log", newLogCommand),
	one("show", newShowCommand),
	one("diff", newDiffCommand),
	one("run", newRunCommand),
	one("tool", newToolCommand),
	one("exec", newExecCommand),
	one("restore", newRestoreCommand),
	one("undo", newUndoCommand),
	one("revert", newRevertCommand),
	one("history", newHistoryCommand),
	one("hook", newHookCommand),
	one("integrate", newIntegrateCommand),
	one("mcp", newMCPCommand),
	one("version", newVersionCommand),
	one("ui", newUICommand),
	one("review", newReviewCommand),
	one("workspaces", newWorkspacesCommand),
	one("gc", newGCCommand),
	{[]string{"push", "pull", "clone", "remote"}, addRemoteCommands},
}

// addCommands adds to root the command that args run, and only it:
// building every command with its flags, help and cobra's completion
// command is a measurable part of a start of ckpt (a hook runs ckpt twice
// per tool call). When args name no
// command of ckpt (none, help, completion, a typo that cobra answers with
// suggestions), every command is added, and cobra's completion command.
func addCommands(root *cobra.Command, g *globalOptions, args []string) {
	if name := commandName(args); name != "" {
		for _, c := range topCommands {
			for _, n := range c.names {
				if n == name {
					root.CompletionOptions.DisableDefaultCmd = true
					c.add(root, g)
					return
				}
			}
		}
	}
	for _, c := range topCommands {
		c.add(root, g)
	}
}

// rootValueFlags are the root's flags that take a value as the next
// argument when written without "=".
var rootValueFlags = map[string]bool{"-C": true, "--dir": true, "--state-dir": true, "--socket": true}

// commandName is the first argument that is not a root flag or its value:
// the command args run ("" if none).
func commandName(args []string) string {
	if i := commandIndex(args); i >= 0 {
		return args[i]
	}
	return ""
}

// subcommandName is the name after the command's in args, found the same
// way ("" if none).
func subcommandName(args []string) string {
	if i := commandIndex(args); i >= 0 {
		return commandName(args[i+1:])
	}
	return ""
}

// commandIndex is the index of commandName in args, -1 if none.
func commandIndex(args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return -1
		case rootValueFlags[a]:
			i++
		case len(a) > 1 && a[0] == '-':
		default:
			return i
		}
	}
	return -1
}
