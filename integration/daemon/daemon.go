package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/watcher"
)

// shutdownTimeout bounds the wait for in-flight requests at shutdown.
var shutdownTimeout = time.Minute

// Options configure a Daemon. The command that runs it owns the flags,
// the signals and the output; the daemon logs through these.
type Options struct {
	// Base holds the state directory and the socket the daemon serves.
	Base *config.Config
	// Load reads a workspace's configuration (its ckpt.yaml and the
	// command line); the daemon calls it when it opens the workspace and
	// whenever the file changes. Its state directory and socket are
	// replaced by Base's.
	Load func(root string) (*config.Config, error)
	// Log receives every line of the daemon, its server and its watchers,
	// each at the level chosen where it is logged: started, opening,
	// serving, routine re-walks and reloads are info; lost events,
	// refused connections and failed requests warn; every request is
	// debug. nil discards them.
	Log *slog.Logger
	// Progress, if set, gives the progress display of the first import of
	// each workspace Run opens (not of those added later: their imports
	// would draw over each other).
	Progress func(root string) func(done, total int)
}

// Daemon is one running ckptd: the server and the watched workspaces.
type Daemon struct {
	ctx  context.Context // ends at shutdown (SIGINT/SIGTERM)
	opts Options
	log  *slog.Logger
	srv  *Server

	// Watchers run until stopWatching, after the server drained its
	// requests (which sync through the watchers).
	watchCtx     context.Context
	stopWatching context.CancelFunc
	wg           sync.WaitGroup // one per watcher goroutine

	mu      sync.Mutex
	dirs    map[string]int      // directories per workspace, for the watch limit
	watches map[string]stopFunc // per workspace: stop its watcher, wait for its store to close
}

// stopFunc stops one workspace's watcher and returns once its store is
// closed.
type stopFunc func()

// New returns a daemon that runs until ctx ends.
func New(ctx context.Context, o Options) *Daemon {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{ctx: ctx, opts: o, log: o.Log, dirs: map[string]int{}, watches: map[string]stopFunc{}}
	d.watchCtx, d.stopWatching = context.WithCancel(context.WithoutCancel(ctx))
	d.srv = NewServer(ServerOptions{Open: d.open, Forget: d.forget, Logger: o.Log})
	return d
}

// Run serves the socket, opens the workspaces at roots and serves until
// the daemon's context ends; then it shuts down: in-flight requests
// finish, each watcher captures what it has queued, the stores close.
func (d *Daemon) Run(roots []string) error {
	ln, err := Listen(d.opts.Base.Socket, d.log)
	if err != nil {
		return err
	}
	// Requests for the workspaces named on the command line wait for them
	// to open, from the first one the socket answers.
	if err := d.srv.Reserve(roots); err != nil {
		ln.Close()
		return err
	}
	served := make(chan error, 1)
	go func() { served <- d.srv.Serve(ln) }()
	stopPanel := d.startPanel()
	defer stopPanel() // also before shutdown, below: the stores close after the panel
	d.log.Info("ckptd started", "version", api.Version, "pid", os.Getpid(), "socket", d.opts.Base.Socket, "state_dir", d.opts.Base.StateDir)

	_, err = d.srv.Open(withProgress(d.ctx), roots)
	if err != nil && d.ctx.Err() == nil {
		d.shutdown()
		return err
	}
	if d.ctx.Err() == nil {
		d.log.Info("serving", "workspaces", len(d.srv.Roots()))
		// Hold the heap close to what is live (a first import, which
		// runs in its workspace's watcher, holds its own limit meanwhile).
		go limitMemory(d.watchCtx)
	}
	select {
	case <-d.ctx.Done():
	case err = <-served:
		stopPanel()
		d.shutdown()
		return fmt.Errorf("serve %s: %w", d.opts.Base.Socket, err)
	}
	stopPanel()
	return d.shutdown()
}

// shutdown stops accepting, lets in-flight requests finish, then stops the
// watchers (each captures what it has queued) and closes the stores.
func (d *Daemon) shutdown() error {
	d.log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := d.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		d.log.Warn("requests still in flight at shutdown", "err", err)
	}
	d.stopWatching()
	d.wg.Wait()
	d.log.Info("stopped")
	return nil
}

