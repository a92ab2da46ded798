package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
)

type toolOptions struct {
	runOptions
	call    string
	command string
}

func (o *toolOptions) flags(cmd *cobra.Command, callRequired bool) {
	o.runOptions.flags(cmd)
	cmd.Flags().StringVar(&o.call, "call", "", "the tool call id")
	if callRequired {
		cmd.MarkFlagRequired("call")
	}
}

func (o *toolOptions) request() api.ToolRequest {
	return api.ToolRequest{Session: o.session, Run: o.run, Call: o.call, Command: o.command}
}

func newToolCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "tool", Short: "Mark a tool call's window and report its side effects"}
	var start, end toolOptions
	startCmd := &cobra.Command{
		Use:   "start --session S --run R --call ID [--command CMD]",
		Short: "Open a tool window: cut pre_write",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			cp, err := b.ToolStart(ctx, start.request())
			if err != nil {
				return err
			}
			return g.emit(cp, func(w io.Writer) { writeCheckpoint(w, cp) })
		}),
	}
	start.flags(startCmd, true)
	startCmd.Flags().StringVar(&start.command, "command", "", "the command the tool runs, for the record")
	endCmd := &cobra.Command{
		Use:   "end --session S --run R --call ID",
		Short: "Close a tool window and list the paths it changed",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			r, err := b.ToolEnd(ctx, end.request())
			if err != nil {
				return err
			}
			return g.emit(r, func(w io.Writer) { writeToolEnd(w, r) })
		}),
	}
	end.flags(endCmd, true)
	cmd.AddCommand(startCmd, endCmd)
	return cmd
}

func writeToolEnd(w io.Writer, r api.ToolEnd) {
	fmt.Fprintf(w, "tool call %s (before: %s): %s changed\n", r.ToolCallID, r.CheckpointID, count(len(r.Changes), "path"))
	writeChanges(w, "  ", r.Changes)
	if len(r.UncoveredPaths) > 0 {
		fmt.Fprintf(w, "not undoable (earlier content not stored): %s\n", strings.Join(r.UncoveredPaths, ", "))
	}
}

func newExecCommand(g *globalOptions) *cobra.Command {
	var o toolOptions
	cmd := &cobra.Command{
		Use:   "exec --session S --run R [--call ID] -- CMD ARGS...",
		Short: "Run a command inside a tool window; exit with its code",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usage(errors.New("exec needs a command after --"))
			}
			return run(g, func(ctx context.Context, b backend) error {
				if o.call == "" {
					o.call = fmt.Sprintf("exec-%d", os.Getpid())
				}
				o.command = strings.Join(args, " ")
				if _, err := b.ToolStart(ctx, o.request()); err != nil {
					return err
				}
				c := exec.CommandContext(ctx, args[0], args[1:]...)
				// SIGINT or SIGTERM to ckpt alone (a terminal's Ctrl-C
				// reaches the command itself too) is passed on as SIGINT;
				// a command that ignores it is killed after a grace.
				c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
				c.WaitDelay = execGrace
				c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
				if g.json {
					c.Stdout = os.Stderr // stdout carries only the JSON object
				}
				// The command may take long and may run ckpt itself: an
				// embedded engine must not hold the store's lock meanwhile.
				g.close()
				runErr := c.Run()
				// The window is closed even when ckpt was interrupted:
				// the command ran, and its changes are the tool's.
				ctx = context.WithoutCancel(ctx)
				b, err := g.open(ctx)
				if err != nil {
					return err
				}
				r, err := b.ToolEnd(ctx, o.request())
				if err != nil {
					return err
				}
				var ee *exec.ExitError
				var failure error
				if runErr != nil && !errors.As(runErr, &ee) {
					failure = fmt.Errorf("exec %s: %w", args[0], runErr)
				}
				if g.json {
					out := toolEndOutput{ToolEnd: r}
					if failure != nil {
						out.Error = failure.Error()
					}
					if err := g.emit(out, nil); err != nil {
						return err
					}
				} else {
					g.close() // as emit does: no lock held while printing
					writeToolEnd(os.Stderr, r)
				}
				switch {
				case ee != nil:
					return exitcode.Coded{Code: childExitCode(ee)}
				case failure != nil:
					return answered{failure}
				}
				return nil
			})(cmd, args)
		},
	}
	o.flags(cmd, false)
	return cmd
}

// execGrace is how long ckpt exec, interrupted, waits for its command to
// exit on the SIGINT it passed on before it kills it.
const execGrace = 10 * time.Second

// childExitCode is the command's exit code as a shell reports it: its
// own, or 128 plus the signal that ended it (130 for SIGINT).
func childExitCode(ee *exec.ExitError) int {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

// toolEndOutput is exec's one JSON object: the tool end, with error set
// when the command could not be run (ckpt then exits 1).
type toolEndOutput struct {
	api.ToolEnd
	Error string `json:"error,omitempty"`
}
