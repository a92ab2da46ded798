package cli

import (
	"context"
	"errors"
	"time"

	"fmt"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
	"os"
)

// healthTimeout bounds the question "does a daemon serve this workspace?"
// when a socket exists; a daemon that does not answer in time is treated
// as absent.
var healthTimeout = 3 * time.Second

// started0 is when this command began: a hook's time budget counts from it.
var started0 = time.Now()

// The daemon's client answers every command, as the embedded engine does.
var _ backend = (*client.WorkspaceClient)(nil)

// connect finds the daemon that serves the workspace, starting one when
// none runs (autostart). ok is false when the command must work embedded.
// A hook does not wait for a first import: it fails (one line, exit 1)
// when the daemon is still opening the workspace, at once, or after
// hookWait when this hook started the daemon or asked it to add the
// workspace (a small workspace is imported by then).
func (g *globalOptions) connect(ctx context.Context, base *config.Config) (backend, func() error, bool, error) {
	if g.statusFirst {
		if b, closer, ok := g.dialStatusFirst(base); ok {
			return b, closer, true, nil
		}
		g.statusFirst = false
	}
	if g.checkpointFirst {
		g.checkpointFirst = false
		if b, closer, ok := g.dialCheckpointFirst(base); ok {
			return b, closer, true, nil
		}
	}
	if g.hook && !g.hookAsked {
		g.hookAsked = true
		if b, closer, ok := g.dialHookFirst(base); ok {
			return b, closer, true, nil
		}
	}
	b, closer, h, ok, err := dialDaemon(ctx, base, g.root, g.waitForImport)
	if err != nil {
		return nil, nil, false, err
	}
	started := false // this command started the daemon
	switch {
	case ok:
	case g.noAutostart || !base.Autostart || runByEngine: // ckpt tried before it handed over
		if h == nil {
			g.startHint = unitHint()
		}
		return nil, nil, false, nil
	case h == nil:
		if b, closer, ok, err = g.autostart(ctx, base); !ok || err != nil {
			return nil, nil, false, err
		}
		started = true
	default:
		if b, closer, err = g.addToDaemon(ctx, base, *h); err != nil {
			return nil, nil, false, err
		}
		return b, closer, true, nil
	}
	if g.hook && (started || opening(workspaceState(*h, g.root))) {
		// Only the hook that started the daemon waits (briefly) for the
		// import; the others answer at once.
		deadline := started0.Add(hookWait)
		if !started {
			deadline = time.Now()
		}
		if err := waitOpened(ctx, base, g.root, deadline); err != nil {
			closer()
			return nil, nil, false, err
		}
	}
	return b, closer, true, nil
}

// addToDaemon asks the running daemon, which does not serve the workspace,
// to add it: the daemon holds one state directory, so the workspace's
// store is best kept by it. A hook gives up waiting for a first import
// after hookWait (the daemon goes on importing).
func (g *globalOptions) addToDaemon(ctx context.Context, base *config.Config, h api.Health) (backend, func() error, error) {
	c, err := client.Dial(base.Socket, client.Options{})
	if err != nil {
		return nil, nil, err
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if g.hook {
		actx, cancel = context.WithDeadline(ctx, started0.Add(hookWait))
	}
	defer cancel()
	_, err = c.AddWorkspaces(actx, []string{g.root})
	if err != nil {
		c.Close()
		if g.hook && ctx.Err() == nil && actx.Err() != nil {
			return nil, nil, stillImporting(h.PID, g.root)
		}
		return nil, nil, fmt.Errorf("the running ckptd (pid %d) could not add %s: %w", h.PID, g.root, err)
	}
	return c.Workspace(g.root), c.Close, nil
}

// dialDaemon connects to the daemon if one serves root. A missing socket
// costs one stat; a stale one, a refused connect. The daemon holds the
// store of every workspace it serves, so such a workspace must go through
// it. A socket served by another user is an error, not an absent daemon:
// ckpt neither believes it nor works around it. h is the daemon's health
// when one answered (nil: no daemon). importing, if set, is told when the
// daemon serves root while its first import runs.
func dialDaemon(ctx context.Context, cfg *config.Config, root string, importing func(*api.ImportProgress)) (backend, func() error, *api.Health, bool, error) {
	c, err := client.Dial(cfg.Socket, client.Options{VersionWarning: func(msg string) {
		fmt.Fprintln(os.Stderr, "ckpt: warning:", msg)
	}})
	if err != nil {
		return nil, nil, nil, false, nil
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	h, err := c.Health(hctx)
	if errors.Is(err, client.ErrForeignDaemon) {
		c.Close()
		return nil, nil, nil, false, err
	}
	if err != nil {
		c.Close()
		return nil, nil, nil, false, nil
	}
	if !h.Serves(root) {
		c.Close()
		return nil, nil, &h, false, nil
	}
	if importing != nil {
		for _, w := range h.Workspaces {
			if w.Root == root && w.State == api.StateImporting && w.Import != nil {
				importing(w.Import)
			}
		}
	}
	return c.Workspace(root), c.Close, &h, true, nil
}
