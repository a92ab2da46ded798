package cli

import (
	"context"
	"errors"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// A checkpoint asks the daemon for the checkpoint at once, without asking
// first whether it serves the workspace (GET /v1/health): one round trip
// instead of two when it does, as status does (statusfirst.go). The call
// asks the daemon not to wait for the workspace to open (api.WaitHeader):
// a workspace still being opened or imported for the first time is then
// asked the usual way, which says that it waits and waits. An answer "not
// served", or a socket nobody listens on, is the health question's answer:
// the command starts over the usual way (health, then autostart, adding
// the workspace to the daemon, or working without one). Any other failure
// of that first call is the command's failure: the daemon may have cut
// the checkpoint, so it is not asked twice (as a hook's first call,
// hookfirst.go).

// checkpointFirst is the daemon's client for a checkpoint, not yet known
// to serve the workspace.
type checkpointFirst struct {
	backend
	g *globalOptions
}

// dialCheckpointFirst is the checkpoint's client of the daemon at
// base.Socket; ok is false when there is no socket to try.
func (g *globalOptions) dialCheckpointFirst(base *config.Config) (backend, func() error, bool) {
	c, err := client.Dial(base.Socket, clientOptions())
	if err != nil {
		return nil, nil, false
	}
	return &checkpointFirst{backend: c.Workspace(g.root).NoWait(), g: g}, c.Close, true
}

// Checkpoint asks the daemon for the checkpoint; when it did not serve the
// workspace, or had not opened it yet, the backend is opened again the
// usual way and asked.
func (c *checkpointFirst) Checkpoint(ctx context.Context, message string) (api.Checkpoint, error) {
	// A daemon that serves the workspace answers within its sync_timeout
	// (its barrier gives up then); one that does not is not waited for
	// longer than the health question would have been.
	fctx, cancel := context.WithTimeout(ctx, healthTimeout+c.g.cfg.SyncTimeout)
	cp, err := c.backend.Checkpoint(fctx, message)
	cancel()
	var no *api.NotOpenError
	if err == nil || ctx.Err() != nil || !(notServed(err) || errors.As(err, &no)) {
		return cp, err
	}
	b, err := c.g.reopen(ctx)
	if err != nil {
		return api.Checkpoint{}, err
	}
	return b.Checkpoint(ctx, message)
}
