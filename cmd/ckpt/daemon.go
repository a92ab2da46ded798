package main

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

// The daemon's client answers every command, as the embedded engine does.
var _ backend = (*client.WorkspaceClient)(nil)

// dialDaemon connects to the daemon if one serves root. A missing socket
// costs one stat; a stale one, a refused connect. The daemon holds the
// store of every workspace it serves, so such a workspace must go through
// it. A socket served by another user is an error, not an absent daemon:
// ckpt neither believes it nor works around it.
// importing, if set, is told when the daemon serves root while its first
// import runs.
func dialDaemon(ctx context.Context, cfg *config.Config, root string, importing func(*api.ImportProgress)) (backend, func() error, bool, error) {
	c, err := client.Dial(cfg.Socket, client.Options{VersionWarning: func(msg string) {
		fmt.Fprintln(os.Stderr, "ckpt: warning:", msg)
	}})
	if err != nil {
		return nil, nil, false, nil
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	h, err := c.Health(hctx)
	if errors.Is(err, client.ErrForeignDaemon) {
		c.Close()
		return nil, nil, false, err
	}
	if err != nil || !h.Serves(root) {
		c.Close()
		return nil, nil, false, nil
	}
	if importing != nil {
		for _, w := range h.Workspaces {
			if w.Root == root && w.State == api.StateImporting && w.Import != nil {
				importing(w.Import)
			}
		}
	}
	return c.Workspace(root), c.Close, true, nil
}
