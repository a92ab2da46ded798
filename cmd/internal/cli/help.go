package cli

import (
	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
)

// The command groups of `ckpt --help`, in the order they are listed.
var commandGroups = []*cobra.Group{
	{ID: "inspect", Title: "Inspect the workspace:"},
	{ID: "undo", Title: "Checkpoints and undo:"},
	{ID: "runs", Title: "Runs and tools (for agent runtimes and their hooks):"},
}

// commandHelp is each command's group and examples, by command path
// (without "ckpt ").
var commandHelp = map[string]struct {
	group   string
	example string
}{
	"status": {"inspect", `  ckpt status
  ckpt status --rescan      # scan the whole workspace first
  ckpt status --json | jq .changes`},
	"log": {"inspect", `  ckpt log
  ckpt log -n 5
  ckpt log --json | jq -r '.checkpoints[0].checkpoint_id'`},
	"show": {"inspect", `  ckpt show c0123456789ab`},
	"diff": {"inspect", `  ckpt diff                          # the current checkpoint -> the working tree
  ckpt diff c0123456789ab            # that checkpoint -> the working tree
  ckpt diff FROM TO -- src/main.go   # paths go after --
  ckpt diff --patch
  ckpt diff --session s1 --run r1    # what a run changed`},
	"history": {"inspect", `  ckpt history src/main.go
  ckpt history -n 3 -- -odd-name.txt
  ckpt restore @42 src/main.go       # bring back a version it lists`},
	"ui": {"inspect", `  ckpt ui                    # open the panel in the browser (starts ckptd if needed)
  ckpt ui --no-browser       # only print its URL
  ckpt ui -C ~/src/project --json`},
	"workspaces": {"inspect", `  ckpt workspaces                    # what the daemon serves
  ckpt workspaces --json
  ckpt workspaces --forget ~/src/old # stop watching it; its history is kept`},
	"review": {"inspect", `  ckpt review --session s1 --run r1
  ckpt review --session s1 --run r1 --accept src/a.go src/b.go
  ckpt review --session s1 --run r1 --reject -- -odd-name.txt
  ckpt review --session s1 --run r1 --clear src/a.go`},
	"checkpoint": {"undo", `  ckpt checkpoint
  ckpt checkpoint -m "before the refactor"`},
	"restore": {"undo", `  ckpt restore c0123456789ab               # undo what runs changed since it
  ckpt restore c0123456789ab --exact       # the whole workspace exactly as it was
  ckpt restore c0123456789ab -- src/a.go   # only these paths
  ckpt restore c0123456789ab --dry-run`},
	"undo": {"undo", `  ckpt undo      # put back what the last restore changed`},
	"gc": {"undo", `  ckpt gc --dry-run                # what retention would prune, and what is pinned
  ckpt gc                          # prune now and give the space back
  CKPT_RETENTION=7d ckpt gc --json`},
	"revert": {"undo", `  ckpt revert --session s1 --run r1
  ckpt revert --session s1 --run r1 --call t7`},
	"run": {"runs", `  ckpt run start --session s1 --run r1
  ckpt run end --session s1 --run r1`},
	"run start": {"", `  ckpt run start --session s1 --run r1`},
	"run end":   {"", `  ckpt run end --session s1 --run r1 --json`},
	"tool": {"runs", `  ckpt tool start --session s1 --run r1 --call t7 --command "go test ./..."
  ckpt tool end --session s1 --run r1 --call t7`},
	"tool start": {"", `  ckpt tool start --session s1 --run r1 --call t7 --command "go test ./..."`},
	"tool end":   {"", `  ckpt tool end --session s1 --run r1 --call t7`},
	"exec": {"runs", `  ckpt exec --session s1 --run r1 -- go generate ./...
  ckpt exec --session s1 --run r1 --call t7 --json -- sh -c 'make fmt'`},
	"hook": {"runs", `  ckpt hook claude-code < hook-input.json
  ckpt hook codex < hook-input.json`},
	"hook claude-code": {"", `  # in Claude Code's settings.json (see integration/claude-code-settings.json):
  #   "command": "ckpt hook claude-code"
  ckpt hook claude-code < hook-input.json`},
	"hook codex": {"", `  # installed by: ckpt integrate codex
  ckpt hook codex < hook-input.json`},
	"hook gemini": {"", `  # installed by: ckpt integrate gemini
  ckpt hook gemini < hook-input.json`},
	"hook cursor": {"", `  # installed by: ckpt integrate cursor
  ckpt hook cursor < hook-input.json`},
	"integrate": {"runs", `  ckpt integrate                       # the runtimes found here, and where ckpt's hooks are
  ckpt integrate claude-code           # this workspace's .claude/settings.json
  ckpt integrate codex --user          # ~/.codex/hooks.json, and trust in ~/.codex/config.toml
  ckpt integrate gemini --dry-run      # print the change as a diff
  ckpt integrate cursor --uninstall    # take ckpt's hooks out again`},
	"mcp": {"runs", `  # registered by: ckpt integrate claude-code (in .mcp.json)
  ckpt mcp                  # serve MCP on stdin/stdout for this workspace
  ckpt -C /path/to/ws mcp`},
	"version": {"", `  ckpt version
  ckpt version --json`},
}

// rootLong is `ckpt --help`'s introduction.
const rootLong = `ckpt records every change to a workspace the moment it happens (through
ckptd, or by scanning when no daemon runs), cuts checkpoints, shows what
drifted since the current one, and undoes exactly what an agent run or a
tool call changed.

Paths are relative to the current directory, and may always follow "--"
(then nothing after it is read as a flag); diff needs the "--", since its
other arguments are checkpoints. Every command takes --json: stdout is then
exactly one JSON object.`

// decorate gives every command its group and examples, and the usage text
// its exit codes.
func decorate(root *cobra.Command) {
	root.Long = rootLong
	root.AddGroup(commandGroups...)
	root.SetUsageTemplate(root.UsageTemplate() + "\n" + exitcode.Help + "\n")
	var walk func(*cobra.Command, string)
	walk = func(c *cobra.Command, prefix string) {
		for _, sub := range c.Commands() {
			name := prefix + sub.Name()
			if h, ok := commandHelp[name]; ok {
				sub.Example = h.example
				if c == root {
					sub.GroupID = h.group
				}
			}
			walk(sub, name+" ")
		}
	}
	walk(root, "")
}

// addCountFlag adds -n, --max-count N (as git log has it). The old
// spelling --n still works, hidden, for the scripts that use it.
func addCountFlag(cmd *cobra.Command, n *int, usage string) {
	f := cmd.Flags()
	f.IntVarP(n, "max-count", "n", 0, usage)
	f.IntVar(n, "n", 0, usage)
	f.MarkHidden("n")
}
