package panel

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/ckptdev/ckpt/integration/api"
)

// Source is what the panel needs from the daemon: the workspaces it serves.
type Source interface {
	// Roots lists the served workspaces, sorted.
	Roots() []string
	// Workspace is the served workspace at root; false if none is.
	Workspace(root string) (Workspace, bool)
}

// Workspace is one served workspace: its engine's reads and actions, and
// its events.
type Workspace interface {
	Status(ctx context.Context) (api.Status, error)
	Checkpoints(ctx context.Context, before string, n int) (api.Page, error)
	Runs(ctx context.Context) (api.Runs, error)
	RunDiff(ctx context.Context, req api.RunRequest) (api.RunDiff, error)
	ToolCalls(ctx context.Context, req api.RunRequest) (api.RunCalls, error)
	Diff(ctx context.Context, req api.DiffRequest) (api.DiffResult, error)
	VersionDiff(ctx context.Context, req api.VersionDiffRequest) (api.DiffResult, error)
	History(ctx context.Context, req api.HistoryRequest) (api.History, error)
	Reviews(ctx context.Context, session, run string) (api.Reviews, error)
	Review(ctx context.Context, req api.ReviewRequest) (api.Review, error)
	Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	Revert(ctx context.Context, req api.RevertRequest) (api.RevertResult, error)
	Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error)
	// PendingPath is the workspace file an open tool call's command names.
	PendingPath(command string) string
	// Subscribe streams the workspace's events until ctx ends or the
	// workspace is no longer served (then the channel is closed).
	Subscribe(ctx context.Context) (<-chan Event, error)
}

// Event is one event of a workspace's stream: its type ("change",
// "checkpoint", "restore", "lost") and its JSON, as the socket API's
// GET /v1/events carries it.
type Event struct {
	Type string
	Data []byte
}

// Options configure a Panel.
type Options struct {
	// Assets is the page: index.html and what it loads.
	Assets fs.FS
	// Log, if set, is told about refused requests (as warnings).
	Log *slog.Logger
}

// Panel serves the web panel for a Source.
type Panel struct {
	src   Source
	opts  Options
	token string
	port  string // the listener's port, once Serve is called; Host must carry it
	// version names this build's assets in their URLs (version.go).
	version string

	mu   sync.Mutex
	busy map[string]bool // workspaces with a restore in flight
}

// New returns a Panel over src with a fresh random token.
func New(src Source, opts Options) (*Panel, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("panel token: %w", err)
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	p := &Panel{src: src, opts: opts, token: hex.EncodeToString(b), busy: map[string]bool{}}
	if opts.Assets != nil {
		p.version = assetsVersion(opts.Assets)
	}
	return p, nil
}

// Token is the panel's secret: the URL that opens the panel carries it.
func (p *Panel) Token() string { return p.token }

// Listen listens on addr, which must name a loopback IP address
// ("127.0.0.1:0": a free port).
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("ui_addr %q: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("ui_addr %q: the panel listens on a loopback IP address only (127.0.0.1 or [::1])", addr)
	}
	return net.Listen("tcp", addr)
}

// URL is the address that opens the panel served on ln, with the token.
func (p *Panel) URL(ln net.Listener) string {
	return fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), p.token)
}

// Serve answers requests from ln until ctx ends.
func (p *Panel) Serve(ctx context.Context, ln net.Listener) error {
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		return err
	}
	p.port = port
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10e9}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Handler is the panel: every route behind the security checks. SetPort
// (or Serve) must have set the port the Host header must carry.
func (p *Panel) Handler() http.Handler {
	mux := http.NewServeMux()
	p.routes(mux)
	return p.guard(mux)
}

// SetPort sets the port the Host header must carry, for a Handler served
// by the caller.
func (p *Panel) SetPort(port string) { p.port = port }

// begin marks a restore in flight on root; false if one is already.
func (p *Panel) begin(root string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy[root] {
		return false
	}
	p.busy[root] = true
	return true
}

func (p *Panel) end(root string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.busy, root)
}
