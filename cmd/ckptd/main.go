// Command ckptd is ckpt's daemon. `ckptd watch DIR...` watches workspaces,
// records every change the moment it happens and serves the ckpt client
// over a unix socket; `ckptd install-service` writes a systemd user unit
// that runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/engine"
	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
)

// globalOptions are what every command shares.
type globalOptions struct {
	entered bool // a command's RunE began: later errors are not usage errors
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "ckpt" {
		// A ckpt command that needs the engine, handed over by ckpt.
		engine.Main(os.Args[2:])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal ends ckptd at once
	g := &globalOptions{}
	err := newRootCommand(g).ExecuteContext(ctx)
	if err != nil && !g.entered {
		err = exitcode.Usage(err)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ckptd:", err)
	}
	// SIGINT and SIGTERM are how ckptd is stopped: after a clean shutdown
	// err is nil and ckptd exits 0 (CONTRACT.md), not 130.
	os.Exit(exitcode.Of(err))
}

func newRootCommand(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:           "ckptd",
		Short:         "The ckpt daemon: watch workspaces and serve the ckpt client",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.Usage(err) })
	pf := root.PersistentFlags()
	pf.String("state-dir", "", "state directory (stores, lock, socket)")
	pf.String("socket", "", "the socket to serve (default <state directory>/ckptd.sock)")
	pf.String("log-level", "", "debug, info, warn or error (default info)")
	pf.String("ui-addr", "", "the web panel's loopback address (default 127.0.0.1:0, a free port)")
	root.AddCommand(newWatchCommand(g), newInstallServiceCommand(g), newVersionCommand(g))
	for _, c := range root.Commands() {
		c.Example = examples[c.Name()]
	}
	root.SetUsageTemplate(root.UsageTemplate() + "\n" + exitcode.DaemonHelp + "\n")
	return root
}

func newVersionCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ckptd's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "ckptd %s\n", api.Version)
			return err
		},
	}
}

// examples are each command's Examples section.
var examples = map[string]string{
	"watch": `  ckptd watch ~/src/app              # in the foreground; Ctrl-C stops it cleanly
  ckptd watch ~/src/app ~/src/lib    # a running ckptd is asked to add them
  ckptd watch --log-level debug .`,
	"install-service": `  ckptd install-service ~/src/app
  systemctl --user daemon-reload && systemctl --user enable --now ckptd`,
	"version": `  ckptd version`,
}
