package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/integration/local"
	"github.com/ckptdev/ckpt/integration/replica"
	"github.com/ckptdev/ckpt/internal/plural"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// WatchOptions tune OpenWatched.
type WatchOptions struct {
	// Progress, if set, is told how far the first import has come.
	Progress func(done, total int)
	// Logger, if set, receives the watched workspace's log lines (the
	// watcher's, retention's, reloads'), each at the level its event has.
	Logger *slog.Logger
	// Reload, if set, reads the workspace's configuration again: the
	// watched workspace calls it when its ckpt.yaml changed, and puts the
	// result into force (an error keeps the settings it had).
	Reload func() (*config.Config, error)
	// Daemon, if set, describes the daemon serving the workspace, for its
	// status.
	Daemon func() api.Daemon
}

// Watched is a workspace as the daemon holds it: its store, its watcher,
// and the engine whose Sync is the watcher's cookie barrier.
type Watched struct {
	Workspace *snapshot.Workspace
	Watcher   *watcher.Watcher
	Engine    *drift.Engine
	live      *liveConfig
	logger    *slog.Logger
	stopped   chan struct{} // closed when Run returns
	runErr    error         // Run's error, set before stopped is closed
	imp       *importState  // the first import, while it runs
	// replicator is the running replicator, if any: a checkpoint kicks it
	// (Checkpointed), so replication does not wait for its next poll.
	replicator atomic.Pointer[replica.Replicator]
}

// Checkpointed is told of every checkpoint cut: the replicator pushes it
// at once. It must not block (the workspace's lock is held).
func (wd *Watched) Checkpointed() {
	if rp := wd.replicator.Load(); rp != nil {
		rp.Kick()
	}
}

// OpenWatched opens the workspace at root and makes its watcher and
// engine. Nothing is watched until Run. A workspace never imported is
// imported by the watcher's first walk, while the daemon serves it
// (importing.go); the store of one imported before has its retention
// applied now when it is due.
func OpenWatched(ctx context.Context, cfg *config.Config, root string, o WatchOptions) (*Watched, error) {
	ig := local.Ignorer(cfg, root)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	imp := &importState{}
	progress := func(done, total int) {
		imp.stored(done, total)
		if o.Progress != nil {
			o.Progress(done, total)
		}
	}
	ws, err := local.OpenStore(ctx, cfg, root, progress, false)
	if err != nil {
		return nil, err
	}
	imported, err := ws.Imported()
	if err == nil && imported {
		err = local.FirstImport(ctx, cfg, ws, nil, nil) // imports nothing: applies the retention
	}
	if err != nil {
		ws.Close()
		return nil, err
	}
	if !imported {
		imp.begin()
	}
	wd := &Watched{Workspace: ws, live: newLiveConfig(cfg, o.Reload), logger: o.Logger, stopped: make(chan struct{}), imp: imp}
	w, err := watcher.New(root, ig, reloadingSink{wd}, watcher.Options{
		Debounce:       cfg.Debounce,
		MaxDelay:       cfg.MaxDelay,
		QueueSize:      cfg.QueueSize,
		RescanInterval: cfg.RescanInterval,
		Logger:         o.Logger,
	})
	if err != nil {
		ws.Close()
		return nil, err
	}
	wd.Watcher = w
	wd.Engine = drift.New(ws, drift.Options{Sync: wd.barrier(w.Sync), Rescan: wd.barrier(w.Rescan), Daemon: o.Daemon})
	return wd, nil
}

// Importing is the first import's progress while it runs, else nil.
func (wd *Watched) Importing() *api.ImportProgress { return wd.imp.progress() }

// Dirs is how many directories the watcher found in its last full walk,
// watched or not: the inotify watches the workspace needs.
func (wd *Watched) Dirs() int {
	st := wd.Watcher.Stats()
	n := st.WatchedDirs
	if st.Degraded != nil {
		n += st.Degraded.Count
	}
	return n
}

// Run watches the workspace until ctx ends; on return every event the
// watcher received has been captured. It fails when the watcher cannot
// start (inotify unavailable, initial reconcile failed).
func (wd *Watched) Run(ctx context.Context) error {
	pctx, stopPruning := context.WithCancel(ctx)
	go func() {
		select {
		case <-wd.Watcher.Ready():
			// Opening, the first scan (or import) and adding the watches
			// leave garbage in proportion to the tree; an idle daemon
			// should not hold it until the GC's next cycle, nor the heap
			// it grew to: collect it and give the memory back now.
			debug.FreeOSMemory()
		case <-pctx.Done():
		}
	}()
	pruned := make(chan struct{})
	go func() {
		defer close(pruned)
		select {
		case <-wd.Watcher.Ready(): // after the first import, if one runs
		case <-pctx.Done():
			return
		}
		wd.recompress(pctx) // before pruning: both rewrite the store
		wd.pruneDaily(pctx)
	}()
	replicated := wd.replicate(pctx)
	polled := make(chan struct{})
	go func() { defer close(polled); wd.watchUserConfig(pctx) }()
	flushed := make(chan struct{})
	go func() { defer close(flushed); wd.flushIdle(pctx) }()
	maintained := make(chan struct{})
	go func() { defer close(maintained); wd.maintainIdle(pctx) }()
	err := wd.Watcher.Run(ctx)
	stopPruning()
	<-pruned // the store must not close under a prune
	<-replicated
	<-polled
	<-flushed
	<-maintained // nor under a maintenance
	wd.runErr = err
	close(wd.stopped)
	return err
}

