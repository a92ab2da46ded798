package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
)

func newHistoryCommand(g *globalOptions) *cobra.Command {
	var n int
	cmd := &cobra.Command{
		Use:   "history [--] PATH",
		Short: "Every version of one path, newest first: when, who, and what to restore it from",
		Long: `History lists every recorded version of PATH, newest first: when it was
written, by whom (a run, a tool call, the person outside any run, or a
restore), and a reference to bring it back with:

    ckpt restore REF PATH

REF is the checkpoint that holds that version, or @SEQ (its position in
the journal) when no checkpoint does.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.Usage(fmt.Errorf("history takes exactly one path"))
			}
			return nil
		},
		RunE: run(g, func(ctx context.Context, b backend) error {
			if n < 0 {
				return exitcode.Usage(fmt.Errorf("-n %d is not a count", n))
			}
			ps, err := g.relPaths(g.cmd.Flags().Args())
			if err != nil {
				return err
			}
			h, err := b.History(ctx, api.HistoryRequest{Path: ps[0], N: n})
			if err != nil {
				return err
			}
			return g.emit(h, func(w io.Writer) { writeHistory(w, h) })
		}),
	}
	addCountFlag(cmd, &n, "show at most N versions (0: all)")
	return cmd
}

func writeHistory(w io.Writer, h api.History) {
	fmt.Fprintf(w, "history of %s (bring a version back with: ckpt restore REF %s)\n", h.Path, h.Path)
	for _, v := range h.Versions {
		at := "unknown time       "
		if !v.At.IsZero() {
			at = v.At.Local().Format(time.DateTime)
		}
		ref := v.CheckpointID
		if ref == "" {
			ref = v.Ref
		}
		shared := ""
		if len(v.SharedWith) > 0 {
			shared = "  (shared with " + sharedWith(v.SharedWith) + ")"
		}
		fmt.Fprintf(w, "  %-7s %s  %-9s %-28s %-18s REF %s%s\n", v.Ref, at, v.Kind, byText(v), stateText(v), ref, shared)
	}
}

func byText(v api.PathVersion) string {
	switch v.By {
	case "tool":
		return fmt.Sprintf("tool %s (run %s/%s)", v.ToolCallID, v.SessionID, v.RunID)
	case "run":
		return fmt.Sprintf("run %s/%s", v.SessionID, v.RunID)
	}
	return v.By
}

func stateText(v api.PathVersion) string {
	switch v.Type {
	case "":
		return "(deleted)"
	case "symlink":
		return "symlink"
	}
	return fmt.Sprintf("%s %d bytes", v.Mode, v.Size)
}
