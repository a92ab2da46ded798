package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/integration/daemon"
	"github.com/ckptdev/ckpt/integration/local"
)

// handOverWait is how long `ckptd watch` waits for a daemon that holds the
// state directory but does not answer yet (it is starting).
var handOverWait = 10 * time.Second

func newWatchCommand(g *globalOptions) *cobra.Command {
	var autostarted bool
	cmd := &cobra.Command{
		Use:   "watch DIR...",
		Short: "Watch workspaces and serve the ckpt client (in the foreground)",
		Long: `Watch runs the daemon in the foreground for the workspaces DIR...: it
imports each one the first time (with progress on a terminal), records every
change the moment it happens, and serves ckpt on the socket.

If a daemon already serves the socket, the workspaces are added to it and
watch exits 0. SIGINT or SIGTERM: in-flight requests finish, queued changes
are captured, the stores are closed, and ckptd exits 0.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usage(errors.New("watch needs at least one workspace directory"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			return runWatch(cmd.Context(), cmd.Flags(), args, autostarted)
		},
	}
	// --autostarted: ckpt started this daemon in the background. When
	// another daemon holds the state directory (two commands started one
	// at once), this one hands its workspaces over and exits 0 without a
	// log line: the first one logs what it serves.
	cmd.Flags().BoolVar(&autostarted, "autostarted", false, "started by ckpt (autostart): hand over quietly to a daemon already starting")
	cmd.Flags().MarkHidden("autostarted")
	return cmd
}

func runWatch(ctx context.Context, flags *pflag.FlagSet, dirs []string, autostarted bool) error {
	base, err := config.Load(config.Options{Flags: flags})
	if err != nil {
		return err
	}
	if err := local.PrepareStateDir(base.StateDir); err != nil {
		return err
	}
	roots, err := resolveDirs(dirs)
	if err != nil {
		return err
	}
	log := newLogger(base.LogLevel)
	handOverLog := log
	if autostarted {
		handOverLog = slog.New(slog.DiscardHandler) // the daemon that runs logs what it serves
	}
	if ok, err := handOver(ctx, base.Socket, roots, handOverLog); ok || err != nil {
		return err
	}
	release, err := daemon.LockStateDir(base.StateDir)
	if errors.Is(err, daemon.ErrLocked) {
		// Another daemon holds the state directory: it may be starting.
		deadline := time.Now().Add(handOverWait)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond)
			if ok, herr := handOver(ctx, base.Socket, roots, handOverLog); ok || herr != nil {
				return herr
			}
		}
		return fmt.Errorf("%w, but nothing answers on its socket %s", err, base.Socket)
	}
	if err != nil {
		return err
	}
	defer release()
	servePprof(log)
	return daemon.New(ctx, daemon.Options{
		Base: base,
		Load: func(root string) (*config.Config, error) {
			return config.Load(config.Options{Workspace: root, Flags: flags})
		},
		Log:      log,
		Progress: progressBar,
	}).Run(roots)
}

// handOver gives the workspaces to the daemon that answers on socket, if
// one does: ok reports that it did (or that it failed, with err).
func handOver(ctx context.Context, socket string, roots []string, log *slog.Logger) (ok bool, err error) {
	c, err := client.Dial(socket, client.Options{VersionWarning: func(msg string) { log.Warn(msg) }})
	if err != nil {
		return false, nil
	}
	defer c.Close()
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	h, err := c.Health(hctx)
	cancel()
	if errors.Is(err, client.ErrForeignDaemon) {
		return true, err
	}
	if err != nil {
		return false, nil // a stale socket: no daemon
	}
	res, err := c.AddWorkspaces(ctx, roots)
	if err != nil {
		return true, fmt.Errorf("the ckptd already running (pid %d) could not add the workspaces: %w", h.PID, err)
	}
	for _, w := range res.Workspaces {
		if w.Added {
			log.Info("the running ckptd now watches the workspace", "pid", h.PID, "workspace", w.Root)
		} else {
			log.Info("the running ckptd already watches the workspace", "pid", h.PID, "workspace", w.Root)
		}
	}
	return true, nil
}
