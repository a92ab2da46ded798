package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/integration/api"
)

type revertOptions struct {
	restoreOptions
	session string
	run     string
	call    string
	force   bool
}

func newRevertCommand(g *globalOptions) *cobra.Command {
	var o revertOptions
	cmd := &cobra.Command{
		Use:   "revert --session S --run R [--call ID]",
		Short: "Undo exactly what one run (or one tool call) changed; keep everything else",
		Long: `Revert undoes exactly what run R of session S changed (with --call, what
that one tool call changed): each path it changed goes back to its state
before the run (call) first changed it. Later runs' and your own changes
are kept. A path that something else changed after the run is a conflict:
it is listed and left alone, unless --force. The run (call) must have
ended. Like every restore, a revert first cuts a pre_restore_guard
checkpoint: ckpt undo brings back exactly the state before it.`,
		Args: noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			req := api.RevertRequest{Session: o.session, Run: o.run, Call: o.call, Force: o.force, DryRun: o.dryRun}
			return runRevert(ctx, g, o, req, b)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "the run's session")
	f.StringVar(&o.run, "run", "", "the run to revert")
	f.StringVar(&o.call, "call", "", "revert only this tool call of the run")
	f.BoolVar(&o.force, "force", false, "revert conflicting paths too (what changed them after the run is undone as well)")
	o.flags(cmd, false)
	return cmd
}

// runRevert asks first on a terminal (showing the plan) unless --yes,
// with the backend closed while the person decides, as runRestore does.
func runRevert(ctx context.Context, g *globalOptions, o revertOptions, req api.RevertRequest, b backend) error {
	if !o.yes && !o.dryRun && !g.json && isTerminal(os.Stdin) && isTerminal(os.Stderr) {
		plan := req
		plan.DryRun = true
		r, err := b.Revert(ctx, plan)
		if err != nil {
			return err
		}
		writeRevert(os.Stderr, req, r)
		if len(r.Restored) == 0 {
			return revertFailure(r)
		}
		g.close() // as a restore does: no store lock held while the person decides
		if ok, err := confirm(ctx, fmt.Sprintf("Revert %s?", count(len(r.Restored), "path"))); err != nil || !ok {
			return cancelled("revert", err)
		}
		if b, err = g.open(ctx); err != nil {
			return err
		}
	}
	r, err := b.Revert(ctx, req)
	if err != nil {
		return err
	}
	failure := revertFailure(r)
	out := revertOutput{RevertResult: r, Error: errorText(failure)}
	return emitRestoreResult(g, out, failure, func(w io.Writer) { writeRevert(w, req, r) })
}

// revertOutput is the revert's one JSON object: with error set when a
// path was refused or failed (ckpt then exits 1).
type revertOutput struct {
	api.RevertResult
	Error string `json:"error,omitempty"`
}

// revertFailure is restoreFailure for a revert.
func revertFailure(r api.RevertResult) error { return failureOf(r.RestoreResult, "reverted") }

func writeRevert(w io.Writer, req api.RevertRequest, r api.RevertResult) {
	what := fmt.Sprintf("run %s/%s", req.Session, req.Run)
	if req.Call != "" {
		what = fmt.Sprintf("tool call %s of run %s/%s", req.Call, req.Session, req.Run)
	}
	verb := "reverted"
	if r.DryRun {
		verb = "would revert"
	}
	fmt.Fprintf(w, "%s %s of %s (back to their state before it)\n", verb, count(len(r.Restored), "path"), what)
	for _, c := range r.Restored {
		note := ""
		if c.Conflict {
			note = "  (forced over a later change: ckpt undo brings it back)"
		}
		if len(c.SharedWith) > 0 {
			note += "  (shared with " + sharedWith(c.SharedWith) + ")"
		}
		if c.Error != "" {
			note = "  FAILED: " + c.Error
		}
		fmt.Fprintf(w, "  %-9s %s%s\n", c.Kind+":", c.Path, note)
	}
	var left []api.Conflict
	for _, c := range r.Conflicts {
		if !restored(r, c.Path) && !refused(r, c.Path) {
			left = append(left, c)
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "left %s alone (conflicts; --force reverts them anyway):\n", count(len(left), "path"))
		for _, c := range left {
			fmt.Fprintf(w, "  %-9s %s  (%s)\n", c.Kind+":", c.Path, c.Reason)
		}
	}
	if len(r.Kept) > 0 {
		fmt.Fprintf(w, "kept %s:\n", count(len(r.Kept), "path"))
		for _, k := range r.Kept {
			fmt.Fprintf(w, "  %-9s %s  (%s)\n", k.Kind+":", k.Path, k.Why)
		}
	}
	writeRestoreEnd(w, r.RestoreResult)
}

func restored(r api.RevertResult, p string) bool {
	for _, c := range r.Restored {
		if c.Path == p {
			return true
		}
	}
	return false
}

func refused(r api.RevertResult, p string) bool {
	for _, c := range r.Refused {
		if c.Path == p {
			return true
		}
	}
	return false
}
