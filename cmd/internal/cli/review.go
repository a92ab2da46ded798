package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// reviewer is a backend that keeps review marks (the daemon's client and
// the embedded engine both do).
type reviewer interface {
	Review(ctx context.Context, req api.ReviewRequest) (api.Review, error)
	Reviews(ctx context.Context, session, run string) (api.Reviews, error)
}

// The daemon's client keeps them (the engine does too: cmd/internal/engine).
var _ reviewer = (*client.WorkspaceClient)(nil)

func newReviewCommand(g *globalOptions) *cobra.Command {
	var session, runID, mark string
	var accept, reject, clear bool
	cmd := &cobra.Command{
		Use:   "review --session S --run R [--accept|--reject|--clear PATH...]",
		Short: "Show or set the review marks (accepted, rejected) on a run's files",
		Long: `Review lists the review marks on the files of run R of session S, as the
panel (ckpt ui) shows them; with --accept, --reject or --clear it first marks
(or unmarks) each PATH, which must be a file the run changed.`,
		RunE: run(g, func(ctx context.Context, b backend) error {
			rv, ok := b.(reviewer)
			if !ok {
				return errors.New("this backend keeps no review marks")
			}
			n := 0
			for _, on := range []bool{accept, reject, clear} {
				if on {
					n++
				}
			}
			args := g.cmd.Flags().Args()
			switch {
			case n > 1:
				return exitcode.Usage(errors.New("use one of --accept, --reject and --clear"))
			case n == 1 && len(args) == 0:
				return exitcode.Usage(errors.New("name the files to mark"))
			case n == 0 && len(args) > 0:
				return exitcode.Usage(errors.New("paths need --accept, --reject or --clear"))
			}
			mark = map[bool]string{true: api.MarkAccepted}[accept] + map[bool]string{true: api.MarkRejected}[reject]
			ps, err := g.relPaths(args)
			if err != nil {
				return err
			}
			for _, p := range ps {
				if _, err := rv.Review(ctx, api.ReviewRequest{Session: session, Run: runID, Path: p, Mark: mark}); err != nil {
					return err
				}
			}
			res, err := rv.Reviews(ctx, session, runID)
			if err != nil {
				return err
			}
			return g.emit(res, func(w io.Writer) { writeReviews(w, res) })
		}),
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "the agent session id (required)")
	f.StringVar(&runID, "run", "", "the run id within the session (required)")
	f.BoolVar(&accept, "accept", false, "mark PATH... accepted")
	f.BoolVar(&reject, "reject", false, "mark PATH... rejected")
	f.BoolVar(&clear, "clear", false, "remove the marks on PATH...")
	return cmd
}

func writeReviews(w io.Writer, res api.Reviews) {
	if len(res.Reviews) == 0 {
		fmt.Fprintf(w, "run %s/%s: no review marks\n", res.SessionID, res.RunID)
		return
	}
	fmt.Fprintf(w, "run %s/%s:\n", res.SessionID, res.RunID)
	for _, r := range res.Reviews {
		fmt.Fprintf(w, "  %-9s %s\n", r.Mark+":", r.Path)
	}
}