// Close makes the store durable and closes it. Call it after Run returned
// (or if Run was never called).
func (wd *Watched) Close() error {
	return errors.Join(wd.Workspace.Store().Sync(), wd.Workspace.Close())
}

// barrier is the engine's Sync (with the watcher's Sync) or its Rescanner
// (with the watcher's Rescan): wait for the initial reconcile, then pass
// the cookie barrier within sync_timeout.
func (wd *Watched) barrier(pass func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		timeout := durationOf(&wd.live.syncTimeout)
		select {
		case <-wd.Watcher.Ready():
		case <-wd.stopped:
			return wd.stoppedError()
		case <-ctx.Done():
			return fmt.Errorf("waiting for the first scan of %s: %w", wd.Workspace.Root(), ctx.Err())
		}
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			sctx, cancel = context.WithTimeout(ctx, timeout)
		}
		defer cancel()
		err := pass(sctx)
		if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
			return wd.timeoutError(timeout)
		}
		select {
		case <-wd.stopped:
			if err != nil {
				return wd.stoppedError()
			}
		default:
		}
		return err
	}
}

// timeoutError says why the sync barrier was not passed in time.
func (wd *Watched) timeoutError(timeout time.Duration) error {
	root := wd.Workspace.Root()
	why := fmt.Sprintf("%d events are still queued: the workspace may be changing faster than it can be captured", wd.Watcher.Stats().QueueDepth)
	if _, err := os.Stat(filepath.Join(root, ".git", "index.lock")); err == nil {
		why = ".git/index.lock exists: checkpoints wait for the git command holding it (remove the file if no git command runs)"
	}
	return fmt.Errorf("the daemon did not catch up with the disk in %s within sync_timeout (%s): %s; try again, or raise sync_timeout", root, timeout, why)
}

func (wd *Watched) stoppedError() error {
	if wd.runErr != nil {
		return fmt.Errorf("the watcher of %s stopped: %w", wd.Workspace.Root(), wd.runErr)
	}
	return fmt.Errorf("the watcher of %s stopped (the daemon is shutting down)", wd.Workspace.Root())
}

// Stats is the watcher's health as the socket API shows it.
func (wd *Watched) Stats() api.WatcherStats {
	st := wd.Watcher.Stats()
	ready := false
	select {
	case <-wd.Watcher.Ready():
		ready = true
	default:
	}
	return api.WatcherStats{
		Ready: ready, WatchedDirs: st.WatchedDirs, QueueDepth: st.QueueDepth,
		Overflows: st.Overflows, Rewalks: st.Rewalks, Events: st.Events,
		LastError: st.LastError, LastErrorAt: st.LastErrorAt,
		ConfigError: wd.ConfigError(), Degraded: degradedOf(st.Degraded),
	}
}

// pruneDaily applies the retention policy while the daemon runs: checked
// hourly, done when a day has passed since the last prune, or an hour when
// the store is over retention_size (PruneDue); a zero policy keeps
// everything.
func (wd *Watched) pruneDaily(ctx context.Context) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		p := snapshot.Policy{MaxAge: durationOf(&wd.live.retention), MaxSize: wd.live.retainSize.Load()}
		stats, did, err := wd.Workspace.PruneDue(ctx, p)
		switch {
		case err != nil:
			wd.logger.Warn(fmt.Sprintf("retention: %s: %v", wd.Workspace.Root(), err))
		case did:
			wd.logger.Info(fmt.Sprintf("retention: %s: pruned %s, %s; %d -> %d bytes",
				wd.Workspace.Root(), plural.Count(stats.Checkpoints, "checkpoint"), plural.Count(stats.Blobs, "stored content"), stats.BytesBefore, stats.BytesAfter))
			if stats.OverBudget {
				wd.logger.Warn(fmt.Sprintf("retention: %s: the store (%d bytes) is still over retention_size %d: what is left is pinned or younger than %s (ckpt gc --dry-run lists the pins)",
					wd.Workspace.Root(), stats.BytesAfter, p.MaxSize, snapshot.KeepRecentOverBudget))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
