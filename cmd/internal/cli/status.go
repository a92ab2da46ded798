package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/plural"
)

func newStatusCommand(g *globalOptions) *cobra.Command {
	var rescan bool
	cmd := &cobra.Command{
		Use:   "status [--rescan]",
		Short: "Show the daemon's state and what changed since the current checkpoint",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A daemon keeps serving a workspace whose ckpt.yaml became
			// invalid, with the settings it had: status shows why.
			g.daemonMayKeepConfig = true
			g.answersWhileImporting = true
			g.statusFirst = !rescan && !runByEngine
			return run(g, statusBody(g, &rescan))(cmd, args)
		},
	}
	addRescanFlag(cmd, &rescan)
	return cmd
}

// statusBody is the status command once the backend is open.
func statusBody(g *globalOptions, rescan *bool) func(ctx context.Context, b backend) error {
	return func(ctx context.Context, b backend) error {
		if *rescan {
			if err := b.Rescan(ctx); err != nil {
				return err
			}
		}
		s, raw, b, err := g.status(ctx, b)
		if err != nil {
			return err
		}
		if raw != nil {
			return g.emitJSON(raw)
		}
		if !s.Daemon.Running {
			s.Daemon.StartHint = g.startHint
		}
		s.Replication = g.replication(b)
		return g.emit(s, func(w io.Writer) { writeStatus(w, s); writeReplication(w, s.Replication) })
	}
}

// addRescanFlag adds --rescan: a full scan of the workspace before the
// command answers, through the daemon too.
func addRescanFlag(cmd *cobra.Command, rescan *bool) {
	cmd.Flags().BoolVar(rescan, "rescan", false,
		"scan the whole workspace first (stat every file, read what differs): finds changes no file-system event reports, such as writes through a shared memory mapping")
}

func writeStatus(w io.Writer, s api.Status) {
	if s.Importing != nil {
		writeImporting(w, s)
		return
	}
	fmt.Fprintf(w, "Workspace %s (%s)\n", s.Workspace, plural.Count(int(s.Files), "file"))
	if s.Daemon.Running {
		fmt.Fprintf(w, "Daemon running (pid %d): %s watched, queue %d, %s, %s\n",
			s.Daemon.PID, plural.Count(s.Daemon.WatchedDirs, "directory", "directories"), s.Daemon.QueueDepth,
			plural.Count(int(s.Daemon.Overflows), "overflow"), plural.Count(int(s.Daemon.Rewalks), "re-walk"))
		if s.Daemon.LastError != "" {
			fmt.Fprintf(w, "  last error: %s\n", s.Daemon.LastError)
		}
		if d := s.Daemon.Degraded; d != nil {
			fmt.Fprintf(w, "  degraded: %s not watched (%s); changes there are found by re-walks: %s\n",
				plural.Count(d.UnwatchedDirs, "directory", "directories"), quoteDirs(d.Dirs), d.Reason)
		}
		if s.Daemon.ConfigError != "" {
			fmt.Fprintf(w, "  the workspace's configuration is invalid; the daemon keeps its previous settings: %s\n", s.Daemon.ConfigError)
		}
	} else {
		start := "ckptd watch DIR"
		if s.Daemon.StartHint != "" {
			start = s.Daemon.StartHint
		}
		fmt.Fprintf(w, "Daemon not running: changes are found by scanning (start one with: %s)\n", start)
	}
	if s.StorageError != "" {
		fmt.Fprintf(w, "Storage: %s: changes are not recorded until space is freed\n", s.StorageError)
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
		var group []api.Change
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
		return exitcode.Usage(fmt.Errorf("%s takes no arguments", cmd.CommandPath()))
	}
	return nil
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return exitcode.Usage(fmt.Errorf("%s takes %s, got %d", cmd.CommandPath(), plural.Count(n, "argument"), len(args)))
		}
		return nil
	}
}
