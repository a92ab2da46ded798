package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/internal/plural"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// addRemoteCommands adds the commands of replication to a remote, in a
// help group of their own.
func addRemoteCommands(root *cobra.Command, g *globalOptions) {
	root.AddGroup(&cobra.Group{ID: "remote", Title: "Replication to a remote:"})
	examples := map[string]string{
		"push": `  ckpt push                  # upload what the remote lacks (with ckptd: wait until it has)
  ckpt push --json`,
		"pull": `  ckpt pull                  # the checkpoints the remote has that this clone lacks
  ckpt pull --json`,
		"clone": `  ckpt clone s3://ckpt/fleet proj ~/src/proj         # the newest replicated checkpoint
  ckpt clone s3://ckpt/fleet proj@ck12-3f2a1b /tmp/p  # that one, with the history before it`,
		"remote": `  ckpt remote ls             # the configured remote's workspaces and checkpoints
  ckpt remote ls s3://ckpt/fleet --json`,
	}
	for _, c := range []*cobra.Command{newPushCommand(g), newPullCommand(g), newCloneCommand(g), newRemoteCommand(g)} {
		c.GroupID, c.Example = "remote", examples[c.Name()]
		for _, sub := range c.Commands() {
			sub.Example = examples[c.Name()]
		}
		root.AddCommand(c)
	}
}

func newPushCommand(g *globalOptions) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Upload the workspace's history to its remote (with a daemon: wait until it has)",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			if g.cfg.Remote == "" {
				return config.ErrNoRemote
			}
			var res api.PushResult
			var err error
			// Status syncs first: the push includes every change made
			// before it started.
			if _, err := b.Status(ctx); err != nil {
				return err
			}
			if viaDaemon(b) {
				res.Replication, err = waitReplicated(ctx, g, b, timeout)
			} else {
				res, err = g.engine.Replica().Push(ctx, g.cfg, b)
			}
			if err != nil {
				return err
			}
			return g.emit(res, func(w io.Writer) {
				fmt.Fprintf(w, "pushed %s, %s (%s; %s already there), %s newly replicated\n",
					plural.Count(res.Segments, "journal segment"), plural.Count(res.Blobs, "content"),
					humanBytes(res.BlobBytes), plural.Count(res.BlobsPresent, "content"), plural.Count(res.Checkpoints, "checkpoint"))
				writeReplication(w, &res.Replication)
			})
		}),
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "with a daemon: how long to wait for it to replicate what is recorded now")
	return cmd
}

