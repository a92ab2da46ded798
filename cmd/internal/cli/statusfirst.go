package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/client"
)

// A status asks the daemon for the status at once, without asking first
// whether it serves the workspace (GET /v1/health): one round trip instead
// of two when it does. An answer "not served", or none at all (a stale
// socket, a daemon that went away or does not answer in time), is then
// taken as the health question's answer: the command starts over the
// usual way (health, then autostart, adding the workspace to the daemon,
// or working without one), exactly as if it had asked first.

// dialStatusFirst is the daemon's client for the workspace, not yet known
// to serve it; ok is false when there is no socket to try.
func (g *globalOptions) dialStatusFirst(base *config.Config) (backend, func() error, bool) {
	c, err := client.Dial(base.Socket, clientOptions())
	if err != nil {
		return nil, nil, false
	}
	return c.Workspace(g.root), c.Close, true
}

// status is b's status; when b was dialled status-first and did not
// answer it, the backend is opened again the usual way and asked. It
// returns the backend that answered. raw, when not nil, is the daemon's
// answer as it encoded it, for --json to print as it is (statusJSON); s
// is then not filled in.
func (g *globalOptions) status(ctx context.Context, b backend) (s api.Status, raw []byte, _ backend, err error) {
	if !g.statusFirst {
		s, raw, err = g.askStatus(ctx, b)
		return s, raw, b, err
	}
	g.statusFirst = false
	// A daemon that serves the workspace answers within its sync_timeout
	// (its barrier gives up then); one that does not answer by then is
	// treated as absent, as the health question would have after
	// healthTimeout.
	sctx, cancel := context.WithTimeout(ctx, healthTimeout+g.cfg.SyncTimeout)
	s, raw, err = g.askStatus(sctx, b)
	cancel()
	if err == nil || ctx.Err() != nil || !notAnswered(err) {
		return s, raw, b, err
	}
	if b, err = g.reopen(ctx); err != nil {
		return api.Status{}, nil, nil, err
	}
	s, raw, err = g.askStatus(ctx, b)
	return s, raw, b, err
}

// askStatus asks b for the status. With --json, a daemon of this version
// that runs (it always says so: status prints nothing more then) and a
// workspace without a remote (whose replication status ckpt adds), the
// answer is printed as the daemon encoded it, indented: the object
// encoding/json makes of the same api.Status, without decoding it first.
func (g *globalOptions) askStatus(ctx context.Context, b backend) (api.Status, []byte, error) {
	w, ok := b.(*client.WorkspaceClient)
	if !ok || !g.json || g.cfg == nil || g.cfg.Remote != "" {
		s, err := b.Status(ctx)
		return s, nil, err
	}
	raw, s, err := w.StatusJSON(ctx)
	if err != nil || raw == nil {
		return s, nil, err
	}
	if !printableAsIs(raw) {
		err = json.Unmarshal(raw, &s)
		return s, nil, err
	}
	return api.Status{}, raw, nil
}

// printableAsIs reports whether a status as the daemon encoded it prints
// as the same status decoded and encoded again would: the daemon says it
// runs (status adds a start hint otherwise), and no string held bytes
// that are not UTF-8 (encoded as \ufffd, which decodes to U+FFFD, which
// encodes as itself). Neither pattern can occur unescaped inside a JSON
// string but as itself, so a false answer only costs the decoding.
func printableAsIs(raw []byte) bool {
	return bytes.Contains(raw, daemonRunning) && !bytes.Contains(raw, replacementEscape)
}

var (
	// daemonRunning is how a running daemon's status starts its daemon
	// object.
	daemonRunning = []byte(`"daemon":{"running":true`)
	// replacementEscape is how encoding/json writes a byte that is not
	// UTF-8 in a string.
	replacementEscape = []byte(`\ufffd`)
)

// notAnswered reports whether a status-first call's error means the daemon
// does not serve the workspace or did not answer at all. A socket of
// another user's is an answer: it is refused, never worked around.
func notAnswered(err error) bool {
	if errors.Is(err, client.ErrForeignDaemon) {
		return false
	}
	var opErr *net.OpError
	return errors.Is(err, fault.NotFound) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// clientOptions are the options of every client of the daemon: a version
// other than this ckpt's is warned about once, on stderr.
func clientOptions() client.Options {
	return client.Options{VersionWarning: func(msg string) {
		fmt.Fprintln(os.Stderr, "ckpt: warning:", msg)
	}}
}

// reopen drops the daemon a first call was sent to, which did nothing,
// and opens the backend the usual way (health, autostart, or working
// without a daemon). That daemon did nothing, so working without it is no
// late switch: it is not counted as an open.
func (g *globalOptions) reopen(ctx context.Context) (backend, error) {
	g.close()
	g.opens--
	return g.open(ctx)
}
