package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/plural"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// errPullDaemon: a pull writes the store, which a serving daemon owns.
var errPullDaemon = fault.Sentinel(fault.Refused, "a daemon serves the workspace")

func newPullCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "pull",
		Short: "Bring the workspace the checkpoints its remote has that it lacks, and its files up to the newest",
		Long: `pull fast-forwards the workspace to the newest replicated checkpoint of its
name in the remote (remote_name, or the name it was cloned or pushed as):
it brings the checkpoints, journal, runs and contents it lacks, then writes
the files that changed as that checkpoint has them, with the checkpoint the
workspace was at as the guard that ckpt undo restores. A workspace with
history of its own since what it shares with the remote (a change, a
checkpoint) is refused and nothing changes: clone the remote into another
directory instead. It needs the workspace's store to itself: with a daemon
serving the workspace it is refused.`,
		Args:   noArgs,
		PreRun: func(*cobra.Command, []string) { g.ownStore = true },
		RunE: run(g, func(ctx context.Context, b backend) error {
			// Bad input before anything else: no remote to pull from.
			if _, err := os.Stat(statedir.RemoteURLFile(g.cfg.StateDir, g.root)); g.cfg.Remote == "" && err != nil {
				return config.ErrNoRemote
			}
			if viaDaemon(b) {
				return fmt.Errorf("%w %s: ckpt pull writes its history and files, which the daemon owns; run `ckpt workspaces forget` (or stop ckptd), pull, and a later command gives the workspace back to the daemon", errPullDaemon, g.root)
			}
			if g.engine == nil {
				return g.execEngine()
			}
			// Status syncs first: every change to the files is history,
			// and a workspace with some of its own is not fast-forwarded.
			if _, err := b.Status(ctx); err != nil {
				return err
			}
			res, err := g.engine.Replica().Pull(ctx, g.cfg, b)
			if err != nil {
				return err
			}
			return g.emit(res, func(w io.Writer) { writePull(w, res) })
		}),
	}
}

func writePull(w io.Writer, res api.PullResult) {
	if res.UpToDate {
		fmt.Fprintf(w, "up to date with %s in %s: %s is its newest replicated checkpoint\n", res.Name, res.Remote, res.CheckpointID)
		return
	}
	fmt.Fprintf(w, "pulled %s (%s, %s, %s) of %s from %s: %s..%s\n", plural.Count(res.Checkpoints, "checkpoint"),
		plural.Count(res.Changes, "change"), plural.Count(res.Blobs, "content"), humanBytes(res.BlobBytes),
		res.Name, res.Remote, res.FromCheckpointID, res.CheckpointID)
	f := res.Files
	fmt.Fprintf(w, "files at %s: %s written", res.CheckpointID, plural.Count(len(f.Restored), "path"))
	if f.GuardCheckpointID != "" {
		fmt.Fprintf(w, " (ckpt undo gives back %s)", f.GuardCheckpointID)
	}
	fmt.Fprintln(w)
	for _, k := range f.Kept {
		fmt.Fprintf(w, "  kept %s: %s\n", k.Path, k.Why)
	}
	for _, r := range f.Refused {
		fmt.Fprintf(w, "  refused %s: %s\n", r.Path, r.Why)
	}
	for _, r := range f.Restored {
		if r.Error != "" {
			fmt.Fprintf(w, "  failed %s: %s\n", r.Path, r.Error)
		}
	}
}
