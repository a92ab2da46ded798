package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/service"
)

// socketWait bounds the wait for the socket of a daemon this command
// started: ckptd listens before it opens any workspace, so it answers
// within milliseconds of its start.
var socketWait = 3 * time.Second

// hookWait is how long a hook waits for a workspace its daemon is still
// opening (the first import of a big tree takes minutes): a hook answers
// within a second, whatever it could record.
var hookWait = 800 * time.Millisecond

// stillImporting is a hook's answer while the daemon imports the
// workspace for the first time.
func stillImporting(pid int, root string) error {
	return fmt.Errorf("ckptd (pid %d) is importing %s for the first time: this call is not recorded; the calls after the import are", pid, root)
}

// autostartOff says why no daemon is started: "" when one may be.
func autostartOff(cfg *config.Config) (reason, hint string) {
	if !cfg.Autostart {
		return "autostart is off", unitHint()
	}
	if hint := unitHint(); hint != "" {
		return "a systemd user unit runs ckptd", hint
	}
	return "", ""
}

// unitHint is how to start ckptd's systemd user unit when one is
// installed, else "".
func unitHint() string {
	if p, err := service.Path(nil); err == nil {
		if _, err := os.Stat(p); err == nil {
			return service.StartHint
		}
	}
	return ""
}

// autostart starts ckptd for the workspace in the background when no
// daemon answers, and connects to it once it serves the workspace. ok is
// false when no daemon was started (autostart off, a systemd unit that
// should run it, no ckptd binary) or it did not come up: the command goes
// on embedded. Two commands that start one at once start one daemon: the
// second ckptd finds the state directory locked and hands its workspace to
// the first.
func (g *globalOptions) autostart(ctx context.Context, cfg *config.Config) (backend, func() error, bool, error) {
	if off, hint := autostartOff(cfg); off != "" {
		g.startHint = hint
		return nil, nil, false, nil
	}
	pid, err := startDaemon(cfg, g.root, true)
	if err != nil {
		return nil, nil, false, nil // no ckptd to start: embedded, as without autostart
	}
	logPath := filepath.Join(cfg.StateDir, "ckptd.log")
	fmt.Fprintf(os.Stderr, "ckpt: started ckptd (pid %d) for %s in the background; it serves the next commands (log: %s)\n", pid, g.root, logPath)
	deadline := time.Now().Add(socketWait)
	for {
		b, closer, _, ok, err := dialDaemon(ctx, cfg, g.root, g.waitForImport)
		if ok || err != nil {
			return b, closer, ok, err
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "ckpt: warning: the ckptd started for %s did not answer within %v (see %s); working without it\n", g.root, socketWait, logPath)
			return nil, nil, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, false, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitOpened waits, for a hook, until the daemon has opened the workspace,
// at most until deadline: a first import is never waited for.
func waitOpened(ctx context.Context, cfg *config.Config, root string, deadline time.Time) error {
	for {
		h, err := daemonHealth(ctx, cfg.Socket)
		if err != nil {
			return err
		}
		if !opening(workspaceState(h, root)) {
			return nil
		}
		if time.Now().After(deadline) {
			return stillImporting(h.PID, root)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// opening: a workspace in this state cannot answer a hook yet (it is
// being opened, or its first import runs).
func opening(state string) bool {
	return state == api.StateOpening || state == api.StateImporting
}

func workspaceState(h api.Health, root string) string {
	for _, w := range h.Workspaces {
		if w.Root == root {
			return w.State
		}
	}
	return ""
}

// startDaemon starts `ckptd watch root` in its own session, so that it
// outlives this command and the terminal, logging to
// <state_dir>/ckptd.log. An autostarted ckptd that finds another daemon
// starting hands the workspace to it without a word.
func startDaemon(cfg *config.Config, root string, autostarted bool) (pid int, err error) {
	bin, err := ckptdBinary()
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return 0, err
	}
	logPath := filepath.Join(cfg.StateDir, "ckptd.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	args := []string{"watch", "--state-dir", cfg.StateDir, "--socket", cfg.Socket, "--ui-addr", cfg.UiAddr}
	if autostarted {
		args = append(args, "--autostarted")
	}
	cmd := exec.Command(bin, append(args, root)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", bin, err)
	}
	pid = cmd.Process.Pid
	return pid, cmd.Process.Release()
}

// ckptdBinary is the ckptd beside this ckpt, else the one on $PATH.
func ckptdBinary() (string, error) {
	p := siblingOrPath("ckptd")
	if p == "" {
		return "", errors.New("no ckptd beside ckpt or on $PATH: install it to use the panel")
	}
	return p, nil
}
