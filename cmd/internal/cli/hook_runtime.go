package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/hooks"
	"github.com/ckptdev/ckpt/integration/hooks/claudecode"
	"github.com/ckptdev/ckpt/integration/hooks/codex"
	"github.com/ckptdev/ckpt/integration/hooks/cursor"
	"github.com/ckptdev/ckpt/integration/hooks/gemini"
)

// addRuntimeHookCommands adds `ckpt hook codex|gemini|cursor`: the same
// core as claude-code (a run per turn, a tool window per writing tool
// call) behind each runtime's adapter.
func addRuntimeHookCommands(parent *cobra.Command, g *globalOptions) {
	for _, r := range []struct {
		adapter func() hooks.Adapter
		name    string
		events  string
	}{
		{func() hooks.Adapter { return codex.Adapter{} }, "Codex",
			"UserPromptSubmit starts a run (turn-N of the Codex session) and tells the\nagent what changed outside its runs; PreToolUse and PostToolUse open and\nclose a tool window around each Bash, apply_patch and MCP call; Stop ends\nthe run and shows the command that undoes it."},
		{func() hooks.Adapter { return gemini.Adapter{ProjectDir: os.Getenv("GEMINI_PROJECT_DIR")} }, "Gemini CLI",
			"BeforeAgent starts a run (turn-N of the Gemini session) and tells the agent\nwhat changed outside its runs; BeforeTool and AfterTool open and close a\ntool window around each call of a tool that may write; AfterAgent ends the\nrun and shows the command that undoes it; SessionEnd ends an open run."},
		{func() hooks.Adapter { return cursor.Adapter{} }, "Cursor",
			"beforeSubmitPrompt starts a run (turn-N of the conversation); preToolUse\nand postToolUse(Failure) open and close a tool window around each call of\na tool that may write; stop and sessionEnd end the run."},
	} {
		a := r.adapter()
		name := a.Runtime()
		cmd := &cobra.Command{
			Use:   name,
			Short: r.name + " hook handler: reads the hook's JSON on stdin",
			Long: r.name + " hook handler: reads the hook's JSON on stdin.\n\n" + r.events + `

It never exits 2, which the runtime reads as "block": any failure, bad
input included, is one line on stderr and exit 1, which it reports and goes
past. Install it with ` + "`ckpt integrate " + name + "`" + `; see integration/HOOKS.md.`,
			RunE: func(cmd *cobra.Command, args []string) error {
				g.entered = true
				g.hook = true
				g.cmd = cmd
				return runtimeHookFailure(name, runRuntimeHook(cmd, g, r.adapter(), args, os.Stdin, os.Stdout))
			},
		}
		cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return runtimeHookFailure(name, err) })
		parent.AddCommand(cmd)
	}
}

// runtimeHookFailure reports err on stderr and turns it into exit 1: for
// every runtime, 2 blocks the agent.
func runtimeHookFailure(runtime string, err error) error {
	if err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "ckpt: hook %s: %s\n", runtime, strings.ReplaceAll(err.Error(), "\n", " "))
	return exitcode.Coded{Code: 1}
}

func runRuntimeHook(cmd *cobra.Command, g *globalOptions, a hooks.Adapter, args []string, stdin io.Reader, stdout io.Writer) error {
	data, err := readHookPayload(args, stdin, fmt.Sprintf("reads a hook's JSON on stdin; install it with `ckpt integrate %s`", a.Runtime()))
	if err != nil {
		return err
	}
	ev, err := a.Parse(data)
	if err != nil {
		return err
	}
	if !hooks.Relevant(a, ev) {
		return nil
	}
	stateDir, hs, err := openSessionState(cmd, g, a.Runtime(), ev.SessionID)
	if err != nil {
		return err
	}
	defer hs.close()
	st := hs.load()
	saved := st
	if g.dir == "" {
		if g.dir, err = hookWorkspace(ev.HookInput, st, stateDir, ev.ProjectDir); err != nil {
			return err
		}
	}
	var o hooks.Outcome
	err = run(g, func(ctx context.Context, b backend) error {
		var err error
		st, o, err = applyPlan(ctx, b, ev, st, g.root, false)
		return err
	})(cmd, nil)
	var out []byte
	if err == nil {
		out, err = runtimeOutput(a, o, strings.TrimSuffix(hs.path, ".json")+".drift")
	}
	if st != saved {
		if serr := hs.save(st); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// runtimeOutput is the adapter's answer. For a runtime that takes no
// context at the prompt, the turn's drift note waits in pendingFile (under
// the session's lock) for the turn's first tool call's end.
func runtimeOutput(a hooks.Adapter, o hooks.Outcome, pendingFile string) ([]byte, error) {
	d, ok := a.(hooks.DriftDeferrer)
	if !ok || !d.DefersDrift() {
		return a.Output(o), nil
	}
	switch {
	case o.Started != nil && o.Event.Event == claudecode.EventUserPromptSubmit:
		if text := claudecode.DriftContext(*o.Started); text != "" {
			return a.Output(o), atomicWrite(pendingFile, []byte(text), 0o600)
		}
	case o.ToolEnd != nil && o.Event.Event == claudecode.EventPostToolUse:
		if data, err := os.ReadFile(pendingFile); err == nil {
			o.Pending = string(data)
		}
		out := a.Output(o)
		if out == nil {
			return nil, nil
		}
		if err := os.Remove(pendingFile); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return out, nil
	case o.Ended == nil:
		return a.Output(o), nil
	}
	if err := os.Remove(pendingFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return a.Output(o), nil
}