// waitReplicated waits, within timeout, until the daemon's replicator has
// replicated the newest checkpoint there is now.
func waitReplicated(ctx context.Context, g *globalOptions, b backend, timeout time.Duration) (api.Replication, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	for {
		l, err := b.Log(ctx, 1)
		if err != nil {
			return api.Replication{}, err
		}
		st := readReplication(g.cfg.StateDir, g.root)
		switch {
		case st != nil && len(l.Checkpoints) > 0 && st.ReplicatedCheckpointID == l.Checkpoints[0].CheckpointID:
			return *st, nil
		case st != nil && st.LastError != "" && st.LastAttempt.After(start):
			return *st, fmt.Errorf("the daemon's replication failed (it retries at %s): %s", st.NextRetry.Local().Format(time.TimeOnly), st.LastError)
		case st == nil && time.Since(start) > 5*time.Second:
			return api.Replication{}, errors.New("the daemon serving this workspace does not replicate it: restart ckptd with remote set in its configuration")
		}
		select {
		case <-ctx.Done():
			return api.Replication{}, fmt.Errorf("the daemon has not replicated the newest checkpoint within %s", timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func newCloneCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "clone REMOTE WORKSPACE[@CHECKPOINT] DIR",
		Short: "Make DIR a workspace holding a checkpoint from a remote, with its history",
		Args:  exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			if g.engine == nil {
				return g.execEngine()
			}
			cfg, err := remoteConfig(cmd)
			if err != nil {
				return err
			}
			res, err := g.engine.Replica().Clone(cmd.Context(), cfg, args[0], args[1], args[2])
			if err != nil {
				return err
			}
			return g.emit(res, func(w io.Writer) {
				fmt.Fprintf(w, "cloned %s@%s from %s into %s (%s)\n", res.Name, res.CheckpointID, res.Remote, res.Workspace, plural.Count(res.Files, "path"))
			})
		},
	}
}

func newRemoteCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Look at a remote",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "ls [REMOTE]",
		Short: "List the workspaces in a remote (default: the configured one) and their replicated checkpoints",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			if g.engine == nil {
				return g.execEngine()
			}
			cfg, err := remoteConfig(cmd)
			if err != nil {
				return err
			}
			url := ""
			if len(args) == 1 {
				url = args[0]
			}
			l, err := g.engine.Replica().List(cmd.Context(), cfg, url)
			if err != nil {
				return err
			}
			return g.emit(l, func(w io.Writer) {
				for _, ws := range l.Workspaces {
					fmt.Fprintf(w, "%s  (%s)\n", ws.Name, plural.Count(len(ws.Checkpoints), "checkpoint"))
					for i := len(ws.Checkpoints) - 1; i >= 0; i-- {
						fmt.Fprint(w, "  ")
						writeCheckpoint(w, ws.Checkpoints[i])
					}
				}
			})
		},
	})
	return cmd
}

// remoteConfig is the configuration of a command that needs no workspace.
func remoteConfig(cmd *cobra.Command) (*config.Config, error) {
	cfg, err := config.Load(config.Options{Flags: cmd.Flags()})
	if err != nil {
		return nil, err
	}
	return cfg, statedir.PrepareStateDir(cfg.StateDir)
}

// replication is the workspace's replication status for status and log;
// nil without a remote.
func (g *globalOptions) replication(b backend) *api.Replication {
	if g.cfg == nil || g.cfg.Remote == "" {
		return nil
	}
	if !viaDaemon(b) && g.engine != nil {
		st, err := g.engine.Replica().Status(g.cfg, b)
		if err != nil {
			return &api.Replication{Remote: g.cfg.Remote, LastError: err.Error()}
		}
		return st
	}
	if st := readReplication(g.cfg.StateDir, g.root); st != nil {
		return st
	}
	return &api.Replication{Remote: g.cfg.Remote}
}

// viaDaemon: b is the daemon's client, not the embedded engine.
func viaDaemon(b backend) bool {
	_, ok := b.(*client.WorkspaceClient)
	return ok
}

// readReplication is the replication status the daemon last wrote for the
// workspace, or nil if there is none.
func readReplication(stateDir, root string) *api.Replication {
	return api.ReadReplicationFile(statedir.ReplicationFile(stateDir, root))
}

// writeReplication is the replication line of status, log and push.
func writeReplication(w io.Writer, r *api.Replication) {
	if r == nil {
		return
	}
	through := "nothing replicated yet"
	if r.ReplicatedCheckpointID != "" {
		through = "replicated through " + r.ReplicatedCheckpointID
	}
	behind := "up to date"
	if r.PendingCheckpoints > 0 || r.PendingChanges > 0 {
		behind = fmt.Sprintf("%s and %s behind", plural.Count(r.PendingCheckpoints, "checkpoint"), plural.Count(int(r.PendingChanges), "change"))
	}
	fmt.Fprintf(w, "Replication to %s as %s: %s, %s\n", r.Remote, r.Workspace, through, behind)
	if r.LastError != "" {
		fmt.Fprintf(w, "  last error: %s\n", r.LastError)
	}
	if r.RetentionHeld {
		fmt.Fprintf(w, "  the store is over retention_size: retention keeps the %s not replicated yet\n", plural.Count(r.PendingCheckpoints, "checkpoint"))
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
