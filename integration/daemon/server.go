package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
)

// Served is a workspace as the server serves it.
type Served struct {
	Engine *drift.Engine
	// Stats, if set, reports the workspace's watcher for health and status.
	Stats func() api.WatcherStats
	// Importing, if set, is the first import's progress while it runs
	// (nil otherwise): status answers with it at once, health says
	// "importing".
	Importing func() *api.ImportProgress
	// Start, if set, starts watching the workspace (and so its first
	// import). The server calls it once the workspace's events reach the
	// server: attaching waits for the workspace's lock, which an import
	// holds until it ends, so an import started before would hold the
	// workspace unserved, status included, for all its length.
	Start func()
	// Checkpointed, if set, is told of every checkpoint cut, with the
	// workspace's lock held: it must not block.
	Checkpointed func()
}

// OpenFunc opens the workspace at root (absolute and clean) for the server:
// Server.Open and POST /v1/workspaces call it.
type OpenFunc func(ctx context.Context, root string) (Served, error)

// ServerOptions configure a Server.
type ServerOptions struct {
	// Open opens workspaces; nil refuses to add any.
	Open OpenFunc
	// Forget stops watching a workspace; nil refuses to forget any.
	Forget ForgetFunc
	// Logger, if set, is told about failed requests (warn) and, at debug
	// level, about every request: method, path, status and duration.
	Logger *slog.Logger
}

// Server answers the socket API for the workspaces it serves.
type Server struct {
	opts    ServerOptions
	pid     int
	started time.Time
	http    *http.Server
	closing chan struct{} // closed when Shutdown begins: event streams end
	closed  sync.Once

	mu     sync.Mutex
	spaces map[string]*space
}

// space is one workspace: being opened until ready is closed, then served
// (or, if the open failed, err is set and it is gone from the map).
type space struct {
	root   string
	ready  chan struct{}
	served Served // set before ready is closed
	err    error  // set before ready is closed
	hub    *hub
	// users counts the requests using the engine: Forget waits for them.
	users sync.WaitGroup
	// lastChange is the capture time (unix ns) of the newest change.
	lastChange atomic.Int64
	// reserved: registered by Reserve, its opening not begun (s.mu).
	reserved bool
}

// wait waits for the workspace to be open.
func (sp *space) wait(ctx context.Context) (Served, error) {
	select {
	case <-sp.ready:
		return sp.served, sp.err
	case <-ctx.Done():
		return Served{}, fmt.Errorf("waiting for workspace %s to open: %w", sp.root, ctx.Err())
	}
}

func (sp *space) isReady() bool {
	select {
	case <-sp.ready:
		return true
	default:
		return false
	}
}

// NewServer returns a Server serving no workspace yet.
func NewServer(opts ServerOptions) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:    opts,
		pid:     os.Getpid(),
		started: time.Now().UTC(),
		closing: make(chan struct{}),
		spaces:  make(map[string]*space),
	}
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	s.http.RegisterOnShutdown(func() { s.closed.Do(func() { close(s.closing) }) })
	return s
}

// Serve answers connections from ln until Shutdown; then it returns
// http.ErrServerClosed.
func (s *Server) Serve(ln net.Listener) error { return s.http.Serve(ln) }

// Shutdown stops accepting connections (the listener's socket file is
// removed), ends event streams and waits for the requests in flight to
// finish, or for ctx to end.
func (s *Server) Shutdown(ctx context.Context) error { return s.http.Shutdown(ctx) }

// Open opens the workspaces at roots (absolute paths) with the OpenFunc
// and serves them; roots served already are left as they are.
func (s *Server) Open(ctx context.Context, roots []string) (api.AddWorkspacesResult, error) {
	res := api.AddWorkspacesResult{Workspaces: []api.AddedWorkspace{}}
	if err := s.Reserve(roots); err != nil {
		return res, err
	}
	for _, root := range roots {
		root = filepath.Clean(root)
		added, err := s.open(ctx, root)
		if err != nil {
			return res, fmt.Errorf("open workspace %s: %w", root, err)
		}
		res.Workspaces = append(res.Workspaces, api.AddedWorkspace{Root: root, Added: added})
	}
	return res, nil
}

