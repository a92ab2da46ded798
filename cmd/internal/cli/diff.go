package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/textdiff"
)

type diffOptions struct {
	patch      bool
	session    string
	run        string
	checkpoint string
}

func newDiffCommand(g *globalOptions) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff [FROM [TO]] [-- PATH...]",
		Short: "Show changes FROM -> TO (default: the current checkpoint -> the working tree), or what a run changed",
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, paths := args, []string(nil)
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				ids, paths = args[:dash], args[dash:]
			}
			if len(ids) > 2 {
				g.entered = false
				return exitcode.Usage(fmt.Errorf("diff takes at most two checkpoints (put paths after --)"))
			}
			// An empty id is bad input, not "the default": diff '' would
			// otherwise diff from the current checkpoint.
			if slices.Contains(ids, "") || (cmd.Flags().Changed("checkpoint") && o.checkpoint == "") {
				return exitcode.Usage(errors.New(`"" is not a checkpoint id`))
			}
			return run(g, func(ctx context.Context, b backend) error {
				return runDiff(ctx, g, b, o, ids, paths)
			})(cmd, args)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.patch, "patch", false, "include unified diffs")
	f.StringVar(&o.session, "session", "", "with --run: what this run changed")
	f.StringVar(&o.run, "run", "", "with --session: what this run changed")
	f.StringVar(&o.checkpoint, "checkpoint", "", "with --session and --run: diff to this checkpoint of the run")
	return cmd
}

func runDiff(ctx context.Context, g *globalOptions, b backend, o diffOptions, ids, paths []string) error {
	color := !g.json && isTerminal(os.Stdout)
	if o.session != "" || o.run != "" || o.checkpoint != "" {
		if len(ids) > 0 || len(paths) > 0 {
			return exitcode.Usage(fmt.Errorf("diff --session --run takes no checkpoints or paths"))
		}
		d, err := b.RunDiff(ctx, api.RunRequest{Session: o.session, Run: o.run, Checkpoint: o.checkpoint, Patch: o.patch})
		if err != nil {
			return err
		}
		return g.emit(d, func(w io.Writer) {
			if d.Warning != "" {
				fmt.Fprintf(os.Stderr, "warning: %s\n", d.Warning)
			}
			to := d.CheckpointID
			if to == "" {
				to = "the working tree"
			}
			fmt.Fprintf(w, "run %s/%s: %s -> %s\n", o.session, o.run, d.PrevCheckpointID, to)
			writeFiles(w, d.Files, color)
		})
	}
	rel, err := g.relPaths(paths)
	if err != nil {
		return err
	}
	req := api.DiffRequest{Paths: rel, Patch: o.patch}
	if len(ids) > 0 {
		req.From = ids[0]
	}
	if len(ids) > 1 {
		req.To = ids[1]
	}
	d, err := b.Diff(ctx, req)
	if err != nil {
		return err
	}
	return g.emit(d, func(w io.Writer) { writeFiles(w, d.Files, color) })
}

func writeFiles(w io.Writer, files []api.Change, color bool) {
	for _, f := range files {
		switch {
		case f.Patch != "" && color:
			fmt.Fprint(w, textdiff.Colorize(f.Patch))
		case f.Patch != "":
			fmt.Fprint(w, f.Patch)
		case f.Binary:
			fmt.Fprintf(w, "Binary file %s %s\n", f.Path, f.Kind)
		default:
			writeChanges(w, "", []api.Change{f})
		}
	}
}
