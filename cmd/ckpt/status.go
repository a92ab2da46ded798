package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/drift"
)

func newStatusCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's state and what changed since the current checkpoint",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			s, err := b.Status(ctx)
			if err != nil {
				return err
			}
			return g.emit(s, func(w io.Writer) { writeStatus(w, s) })
		}),
	}
}

func writeStatus(w io.Writer, s drift.Status) {
	fmt.Fprintf(w, "Workspace %s (%d files)\n", s.Workspace, s.Files)
	if s.Daemon.Running {
		fmt.Fprintf(w, "Daemon running (pid %d): %d directories watched, queue %d, %d overflows, %d re-walks\n",
			s.Daemon.PID, s.Daemon.WatchedDirs, s.Daemon.QueueDepth, s.Daemon.Overflows, s.Daemon.Rewalks)
		if s.Daemon.LastError != "" {
			fmt.Fprintf(w, "  last error: %s\n", s.Daemon.LastError)
		}
	} else {
		fmt.Fprintln(w, "Daemon not running: changes are found by scanning (start one with: ckptd watch DIR)")
	}
	fmt.Fprintf(w, "Current checkpoint %s\n", s.CurrentCheckpointID)
	if s.LastRun != nil {
		state := "ended " + ago(s.LastRun.EndedAt) + ", end checkpoint " + s.LastRun.EndID
		if s.LastRun.Open {
			state = "open since " + ago(s.LastRun.StartedAt)
		}
		fmt.Fprintf(w, "Last run %s/%s: %s, baseline %s\n", s.LastRun.SessionID, s.LastRun.RunID, state, s.LastRun.BaselineID)
	}
	if s.LastRestore != nil {
		fmt.Fprintf(w, "Last restore %s to %s (undo with: %s)\n", ago(s.LastRestore.At), s.LastRestore.CheckpointID, s.UndoCommand)
	}
	fmt.Fprintln(w)
	if len(s.Unreadable) > 0 {
		fmt.Fprintln(w, "Could not read (kept as recorded; restores leave them alone):")
		for _, u := range s.Unreadable {
			fmt.Fprintf(w, "    %s  (%s)\n", u.Path, u.Error)
		}
		fmt.Fprintln(w)
	}
	if !s.Drifted && len(s.Changes) == 0 {
		fmt.Fprintf(w, "No drift: the workspace is as checkpoint %s left it.\n", s.CurrentCheckpointID)
		return
	}
	fmt.Fprintf(w, "Changes since %s (drift):\n", s.CurrentCheckpointID)
	for _, kind := range []string{"added", "modified", "deleted"} {
		var group []drift.Change
		for _, c := range s.Changes {
			if c.Kind == kind {
				group = append(group, c)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", kind)
		for _, c := range group {
			by := ""
			if c.By == "run" || c.By == "both" {
				by = "  (by a run)"
			}
			fmt.Fprintf(w, "    %s%s\n", c.Path, by)
		}
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments", cmd.CommandPath())}
	}
	return nil
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{fmt.Errorf("%s takes %d argument(s), got %d", cmd.CommandPath(), n, len(args))}
		}
		return nil
	}
}