// open is the server's OpenFunc: the workspace's store (imported the first
// time), its watcher started, its engine.
func (d *Daemon) open(ctx context.Context, root string) (Served, error) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return Served{}, drift.Invalid(fmt.Errorf("%s is not a directory", root))
	}
	// An import in progress ends at shutdown, whoever asked for it.
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(d.ctx, cancel)()
	defer cancel()

	load := func() (*config.Config, error) {
		cfg, err := d.opts.Load(root)
		if err != nil {
			return nil, err
		}
		// A workspace's ckpt.yaml cannot set them (config refuses it);
		// the daemon's own are the ones it serves and stores with.
		cfg.StateDir, cfg.Socket = d.opts.Base.StateDir, d.opts.Base.Socket
		return cfg, nil
	}
	cfg, err := load()
	if err != nil {
		return Served{}, drift.Invalid(err)
	}
	start := time.Now()
	d.log.Info("opening", "workspace", root)
	wd, err := OpenWatched(ctx, cfg, root, WatchOptions{
		Progress: d.progressFrom(ctx, root),
		Logger:   d.log,
		Reload:   load,
		Daemon:   func() api.Daemon { return d.srv.DaemonInfo(root) },
	})
	if err != nil {
		return Served{}, err
	}
	if err := watcher.CheckInstanceLimit(1); err != nil {
		d.log.Warn(err.Error())
	}
	return Served{Engine: wd.Engine, Stats: wd.Stats, Importing: wd.Importing, Start: func() { d.startWatching(root, wd, start) }, Checkpointed: wd.Checkpointed}, nil
}

// startWatching runs the workspace's watcher (its first walk imports a
// new workspace) until shutdown or forget, and logs when it watches.
func (d *Daemon) startWatching(root string, wd *Watched, start time.Time) {
	wctx, stop := context.WithCancel(d.watchCtx)
	closed := make(chan struct{})
	d.mu.Lock()
	d.watches[root] = func() { stop(); <-closed }
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer close(closed)
		d.watch(wctx, root, wd)
	}()
	go func() {
		// The directory count is the first walk's (the import's, for a
		// new workspace): the watches were added as it went.
		select {
		case <-wd.Watcher.Ready():
			d.checkWatchLimit(root, wd.Dirs())
			d.log.Info("watching", "workspace", root, "dirs", wd.Dirs(), "took", time.Since(start).Round(time.Millisecond))
		case <-wd.stopped:
		}
	}()
}

// checkWatchLimit compares every watched directory with the inotify limit,
// and logs what to do when it is too low.
func (d *Daemon) checkWatchLimit(root string, dirs int) {
	d.mu.Lock()
	d.dirs[root] = dirs
	total := 0
	for _, n := range d.dirs {
		total += n
	}
	d.mu.Unlock()
	if err := watcher.CheckWatchLimit(total); err != nil {
		d.log.Warn(err.Error())
	}
}

// watch runs a workspace's watcher until shutdown, then closes its store.
// A watcher that fails takes its workspace out of service.
func (d *Daemon) watch(ctx context.Context, root string, wd *Watched) {
	defer d.wg.Done()
	if err := wd.Run(ctx); err != nil {
		d.log.Error("the watcher failed; the workspace is no longer served", "workspace", root, "err", err)
		d.srv.Remove(root)
	}
	if err := wd.Close(); err != nil {
		d.log.Error("closing the store", "workspace", root, "err", err)
	}
	d.mu.Lock()
	delete(d.dirs, root)
	d.mu.Unlock()
}

// forget is the server's ForgetFunc: the workspace's watcher stops (what
// it has queued is captured) and its store closes; the history stays.
func (d *Daemon) forget(root string) error {
	d.mu.Lock()
	stop := d.watches[root]
	delete(d.watches, root)
	d.mu.Unlock()
	if stop == nil {
		return fmt.Errorf("no watcher for %s", root)
	}
	stop()
	d.log.Info("forgot the workspace: no longer watched, its history stays in the state directory", "workspace", root)
	return nil
}

type progressKey struct{}

// withProgress marks the initial workspaces: their import shows progress
// on a terminal (those added later do not: they would draw over each other).
func withProgress(ctx context.Context) context.Context {
	return context.WithValue(ctx, progressKey{}, true)
}

func (d *Daemon) progressFrom(ctx context.Context, root string) func(done, total int) {
	if on, _ := ctx.Value(progressKey{}).(bool); on && d.opts.Progress != nil {
		return d.opts.Progress(root)
	}
	return nil
}
