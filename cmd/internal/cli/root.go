package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/statedir"
)

// backend answers the commands: the daemon's client or the embedded engine.
type backend interface {
	Status(ctx context.Context) (api.Status, error)
	Checkpoint(ctx context.Context, message string) (api.Checkpoint, error)
	Rescan(ctx context.Context) error
	Log(ctx context.Context, n int) (api.Log, error)
	Show(ctx context.Context, id string) (api.Show, error)
	Diff(ctx context.Context, req api.DiffRequest) (api.DiffResult, error)
	RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error)
	RunStart(ctx context.Context, session, run string) (api.RunStart, error)
	RunEnd(ctx context.Context, session, run string) (api.RunEnd, error)
	RunEndAsOf(ctx context.Context, session, run string, asOf time.Time) (api.RunEnd, error)
	ToolStart(ctx context.Context, req api.ToolRequest) (api.Checkpoint, error)
	ToolEnd(ctx context.Context, req api.ToolRequest) (api.ToolEnd, error)
	Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error)
	History(ctx context.Context, req api.HistoryRequest) (api.History, error)
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
	// daemonMayKeepConfig: an invalid workspace ckpt.yaml is no error when
	// a daemon serves the workspace (it keeps its settings and says why).
	daemonMayKeepConfig bool
	// hook: the command is an agent runtime's hook, which answers within
	// about a second and never waits for a first import.
	hook bool
	// startHint, when no daemon runs and none was started, says how to
	// start the one that should run (a systemd unit is installed).
	startHint string
	// noAutostart: no daemon is started for this command.
	noAutostart bool
	// ownStore: the command needs the workspace's store to itself (pull):
	// it starts no daemon and adds the workspace to none.
	ownStore bool

	// engine is nil in the ckpt binary: working without a daemon runs the
	// command in ckptd (execEngine).
	engine Engine
	args   []string // the command line, for execEngine
	opens  int      // backends opened so far
	// answersWhileImporting: the command does not wait for the daemon's
	// first import (status), so nothing is said about waiting.
	answersWhileImporting bool
	// statusFirst: the command's first call is a status, asked of the
	// daemon without asking first whether it serves the workspace
	// (statusfirst.go).
	statusFirst bool
	// checkpointFirst: the command's first call is a checkpoint, asked of
	// the daemon in the same way (checkpointfirst.go).
	checkpointFirst bool
	// hookAsked: a hook's first call went to the daemon without asking
	// first whether it serves the workspace (hookfirst.go).
	hookAsked bool
	// base, when set, is the configuration (without the workspace's file)
	// loaded, and its state directory prepared, before the backend is
	// opened (a hook's, for its session state).
	base *config.Config
}

// workspaceConfigFile is the workspace's own configuration file
// (local.WorkspaceConfigFile).
const workspaceConfigFile = "ckpt.yaml"

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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.Usage(err) })
	pf := root.PersistentFlags()
	pf.StringVarP(&g.dir, "dir", "C", "", "workspace directory (default: the nearest known workspace above the current directory, else it)")
	pf.BoolVar(&g.json, "json", false, "print exactly one JSON object on stdout")
	pf.String("state-dir", "", "state directory (stores, logs)")
	pf.String("socket", "", "the daemon's socket")
	addCommands(root, g, g.args)
	decorate(root)
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
	base := g.base
	if base == nil {
		var err error
		if base, err = config.Load(config.Options{Flags: flags}); err != nil {
			return nil, err
		}
		if err := statedir.PrepareStateDir(base.StateDir); err != nil {
			return nil, err
		}
	}
	var err error
	if g.root, err = findWorkspace(g.dir, base.StateDir); err != nil {
		return nil, err
	}
	// The workspace's ckpt.yaml cannot change the state directory or the
	// socket (config refuses it), so the daemon is found with base.
	g.cfg = base
	var wsErr error
	if _, err := os.Stat(filepath.Join(g.root, workspaceConfigFile)); err == nil {
		if g.cfg, wsErr = config.Load(config.Options{Workspace: g.root, Flags: flags}); wsErr != nil {
			g.cfg = base
		}
	}
	// A daemon started for a workspace whose ckpt.yaml is invalid could
	// not open it: none is started.
	g.noAutostart = wsErr != nil || g.ownStore
	b, closer, ok, err := g.connect(ctx, base)
	if err != nil {
		return nil, err
	}
	if wsErr != nil && !(ok && g.daemonMayKeepConfig) {
		if ok {
			closer()
		}
		return nil, wsErr
	}
	if ok {
		g.closer = closer
		g.opens++
		return b, nil
	}
	if g.engine == nil {
		return nil, g.execEngine()
	}
	eng, closer, err := g.engine.Embedded(ctx, g.cfg, g.root, progressBar(g), func(msg string) { fmt.Fprintln(os.Stderr, msg) })
	if err != nil {
		return nil, err
	}
	g.closer = closer
	g.opens++
	return eng, nil
}

// close lets go of the backend (for the embedded engine: the store and its
// lock). It may be called more than once; only the first call closes.
func (g *globalOptions) close() {
	if g.closer != nil {
		g.closer()
		g.closer = nil
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
		return "", exitcode.Usage(fmt.Errorf("workspace %s: %w", dir, err))
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return "", exitcode.Usage(fmt.Errorf("workspace %s is not a directory", dir))
	}
	if explicit {
		return abs, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if statedir.Known(stateDir, d) {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return abs, nil
		}
	}
}

// relPaths turns command-line paths (relative to the current directory,
// or absolute) into workspace-relative ones; a path outside the workspace
// is bad input. A path names what is in the workspace at that name: a
// symlink on the way to it inside the workspace is not followed (ckpt never
// follows them), so "d/f" stays d/f when d is a symlink to elsewhere. Only
// a path that is outside the workspace as written is looked at through its
// symlinks (a workspace reached through a symlinked directory).
func (g *globalOptions) relPaths(args []string) ([]string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if resolved, err := filepath.EvalSymlinks(wd); err == nil {
		wd = resolved
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p, err := api.UnquotePath(a)
		if err != nil {
			return nil, fault.Mark(fmt.Errorf("path %s: %w", a, err), fault.Invalid)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		p = filepath.Clean(p)
		rel, ok := relativeTo(g.root, p)
		if !ok {
			if resolved, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				rel, ok = relativeTo(g.root, filepath.Join(resolved, filepath.Base(p)))
			}
		}
		if !ok {
			return nil, fault.Mark(fmt.Errorf("%s is outside the workspace %s", a, g.root), fault.Invalid)
		}
		out = append(out, api.QuotePath(filepath.ToSlash(rel)))
	}
	return out, nil
}

// relativeTo is p relative to root, if p is root or lies under it.
func relativeTo(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}
