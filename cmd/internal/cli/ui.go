package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"github.com/ckptdev/ckpt/integration/panel/panelinfo"
)

// uiStartTimeout bounds the wait for a daemon that `ckpt ui` started (its
// first import of a big workspace included).
var uiStartTimeout = 2 * time.Minute

// uiResult is `ckpt ui --json`.
type uiResult struct {
	URL       string `json:"url"`
	Workspace string `json:"workspace"`
	PID       int    `json:"pid"`
	Started   bool   `json:"started"` // this command started the daemon
	Opened    bool   `json:"opened"`  // a browser was asked to open the URL
}

func newUICommand(g *globalOptions) *cobra.Command {
	var noBrowser bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the web panel: review every run and roll back any file",
		Long: `ckpt ui opens the web panel that ckptd serves for the workspace in the
browser ($BROWSER, else xdg-open) and prints its URL. If no daemon serves the
workspace, it starts one (ckptd watch DIR, detached, logging to
<state_dir>/ckptd.log) or asks the running one to add the workspace.

The URL carries a secret token: whoever has it can restore files.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g.entered = true
			g.cmd = cmd
			res, err := openUI(cmd.Context(), g)
			if err != nil {
				return err
			}
			if !noBrowser {
				res.Opened = openBrowser(res.URL)
			}
			return g.emit(res, func(w io.Writer) {
				fmt.Fprintf(w, "ckpt panel for %s:\n  %s\n", res.Workspace, res.URL)
				if !res.Opened && !noBrowser {
					fmt.Fprintln(w, "(no browser to open it with: set $BROWSER, or open the URL yourself)")
				}
			})
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "only print the URL")
	return cmd
}

// openUI makes sure a daemon serves the workspace and returns its panel's
// URL, naming the workspace.
func openUI(ctx context.Context, g *globalOptions) (uiResult, error) {
	flags := g.cmd.Flags()
	cfg, err := config.Load(config.Options{Flags: flags})
	if err != nil {
		return uiResult{}, err
	}
	root, err := findWorkspace(g.dir, cfg.StateDir)
	if err != nil {
		return uiResult{}, err
	}
	res := uiResult{Workspace: root}
	h, err := daemonHealth(ctx, cfg.Socket)
	switch {
	case err != nil:
		if _, err := startDaemon(cfg, root, false); err != nil {
			return res, err
		}
		res.Started = true
	case !h.Serves(root):
		c, err := client.Dial(cfg.Socket, client.Options{})
		if err != nil {
			return res, err
		}
		_, err = c.AddWorkspaces(ctx, []string{root})
		c.Close()
		if err != nil {
			return res, fmt.Errorf("the running ckptd (pid %d) could not add %s: %w", h.PID, root, err)
		}
	}
	info, err := waitForPanel(ctx, cfg, root)
	if err != nil {
		return res, err
	}
	res.PID = info.PID
	res.URL = info.URL + "#/timeline?" + url.Values{"ws": {root}}.Encode()
	return res, nil
}

func daemonHealth(ctx context.Context, socket string) (api.Health, error) {
	c, err := client.Dial(socket, client.Options{})
	if err != nil {
		return api.Health{}, err
	}
	defer c.Close()
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	return c.Health(hctx)
}

// waitForPanel waits until the daemon serves root and has written its
// panel's address.
func waitForPanel(ctx context.Context, cfg *config.Config, root string) (panelinfo.Info, error) {
	deadline := time.Now().Add(uiStartTimeout)
	for {
		h, err := daemonHealth(ctx, cfg.Socket)
		if err == nil && h.Serves(root) {
			info, ierr := panelinfo.Read(panelinfo.Path(cfg.StateDir))
			if ierr == nil && info.PID == h.PID {
				return info, nil
			}
		}
		if time.Now().After(deadline) {
			return panelinfo.Info{}, fmt.Errorf("ckptd did not serve the panel for %s within %v (see %s)", root, uiStartTimeout, filepath.Join(cfg.StateDir, "ckptd.log"))
		}
		select {
		case <-ctx.Done():
			return panelinfo.Info{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// openBrowser asks $BROWSER, else xdg-open (with a display), to open u.
func openBrowser(u string) bool {
	bin := os.Getenv("BROWSER")
	if bin == "" {
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return false
		}
		bin = "xdg-open"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return false
	}
	cmd := exec.Command(path, u)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() != nil {
		return false
	}
	go cmd.Wait()
	return true
}
