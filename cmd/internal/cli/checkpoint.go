package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
)

func newCheckpointCommand(g *globalOptions) *cobra.Command {
	var (
		message string
		rescan  bool
	)
	cmd := &cobra.Command{
		Use:   "checkpoint [-m MSG] [--rescan]",
		Short: "Cut a manual checkpoint",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.checkpointFirst = !rescan && !runByEngine
			return run(g, checkpointBody(g, message, rescan))(cmd, args)
		},
	}
	cmd.Flags().StringVarP(&message, "message", "m", "", "a message to keep with the checkpoint")
	addRescanFlag(cmd, &rescan)
	return cmd
}

// checkpointBody is the checkpoint command once the backend is open.
func checkpointBody(g *globalOptions, message string, rescan bool) func(ctx context.Context, b backend) error {
	return func(ctx context.Context, b backend) error {
		if rescan {
			if err := b.Rescan(ctx); err != nil {
				return err
			}
		}
		cp, err := b.Checkpoint(ctx, message)
		if err != nil {
			return err
		}
		return g.emit(cp, func(w io.Writer) { writeCheckpoint(w, cp) })
	}
}

func newLogCommand(g *globalOptions) *cobra.Command {
	var n int
	cmd := &cobra.Command{
		Use:   "log [-n N]",
		Short: "List checkpoints, newest first",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			if n < 0 {
				return exitcode.Usage(fmt.Errorf("-n %d is not a count", n))
			}
			l, err := b.Log(ctx, n)
			if err != nil {
				return err
			}
			l.Replication = g.replication(b)
			return g.emit(l, func(w io.Writer) {
				for _, cp := range l.Checkpoints {
					writeCheckpoint(w, cp)
				}
				writeReplication(w, l.Replication)
			})
		}),
	}
	addCountFlag(cmd, &n, "show at most N checkpoints (0: all)")
	return cmd
}

func newShowCommand(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show a checkpoint and what changed since the one before it",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return run(g, func(ctx context.Context, b backend) error {
				s, err := b.Show(ctx, args[0])
				if err != nil {
					return err
				}
				return g.emit(s, func(w io.Writer) {
					writeCheckpoint(w, s.Checkpoint)
					fmt.Fprintf(w, "fingerprint %s, %d files\n", s.Fingerprint, s.Files)
					if s.PrevCheckpointID != "" {
						fmt.Fprintf(w, "\nchanges since %s:\n", s.PrevCheckpointID)
					}
					writeChanges(w, "  ", s.Changes)
				})
			})(cmd, args)
		},
	}
}
