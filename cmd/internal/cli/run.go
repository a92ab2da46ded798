package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
)

type runOptions struct{ session, run string }

func (o *runOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.session, "session", "", "the agent session id (required)")
	cmd.Flags().StringVar(&o.run, "run", "", "the run id within the session (required)")
	cmd.MarkFlagRequired("session")
	cmd.MarkFlagRequired("run")
}

func newRunCommand(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "run", Short: "Mark the start and end of an agent run"}
	var start, end runOptions
	startCmd := &cobra.Command{
		Use:   "start --session S --run R",
		Short: "Begin a run: decide its baseline (re-anchored if the workspace drifted)",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			r, err := b.RunStart(ctx, start.session, start.run)
			if err != nil {
				return err
			}
			return g.emit(r, func(w io.Writer) {
				if r.Warning != "" {
					fmt.Fprintf(os.Stderr, "warning: %s\n", r.Warning)
				}
				fmt.Fprintf(w, "run %s/%s started; baseline %s\n", r.SessionID, r.RunID, r.PrevCheckpointID)
				if r.WorkspaceDrifted {
					fmt.Fprintln(w, "drift since the last checkpoint:")
					writeChanges(w, "  ", r.Drift)
				}
			})
		}),
	}
	start.flags(startCmd)
	var asOf string
	var asOfTime time.Time
	endCmd := &cobra.Command{
		Use:   "end --session S --run R [--as-of TIME]",
		Short: "End a run: cut end_of_turn and list what the run changed",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := noArgs(cmd, args); err != nil {
				return err
			}
			var err error
			asOfTime, err = parseAsOf(asOf)
			return err
		},
		RunE: run(g, func(ctx context.Context, b backend) error {
			r, err := b.RunEndAsOf(ctx, end.session, end.run, asOfTime)
			if err != nil {
				return err
			}
			return g.emit(r, func(w io.Writer) {
				if r.Warning != "" {
					fmt.Fprintf(os.Stderr, "warning: %s\n", r.Warning)
				}
				fmt.Fprintf(w, "run %s/%s ended at %s (baseline %s); %s changed\n", r.SessionID, r.RunID, r.CheckpointID, r.PrevCheckpointID, count(len(r.Files), "file"))
				writeChanges(w, "  ", r.Files)
			})
		}),
	}
	end.flags(endCmd)
	endCmd.Flags().StringVar(&asOf, "as-of", "", "end the run as of this moment already past (RFC 3339): what changed after it is drift, not the run's")
	cmd.AddCommand(startCmd, endCmd)
	return cmd
}

// parseAsOf is run end's --as-of: an RFC 3339 time, or zero when not given.
func parseAsOf(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, exitcode.Usage(fmt.Errorf("--as-of %q is not an RFC 3339 time (like 2026-12-01T10:54:47.806Z)", s))
	}
	return t, nil
}
