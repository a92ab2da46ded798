package cli

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// A hook makes its first call (a run start, a tool start or end) at once,
// without asking first whether the daemon serves the workspace (GET
// /v1/health): one round trip instead of two when it does, as for status
// (statusfirst.go). Its calls ask the daemon not to wait for the
// workspace to open (api.WaitHeader), so a workspace still being opened or
// imported for the first time is answered at once, and the hook says so
// as it did after the health question. An answer "not served", or a
// socket nobody listens on, is the health question's answer: the hook
// starts over the usual way (health, then autostart or adding the
// workspace to the daemon, which a hook waits for up to hookWait). Any
// other failure of that first call is the hook's failure: the call may
// have been carried out, so it is not made twice.

// hookFirst is the daemon's client for a hook, not yet known to serve the
// workspace; after a fallback, it is what the usual way opened.
type hookFirst struct {
	backend
	g     *globalOptions
	asked bool
}

// dialHookFirst is the hook's client of the daemon at base.Socket; ok is
// false when there is no socket to try.
func (g *globalOptions) dialHookFirst(base *config.Config) (backend, func() error, bool) {
	c, err := client.Dial(base.Socket, clientOptions())
	if err != nil {
		return nil, nil, false
	}
	return &hookFirst{backend: c.Workspace(g.root).NoWait(), g: g}, c.Close, true
}

// notRecorded is a hook's answer while the daemon opens or imports the
// workspace: applyPlan passes it on as it is.
type notRecorded struct{ err error }

func (e notRecorded) Error() string { return e.err.Error() }
func (e notRecorded) Unwrap() error { return e.err }

// hookCall makes one of the hook's calls through h.
func hookCall[T any](ctx context.Context, h *hookFirst, call func(ctx context.Context, b backend) (T, error)) (T, error) {
	if h.asked {
		v, err := call(ctx, h.backend)
		return v, stillOpening(err)
	}
	h.asked = true
	// A daemon that serves the workspace answers within its sync_timeout
	// (its barrier gives up then); one that does not is not waited for
	// longer than the health question would have been.
	fctx, cancel := context.WithTimeout(ctx, healthTimeout+h.g.cfg.SyncTimeout)
	v, err := call(fctx, h.backend)
	cancel()
	if err == nil || ctx.Err() != nil || !notServed(err) {
		return v, stillOpening(err)
	}
	b, err := h.g.reopen(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	h.backend = b
	return call(ctx, b)
}

// stillOpening turns the daemon's "not open yet" into the hook's answer.
func stillOpening(err error) error {
	var no *api.NotOpenError
	if errors.As(err, &no) {
		return notRecorded{stillImporting(no.PID, no.Root)}
	}
	return err
}

// notServed reports whether a hook's first call failed before the daemon
// could act on it: it does not serve the workspace (or has no such
// route), or nobody listens on the socket. A socket of another user's is
// an answer: it is refused, never worked around.
func notServed(err error) bool {
	if errors.Is(err, client.ErrForeignDaemon) {
		return false
	}
	var opErr *net.OpError
	return errors.Is(err, fault.NotFound) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ENOENT) || (errors.As(err, &opErr) && opErr.Op == "dial")
}

func (h *hookFirst) RunStart(ctx context.Context, session, run string) (api.RunStart, error) {
	return hookCall(ctx, h, func(ctx context.Context, b backend) (api.RunStart, error) { return b.RunStart(ctx, session, run) })
}

func (h *hookFirst) RunEndAsOf(ctx context.Context, session, run string, asOf time.Time) (api.RunEnd, error) {
	return hookCall(ctx, h, func(ctx context.Context, b backend) (api.RunEnd, error) {
		return b.RunEndAsOf(ctx, session, run, asOf)
	})
}

func (h *hookFirst) ToolStart(ctx context.Context, req api.ToolRequest) (api.Checkpoint, error) {
	return hookCall(ctx, h, func(ctx context.Context, b backend) (api.Checkpoint, error) { return b.ToolStart(ctx, req) })
}

func (h *hookFirst) ToolEnd(ctx context.Context, req api.ToolRequest) (api.ToolEnd, error) {
	return hookCall(ctx, h, func(ctx context.Context, b backend) (api.ToolEnd, error) { return b.ToolEnd(ctx, req) })
}
