package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
)

type restoreOptions struct {
	exact  bool
	dryRun bool
	yes    bool
}

func (o *restoreOptions) flags(cmd *cobra.Command, exact bool) {
	f := cmd.Flags()
	if exact {
		f.BoolVar(&o.exact, "exact", false, "make the whole workspace (or the PATHs) exactly the checkpoint, the person's edits too")
	}
	f.BoolVar(&o.dryRun, "dry-run", false, "show what would change; change nothing")
	f.BoolVarP(&o.yes, "yes", "y", false, "do not ask to confirm")
}

func newRestoreCommand(g *globalOptions) *cobra.Command {
	var o restoreOptions
	cmd := &cobra.Command{
		Use:   "restore ID [--] [PATH...]",
		Short: "Roll back what runs changed since checkpoint ID (--exact: everything)",
		Long: `Restore brings paths back to their state at checkpoint ID.

By default it reverts every path that agent runs changed after ID and keeps
the paths that only you changed outside runs (listed as kept). --exact makes
the whole workspace exactly ID. With PATHs, only those paths, whoever changed
them. Every restore that changes something first cuts a pre_restore_guard
checkpoint: ckpt undo brings back exactly the state before it. A path that
cannot be restored safely (it lies behind a symlink) is refused and left as
it is, the rest is restored, and ckpt exits 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitcode.Usage(errors.New("restore needs a checkpoint id"))
			}
			return run(g, func(ctx context.Context, b backend) error {
				paths, err := g.relPaths(args[1:])
				if err != nil {
					return err
				}
				req := api.RestoreRequest{ID: args[0], Paths: paths, Exact: o.exact, DryRun: o.dryRun}
				return runRestore(ctx, g, o, req, b, backend.Restore)
			})(cmd, args)
		},
	}
	o.flags(cmd, true)
	return cmd
}

func newUndoCommand(g *globalOptions) *cobra.Command {
	var o restoreOptions
	cmd := &cobra.Command{
		Use:   "undo",
		Short: "Undo the last restore: restore its guard checkpoint",
		Args:  noArgs,
		RunE: run(g, func(ctx context.Context, b backend) error {
			return runRestore(ctx, g, o, api.RestoreRequest{DryRun: o.dryRun}, b, backend.Undo)
		}),
	}
	o.flags(cmd, false)
	return cmd
}

// restoreFunc is backend.Restore or backend.Undo.
type restoreFunc func(backend, context.Context, api.RestoreRequest) (api.RestoreResult, error)

// runRestore asks first on a terminal (showing the plan) unless --yes.
// While the person decides, the backend is closed (an embedded engine
// would hold the store's lock), and opened again to restore.
func runRestore(ctx context.Context, g *globalOptions, o restoreOptions, req api.RestoreRequest, b backend, do restoreFunc) error {
	if !o.yes && !o.dryRun && !g.json && isTerminal(os.Stdin) && isTerminal(os.Stderr) {
		plan := req
		plan.DryRun = true
		r, err := do(b, ctx, plan)
		if err != nil {
			return err
		}
		writeRestore(os.Stderr, r)
		if len(r.Restored) == 0 {
			return restoreFailure(r)
		}
		g.close()
		if ok, err := confirm(ctx, fmt.Sprintf("Restore %s?", count(len(r.Restored), "path"))); err != nil || !ok {
			return cancelled("restore", err)
		}
		if b, err = g.open(ctx); err != nil {
			return err
		}
	}
	r, err := do(b, ctx, req)
	if err != nil {
		return err
	}
	failure := restoreFailure(r)
	out := restoreOutput{RestoreResult: r, Error: errorText(failure)}
	return emitRestoreResult(g, out, failure, func(w io.Writer) { writeRestore(w, r) })
}

// emitRestoreResult prints a restore's (or revert's) result: out, its
// JSON object with error set to failure's text, or write's text. A path
// refused or failed (failure) then makes ckpt exit 1.
func emitRestoreResult(g *globalOptions, out any, failure error, write func(io.Writer)) error {
	if err := g.emit(out, write); err != nil {
		return err
	}
	if failure != nil {
		return answered{failure}
	}
	return nil
}

// errorText is err's message, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// restoreOutput is the restore's one JSON object: with error set when a
// path was refused or failed (ckpt then exits 1).
type restoreOutput struct {
	api.RestoreResult
	Error string `json:"error,omitempty"`
}

// restoreFailure is the one line that says which paths the restore could
// not restore, or nil if it restored every path it planned.
func restoreFailure(r api.RestoreResult) error { return failureOf(r, "restored") }

// failureOf is restoreFailure for a restore (verb "restored") or a revert
// ("reverted").
func failureOf(r api.RestoreResult, verb string) error {
	var bad []string
	for _, c := range r.Refused {
		bad = append(bad, fmt.Sprintf("%s (refused: %s)", c.Path, c.Why))
	}
	for _, c := range r.Restored {
		if c.Error != "" {
			bad = append(bad, fmt.Sprintf("%s (%s)", c.Path, c.Error))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s could not be %s: %s", count(len(bad), "path"), verb, bad[0])
	if len(bad) > 1 {
		msg += fmt.Sprintf(" and %d more", len(bad)-1)
	}
	switch {
	case r.DryRun:
	case r.GuardCheckpointID != "":
		msg += fmt.Sprintf("; the rest was %s (undo with: ckpt undo)", verb)
	default:
		msg += "; nothing was written"
	}
	return errors.New(msg)
}

func writeRestore(w io.Writer, r api.RestoreResult) {
	verb := "restored"
	if r.DryRun {
		verb = "would restore"
	}
	fmt.Fprintf(w, "%s %s to %s\n", verb, count(len(r.Restored), "path"), r.CheckpointID)
	for _, c := range r.Restored {
		note := ""
		if c.Conflict {
			note = "  (you changed it too: ckpt undo brings your version back)"
		}
		if c.Error != "" {
			note = "  FAILED: " + c.Error
		}
		fmt.Fprintf(w, "  %-9s %s%s\n", c.Kind+":", c.Path, note)
	}
	if len(r.Kept) > 0 {
		fmt.Fprintf(w, "kept %s:\n", count(len(r.Kept), "path"))
		for _, k := range r.Kept {
			fmt.Fprintf(w, "  %-9s %s  (%s)\n", k.Kind+":", k.Path, k.Why)
		}
	}
	writeRestoreEnd(w, r)
}

// writeRestoreEnd is the end of a restore's (or revert's) text: the
// refused paths and the guard checkpoint.
func writeRestoreEnd(w io.Writer, r api.RestoreResult) {
	if len(r.Refused) > 0 {
		fmt.Fprintf(w, "refused %s (left as it is):\n", count(len(r.Refused), "path"))
		for _, c := range r.Refused {
			fmt.Fprintf(w, "  %-9s %s  (%s)\n", c.Kind+":", c.Path, c.Why)
		}
	}
	switch {
	case r.GuardCheckpointID != "":
		fmt.Fprintf(w, "guard checkpoint %s: undo with: ckpt undo\n", r.GuardCheckpointID)
	case !r.DryRun:
		fmt.Fprintln(w, "nothing to write, so no guard checkpoint was cut")
	}
}

// cancelled is the error of a restore or revert the person declined at
// the prompt: no, or Ctrl-C (err, which ckpt reports as an interrupt).
func cancelled(what string, err error) error {
	if err != nil {
		return err
	}
	return errors.New(what + " cancelled; nothing was changed")
}
