package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/ckptdev/ckpt/cmd/internal/wiring"
	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration"
	"github.com/ckptdev/ckpt/watcher"
)

// shutdownTimeout bounds the wait for in-flight requests at shutdown.
var shutdownTimeout = time.Minute

// daemon is one running ckptd: the server and the watched workspaces.
type daemon struct {
	ctx   context.Context // ends at SIGINT/SIGTERM
	base  *config.Config  // the state directory and socket
	flags *pflag.FlagSet
	log   *slog.Logger
	srv   *integration.Server

	// Watchers run until stopWatching, after the server drained its
	// requests (which sync through the watchers).
	watchCtx     context.Context
	stopWatching context.CancelFunc
	wg           sync.WaitGroup // one per watcher goroutine

	mu   sync.Mutex
	dirs map[string]int // directories per workspace, for the watch limit
}

func newDaemon(ctx context.Context, base *config.Config, flags *pflag.FlagSet, log *slog.Logger) *daemon {
	d := &daemon{ctx: ctx, base: base, flags: flags, log: log, dirs: map[string]int{}}
	d.watchCtx, d.stopWatching = context.WithCancel(context.WithoutCancel(ctx))
	d.srv = integration.NewServer(integration.ServerOptions{
		Open:   d.open,
		Logf:   logfAt(log, slog.LevelWarn),
		Debugf: debugf(log),
	})
	return d
}

// run serves the socket, opens the workspaces and waits for a signal.
func (d *daemon) run(roots []string) error {
	ln, err := integration.Listen(d.base.Socket, logfAt(d.log, slog.LevelWarn))
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- d.srv.Serve(ln) }()
	stopPanel := d.startPanel()
	defer stopPanel() // also before shutdown, below: the stores close after the panel
	d.log.Info("ckptd started", "version", integration.Version, "pid", os.Getpid(), "socket", d.base.Socket, "state_dir", d.base.StateDir)

	_, err = d.srv.Open(withProgress(d.ctx), roots)
	if err != nil && d.ctx.Err() == nil {
		d.shutdown()
		return err
	}
	if d.ctx.Err() == nil {
		d.log.Info("serving", "workspaces", len(d.srv.Roots()))
		// The first imports are done: from here on, hold the heap close
		// to what is live (an import's garbage is collected at its pace).
		go limitMemory(d.watchCtx)
	}
	select {
	case <-d.ctx.Done():
	case err = <-served:
		stopPanel()
		d.shutdown()
		return fmt.Errorf("serve %s: %w", d.base.Socket, err)
	}
	stopPanel()
	return d.shutdown()
}

// shutdown stops accepting, lets in-flight requests finish, then stops the
// watchers (each captures what it has queued) and closes the stores.
func (d *daemon) shutdown() error {
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
func (d *daemon) open(ctx context.Context, root string) (integration.Served, error) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return integration.Served{}, drift.Invalid(fmt.Errorf("%s is not a directory", root))
	}
	// An import in progress ends at shutdown, whoever asked for it.
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(d.ctx, cancel)()
	defer cancel()

	cfg, err := config.Load(config.Options{Workspace: root, Flags: d.flags})
	if err != nil {
		return integration.Served{}, drift.Invalid(err)
	}
	if cfg.StateDir != d.base.StateDir || cfg.Socket != d.base.Socket {
		d.log.Warn("the workspace's ckpt.yaml sets state_dir or socket; the daemon keeps its own", "workspace", root)
		cfg.StateDir, cfg.Socket = d.base.StateDir, d.base.Socket
	}
	start := time.Now()
	d.log.Info("opening", "workspace", root)
	wd, err := wiring.OpenWatched(ctx, cfg, root, wiring.WatchOptions{
		Progress: progressFrom(ctx, root),
		Logf:     watcherLogf(d.log),
	})
	if err != nil {
		return integration.Served{}, err
	}
	d.checkWatchLimit(root, wd.Dirs)
	d.wg.Add(1)
	go d.watch(root, wd)
	d.log.Info("watching", "workspace", root, "dirs", wd.Dirs, "took", time.Since(start).Round(time.Millisecond))
	return integration.Served{Engine: wd.Engine, Stats: wd.Stats}, nil
}

// checkWatchLimit compares every watched directory with the inotify limit,
// and logs what to do when it is too low.
func (d *daemon) checkWatchLimit(root string, dirs int) {
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
func (d *daemon) watch(root string, wd *wiring.Watched) {
	defer d.wg.Done()
	if err := wd.Run(d.watchCtx); err != nil {
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

type progressKey struct{}

// withProgress marks the initial workspaces: their import shows progress
// on a terminal (those added later do not: they would draw over each other).
func withProgress(ctx context.Context) context.Context {
	return context.WithValue(ctx, progressKey{}, true)
}

func progressFrom(ctx context.Context, root string) func(done, total int) {
	if on, _ := ctx.Value(progressKey{}).(bool); on {
		return progressBar(root)
	}
	return nil
}
