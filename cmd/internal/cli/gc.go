package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// Collector is a backend that applies retention on demand (the daemon's
// client and the embedded engine both do: cmd/internal/engine checks it).
type Collector = collector

type collector interface {
	GC(ctx context.Context, req api.GCRequest) (api.GC, error)
}

var _ collector = (*client.WorkspaceClient)(nil)

func newGCCommand(g *globalOptions) *cobra.Command {
	var dry bool
	cmd := &cobra.Command{
		Use:   "gc [--dry-run]",
		Short: "Apply retention now: prune old checkpoints and give the space back",
		Long: `gc applies the retention policy now (the retention and retention_size
settings), as ckptd does daily: it prunes the checkpoints older than
retention, then the oldest while the store is over retention_size, never a
pinned one (the current checkpoint, what undo needs, an open run's, the
last run's, a reviewed run's), deletes what only they needed and gives the
space back to the file system. It says what it freed. --dry-run changes
nothing and lists what the age rule would prune and what is pinned.`,
		Args: noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			c, ok := b.(collector)
			if !ok {
				return errors.New("this backend cannot apply retention")
			}
			req := api.GCRequest{DryRun: dry, RetentionSeconds: int64(g.cfg.Retention / time.Second), RetentionSize: g.cfg.RetentionSize}
			res, err := c.GC(ctx, req)
			if err != nil {
				return err
			}
			return g.emit(res, func(w io.Writer) { writeGC(w, res) })
		}),
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "change nothing: list what would be pruned and what is pinned")
	return cmd
}

func writeGC(w io.Writer, res api.GC) {
	policy := fmt.Sprintf("retention %s, retention_size %s", days(res.RetentionSeconds), mib(res.RetentionSize))
	if res.DryRun {
		fmt.Fprintf(w, "would prune %s (%s); the store takes %s\n", count(res.Checkpoints, "checkpoint"), policy, sizeMiB(res.BytesBefore))
		if len(res.Pruned) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(res.Pruned, " "))
		}
		fmt.Fprintf(w, "%s would be left\n", count(res.CheckpointsLeft, "checkpoint"))
	} else {
		fmt.Fprintf(w, "pruned %s, %s (%s); the store took %s, now %s\n", count(res.Checkpoints, "checkpoint"),
			count(res.Blobs, "stored content"), policy, sizeMiB(res.BytesBefore), sizeMiB(res.BytesAfter))
		fmt.Fprintf(w, "%s left\n", count(res.CheckpointsLeft, "checkpoint"))
	}
	for _, p := range res.Pinned {
		fmt.Fprintf(w, "  pinned: %s (%s)\n", p.CheckpointID, p.Reason)
	}
	if res.OverBudget {
		fmt.Fprintf(w, "the store is over retention_size %s: what is left is pinned or younger than an hour\n", mib(res.RetentionSize))
		if n := unreplicated(res.Pinned); n > 0 {
			fmt.Fprintf(w, "  %s not replicated yet: kept until the remote has them\n", count(n, "checkpoint"))
		}
	}
}

// unreplicated counts the checkpoints pinned because the remote does not
// have them yet.
func unreplicated(pins []api.GCPin) int {
	n := 0
	for _, p := range pins {
		if p.Reason == "unreplicated" {
			n++
		}
	}
	return n
}

// days writes a retention in whole days when it is one, as ckpt.yaml does.
func days(sec int64) string {
	switch {
	case sec == 0:
		return "0 (off)"
	case sec%86400 == 0:
		return fmt.Sprintf("%dd", sec/86400)
	}
	return (time.Duration(sec) * time.Second).String()
}

// mib writes a budget (0: none).
func mib(n int64) string {
	if n == 0 {
		return "0 (off)"
	}
	return sizeMiB(n)
}

func sizeMiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
