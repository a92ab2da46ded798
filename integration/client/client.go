package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/ckptdev/ckpt/integration/api"
)

// ErrNoDaemon means there is no socket to talk to.
var ErrNoDaemon = errors.New("no ckptd socket")

// Client talks to a daemon over its socket. Its methods are safe for
// concurrent use.
type Client struct {
	socket string
	pool   pool
	warn   func(msg string)
	warned sync.Once
}

// Options tune a Client.
type Options struct {
	// VersionWarning, if set, is told once, in one line, when the daemon
	// answers with a version header other than this binary's api.Version
	// (or none): the two may not agree on the API.
	VersionWarning func(msg string)
}

// Dial returns a client for the daemon at socketPath. It only checks that
// the socket exists (ErrNoDaemon if not), so it costs almost nothing when
// no daemon runs; the first call connects. Every connection's peer must
// run as this process's uid: another's is refused with ErrForeignDaemon
// before a byte is sent.
func Dial(socketPath string, o Options) (*Client, error) {
	fi, err := os.Stat(socketPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoDaemon, socketPath)
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return nil, fmt.Errorf("%w: %s is not a socket", ErrNoDaemon, socketPath)
	}
	return &Client{socket: socketPath, warn: o.VersionWarning}, nil
}

// checkVersion compares the version an answer carries with this binary's,
// and warns the first time they differ.
func (c *Client) checkVersion(ans *wireAnswer) {
	if c.warn == nil {
		return
	}
	if err := api.CheckVersion(ans.version); err != nil {
		c.warned.Do(func() { c.warn(err.Error()) })
	}
}

// Close lets go of the client's idle connections.
func (c *Client) Close() error {
	c.pool.closeAll()
	return nil
}

// Health is GET /v1/health.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	return h, c.do(ctx, methodGet, "/v1/health", nil, nil, &h)
}

// AddWorkspaces asks the daemon to serve these workspaces (absolute paths),
// importing them the first time; it returns once they are served.
func (c *Client) AddWorkspaces(ctx context.Context, roots []string) (api.AddWorkspacesResult, error) {
	var res api.AddWorkspacesResult
	return res, c.do(ctx, methodPost, "/v1/workspaces", nil, api.AddWorkspacesRequest{Workspaces: roots}, &res)
}

// Workspaces is GET /v1/workspaces: what the daemon serves.
func (c *Client) Workspaces(ctx context.Context) (api.Workspaces, error) {
	var res api.Workspaces
	return res, c.do(ctx, methodGet, "/v1/workspaces", nil, nil, &res)
}

// ForgetWorkspace is DELETE /v1/workspaces: the daemon stops watching root
// (its history stays on disk).
func (c *Client) ForgetWorkspace(ctx context.Context, root string) (api.ForgetResult, error) {
	var res api.ForgetResult
	return res, c.do(ctx, methodDelete, "/v1/workspaces", url.Values{"workspace": {root}}, nil, &res)
}

// The methods of the daemon's routes.
const (
	methodGet    = "GET"
	methodPost   = "POST"
	methodDelete = "DELETE"
)

// do makes one call: the body (if any) as JSON, the answer into out. An
// error answer becomes an error with the daemon's message; a 400 is
// api.ErrInvalid.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	return c.doWaiting(ctx, true, method, path, query, in, out)
}

// doWaiting is do; wait false asks the daemon not to wait for the
// workspace to open (api.WaitHeader).
func (c *Client) doWaiting(ctx context.Context, wait bool, method, path string, query url.Values, in, out any) error {
	body, _, err := c.doBody(ctx, wait, method, path, query, in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("ckptd at %s: malformed answer to %s: %w", c.socket, path, err)
	}
	return nil
}

// doBody is doWaiting up to the decoding: the body of a successful answer
// as the daemon wrote it, and the version it answered with.
func (c *Client) doBody(ctx context.Context, wait bool, method, path string, query url.Values, in any) ([]byte, string, error) {
	req := wireRequest{method: method, target: path, noWait: !wait}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, "", err
		}
		req.body = b
	}
	if len(query) > 0 {
		req.target += "?" + query.Encode()
	}
	wc, ans, stop, err := c.exchange(ctx, req)
	if err != nil {
		if errors.Is(err, ErrForeignDaemon) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("ckptd at %s: %w", c.socket, err)
	}
	body, err := io.ReadAll(ans.body)
	reusable := stop() && ans.keepAlive
	if err != nil {
		wc.nc.Close()
		if cerr := contextErr(ctx, err); cerr != nil {
			err = cerr
		}
		return nil, "", fmt.Errorf("ckptd at %s: %w", c.socket, err)
	}
	if reusable {
		c.pool.put(wc)
	} else {
		wc.nc.Close()
	}
	c.checkVersion(ans)
	if ans.status/100 != 2 {
		return nil, "", answerError(ans, body, query.Get("workspace"))
	}
	return body, ans.version, nil
}

// answerError turns an error answer into an error.
// root is the workspace it was for ("": none).
func answerError(ans *wireAnswer, b []byte, root string) error {
	if len(b) > maxErrorBody {
		b = b[:maxErrorBody]
	}
	var eb api.ErrorBody
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &eb) == nil && eb.Error != "" {
		msg = eb.Error
	} else {
		eb = api.ErrorBody{}
	}
	if msg == "" {
		msg = ans.statusLine
	}
	eb.Error = msg
	return api.ErrorOfBody(ans.status, eb, root)
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20
