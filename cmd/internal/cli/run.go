package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
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
	endCmd := &cobra.Command{
		Use:   "end --session S --run R",
		Short: "End a run: cut end_of_turn and list what the run changed",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			r, err := b.RunEnd(ctx, end.session, end.run)
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
	cmd.AddCommand(startCmd, endCmd)
	return cmd
}