// Reserve registers roots as being opened: from now on a request for one
// of them waits for Open to open it, rather than being told that the
// workspace is not served (a command that asks a daemon just started
// would go on without it).
func (s *Server) Reserve(roots []string) error {
	for _, root := range roots {
		if err := checkRoot(root); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, root := range roots {
		root = filepath.Clean(root)
		if _, ok := s.spaces[root]; !ok {
			s.spaces[root] = &space{root: root, ready: make(chan struct{}), hub: newHub(), reserved: true}
		}
	}
	return nil
}

func checkRoot(root string) error {
	if root == "" {
		return drift.Invalid(errors.New("the workspace is required"))
	}
	if !filepath.IsAbs(root) {
		return drift.Invalid(fmt.Errorf("workspace %q is not an absolute path", root))
	}
	return nil
}

func (s *Server) open(ctx context.Context, root string) (bool, error) {
	s.mu.Lock()
	sp, ok := s.spaces[root]
	if ok && !sp.reserved {
		s.mu.Unlock()
		_, err := sp.wait(ctx)
		return false, err
	}
	if s.opts.Open == nil {
		s.mu.Unlock()
		return false, errors.New("this server cannot add workspaces")
	}
	if !ok {
		sp = &space{root: root, ready: make(chan struct{}), hub: newHub()}
		s.spaces[root] = sp
	}
	sp.reserved = false
	s.mu.Unlock()

	served, err := s.opts.Open(ctx, root)
	if err == nil && served.Engine == nil {
		err = errors.New("opened without an engine")
	}
	if err == nil {
		s.attach(sp, served)
		if served.Start != nil {
			served.Start()
		}
	}
	sp.served, sp.err = served, err
	if err != nil {
		s.mu.Lock()
		delete(s.spaces, root)
		s.mu.Unlock()
	}
	close(sp.ready)
	return err == nil, err
}

// Add serves a workspace opened by the caller.
func (s *Server) Add(root string, served Served) error {
	if err := checkRoot(root); err != nil {
		return err
	}
	root = filepath.Clean(root)
	sp := &space{root: root, ready: make(chan struct{}), hub: newHub(), served: served}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.spaces[root]; ok {
		return fmt.Errorf("workspace %s is served already", root)
	}
	s.attach(sp, served)
	if served.Start != nil {
		served.Start()
	}
	close(sp.ready)
	s.spaces[root] = sp
	return nil
}

// attach subscribes the space's event streams to the workspace's events.
func (s *Server) attach(sp *space, served Served) {
	sp.lastChange.Store(lastChangeOf(served.Engine.Workspace().Store()))
	served.Engine.Workspace().Notify(func(ev snapshot.Event) {
		if ev.Change != nil {
			sp.lastChange.Store(ev.Change.Time)
		}
		if ev.Checkpoint != nil && served.Checkpointed != nil {
			served.Checkpointed()
		}
		if sp.hub.active() {
			sp.hub.publish(eventOf(sp.root, ev))
		}
	})
}

// Remove stops serving root: its event streams end. The caller closes it.
func (s *Server) Remove(root string) {
	s.mu.Lock()
	sp := s.spaces[root]
	delete(s.spaces, root)
	s.mu.Unlock()
	if sp == nil {
		return
	}
	sp.hub.close()
	if sp.isReady() && sp.err == nil {
		sp.served.Engine.Workspace().Notify(nil)
	}
}

// Roots lists the served workspaces (also those being opened), sorted.
func (s *Server) Roots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	roots := make([]string, 0, len(s.spaces))
	for root := range s.spaces {
		roots = append(roots, root)
	}
	slices.Sort(roots)
	return roots
}

// lookup finds the served workspace a request names, waiting while it is
// being opened.
func (s *Server) lookup(r *http.Request) (*space, error) {
	root := r.URL.Query().Get("workspace")
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	root = filepath.Clean(root)
	s.mu.Lock()
	sp := s.spaces[root]
	s.mu.Unlock()
	if sp == nil {
		return nil, fault.Mark(fmt.Errorf("ckptd does not serve the workspace %s (add it with: ckptd watch %s)", root, root), fault.NotFound)
	}
	if _, err := sp.wait(r.Context()); err != nil {
		return nil, err
	}
	return sp, nil
}
