// Command ckptd is ckpt's daemon. `ckptd watch DIR...` watches workspaces,
// records every change the moment it happens and serves the ckpt client
// over a unix socket; `ckptd install-service` writes a systemd user unit
// that runs it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration"
)

// usageError is bad command-line input: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode is the one place that maps errors to exit codes: 2 for bad
// input, 1 for any other failure.
func exitCode(err error) int {
	var ue usageError
	var ce *config.Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue), errors.As(err, &ce), errors.Is(err, drift.ErrInvalid):
		return 2
	}
	return 1
}

// globalOptions are what every command shares.
type globalOptions struct {
	entered bool // a command's RunE began: later errors are not usage errors
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal ends ckptd at once
	g := &globalOptions{}
	err := newRootCommand(g).ExecuteContext(ctx)
	if err != nil && !g.entered {
		err = usageError{err}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ckptd:", err)
	}
	os.Exit(exitCode(err))
}

func newRootCommand(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:           "ckptd",
		Short:         "The ckpt daemon: watch workspaces and serve the ckpt client",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.String("state-dir", "", "state directory (stores, lock, socket)")
	pf.String("socket", "", "the socket to serve (default <state directory>/ckptd.sock)")
	pf.String("log-level", "", "debug, info, warn or error (default info)")
	pf.String("ui-addr", "", "the web panel's loopback address (default 127.0.0.1:0, a free port)")
	root.AddCommand(newWatchCommand(g), newInstallServiceCommand(g), newVersionCommand(g))
	return root
}

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ckptd's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "ckptd %s\n", integration.Version)
			return err
		},
	}
}
