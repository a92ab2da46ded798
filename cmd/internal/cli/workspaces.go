package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/internal/plural"
)

// workspacesOutput is `ckpt workspaces --json`.
type workspacesOutput struct {
	Running    bool                `json:"running"` // a daemon answers on the socket
	PID        int                 `json:"pid,omitempty"`
	Workspaces []api.WorkspaceInfo `json:"workspaces"`
}

// forgetOutput is `ckpt workspaces --forget PATH --json`.
type forgetOutput struct {
	Root     string `json:"root"`
	PID      int    `json:"pid"`
	StateDir string `json:"state_dir"` // where the workspace's history stays
}

func newWorkspacesCommand(g *globalOptions) *cobra.Command {
	var forget string
	cmd := &cobra.Command{
		Use:   "workspaces [--forget PATH]",
		Short: "List the workspaces the daemon serves, or make it forget one",
		Long: `ckpt workspaces lists the workspaces the running ckptd serves: path, state
(opening while its first import runs, else ready), files and the time of the
last recorded change.

--forget PATH makes the daemon stop watching the workspace at PATH. Its
history stays in the state directory: ckpt commands there open it without a
daemon, and a later command in it (with autostart on) adds it again.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			g.cmd = cmd
			cfg, err := config.Load(config.Options{Flags: cmd.Flags()})
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("forget") {
				return forgetWorkspace(cmd.Context(), g, cfg, forget)
			}
			return listWorkspaces(cmd.Context(), g, cfg)
		},
	}
	cmd.Flags().StringVar(&forget, "forget", "", "stop watching the workspace at PATH (its history is kept)")
	return cmd
}

// dialRunning connects to the daemon on the socket; nil when none answers.
func dialRunning(ctx context.Context, cfg *config.Config) (*client.Client, error) {
	c, err := client.Dial(cfg.Socket, client.Options{VersionWarning: func(msg string) {
		fmt.Fprintln(os.Stderr, "ckpt: warning:", msg)
	}})
	if err != nil {
		return nil, nil
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if _, err := c.Health(hctx); err != nil {
		c.Close()
		if errors.Is(err, client.ErrForeignDaemon) {
			return nil, err
		}
		return nil, nil
	}
	return c, nil
}

func listWorkspaces(ctx context.Context, g *globalOptions, cfg *config.Config) error {
	out := workspacesOutput{Workspaces: []api.WorkspaceInfo{}}
	c, err := dialRunning(ctx, cfg)
	if err != nil {
		return err
	}
	if c != nil {
		defer c.Close()
		ws, err := c.Workspaces(ctx)
		if err != nil {
			return err
		}
		out.Running, out.PID, out.Workspaces = true, ws.PID, ws.Workspaces
	}
	return g.emit(out, func(w io.Writer) {
		if !out.Running {
			fmt.Fprintf(w, "No daemon running (socket %s): no workspace is served\n", cfg.Socket)
			return
		}
		fmt.Fprintf(w, "ckptd (pid %d) serves %s\n", out.PID, plural.Count(len(out.Workspaces), "workspace"))
		for _, ws := range out.Workspaces {
			if ws.State != api.StateReady {
				fmt.Fprintf(w, "  %s  %s\n", ws.Root, ws.State)
				continue
			}
			last := "no change recorded"
			if !ws.LastChangeAt.IsZero() {
				last = "last change " + ago(ws.LastChangeAt)
			}
			fmt.Fprintf(w, "  %s  %s, %s, %s\n", ws.Root, ws.State, plural.Count(int(ws.Files), "file"), last)
		}
	})
}

func forgetWorkspace(ctx context.Context, g *globalOptions, cfg *config.Config, path string) error {
	if path == "" {
		return exitcode.Usage(errors.New("--forget needs the workspace's path"))
	}
	root, err := filepath.Abs(path)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return exitcode.Usage(fmt.Errorf("workspace %s: %w", path, err))
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return exitcode.Usage(fmt.Errorf("workspace %s is not a directory", path))
	}
	c, err := dialRunning(ctx, cfg)
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("no daemon running (socket %s): nothing to forget", cfg.Socket)
	}
	defer c.Close()
	res, err := c.ForgetWorkspace(ctx, root)
	if err != nil {
		return err
	}
	out := forgetOutput{Root: res.Root, PID: res.PID, StateDir: cfg.StateDir}
	return g.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "ckptd (pid %d) no longer watches %s\n", out.PID, out.Root)
		fmt.Fprintf(w, "its history stays in %s: ckpt commands in the workspace use it (and, with autostart on, add it to the daemon again)\n", out.StateDir)
	})
}
