package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/wiring"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/snapshot"
)

// backend answers the commands: the daemon's client or the embedded engine.
type backend interface {
	Status(ctx context.Context) (drift.Status, error)
	Checkpoint(ctx context.Context, message string) (drift.Checkpoint, error)
	Rescan(ctx context.Context) error
	Log(ctx context.Context, n int) (drift.Log, error)
	Show(ctx context.Context, id string) (drift.Show, error)
	Diff(ctx context.Context, req drift.DiffRequest) (drift.DiffResult, error)
	RunDiff(ctx context.Context, req drift.RunRequest) (drift.RunDiff, error)
	RunStart(ctx context.Context, session, run string) (drift.RunStart, error)
	RunEnd(ctx context.Context, session, run string) (drift.RunEnd, error)
	ToolStart(ctx context.Context, req drift.ToolRequest) (drift.Checkpoint, error)
	ToolEnd(ctx context.Context, req drift.ToolRequest) (drift.ToolEnd, error)
	Restore(ctx context.Context, req drift.RestoreRequest) (drift.RestoreResult, error)
	Undo(ctx context.Context, req drift.RestoreRequest) (drift.RestoreResult, error)
	Revert(ctx context.Context, req drift.RevertRequest) (drift.RevertResult, error)
	History(ctx context.Context, req drift.HistoryRequest) (drift.History, error)
}

// globalOptions are the flags every command takes.
type globalOptions struct {
	dir     string
	json    bool
	entered bool // a command's RunE began: later errors are not usage errors
	cmd     *cobra.Command

	root   string
	cfg    *config.Config
	closer func() error
}

func newRootCommand(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:           "ckpt",
		Short:         "Checkpoints, drift and exact undo for a workspace that agents and people both edit",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			g.cmd = cmd
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVarP(&g.dir, "dir", "C", "", "workspace directory (default: the nearest known workspace above the current directory, else it)")
	pf.BoolVar(&g.json, "json", false, "print exactly one JSON object on stdout")
	pf.String("state-dir", "", "state directory (stores, logs)")
	pf.String("socket", "", "the daemon's socket")
	root.AddCommand(
		newStatusCommand(g),
		newCheckpointCommand(g),
		newLogCommand(g),
		newShowCommand(g),
		newDiffCommand(g),
		newRunCommand(g),
		newToolCommand(g),
		newExecCommand(g),
		newRestoreCommand(g),
		newUndoCommand(g),
		newRevertCommand(g),
		newHistoryCommand(g),
		newHookCommand(g),
		newUICommand(g),
		newReviewCommand(g),
	)
	return root
}

// run wraps a command body: from here on, errors are not usage errors.
func run(g *globalOptions, fn func(ctx context.Context, b backend) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		g.entered = true
		g.cmd = cmd
		b, err := g.open(cmd.Context())
		if err != nil {
			return err
		}
		defer g.close()
		return fn(cmd.Context(), b)
	}
}

// open finds the workspace, loads its config and connects to the daemon
// that serves it, or opens the engine itself.
func (g *globalOptions) open(ctx context.Context) (backend, error) {
	flags := g.cmd.Flags()
	base, err := config.Load(config.Options{Flags: flags})
	if err != nil {
		return nil, err
	}
	if g.root, err = findWorkspace(g.dir, base.StateDir); err != nil {
		return nil, err
	}
	g.cfg = base
	if _, err := os.Stat(filepath.Join(g.root, "ckpt.yaml")); err == nil {
		if g.cfg, err = config.Load(config.Options{Workspace: g.root, Flags: flags}); err != nil {
			return nil, err
		}
	}
	if b, closer, ok := dialDaemon(ctx, g.cfg, g.root); ok {
		g.closer = closer
		return b, nil
	}
	eng, err := wiring.Embedded(ctx, g.cfg, g.root, progressBar(g))
	if err != nil {
		return nil, err
	}
	g.closer = eng.Workspace().Close
	return eng, nil
}

func (g *globalOptions) close() {
	if g.closer != nil {
		g.closer()
	}
}

// findWorkspace is -C DIR if given, else the nearest ancestor of the
// current directory that is a known workspace, else the current directory.
func findWorkspace(dir, stateDir string) (string, error) {
	explicit := dir != ""
	if !explicit {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", usageError{fmt.Errorf("workspace %s: %w", dir, err)}
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", usageError{fmt.Errorf("workspace %s is not a directory", dir)}
	}
	if explicit {
		return abs, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if snapshot.Known(stateDir, d) {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return abs, nil
		}
	}
}

// relPaths turns command-line paths (relative to the current directory,
// or absolute) into workspace-relative ones; a path outside the workspace
// is bad input.
func (g *globalOptions) relPaths(args []string) ([]string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		p = filepath.Clean(p)
		if resolved, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(resolved, filepath.Base(p))
		}
		rel, err := filepath.Rel(g.root, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, drift.Invalid(fmt.Errorf("%s is outside the workspace %s", a, g.root))
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}
