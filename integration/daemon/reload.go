package daemon

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/integration/local"
	"github.com/ckptdev/ckpt/integration/replica"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// liveConfig is the configuration a watched workspace runs with, as the
// daemon reloads it while it runs.
type liveConfig struct {
	reload func() (*config.Config, error) // nil: never reloaded

	mu  sync.Mutex
	cfg *config.Config // the settings in force
	err string         // why the file on disk is not in force; "" = it is

	retention   atomic.Int64 // time.Duration
	retainSize  atomic.Int64 // retention_size, bytes
	syncTimeout atomic.Int64 // time.Duration

	// remoteChanged is signalled when a reload changes the remote
	// settings: the replicator restarts (replicate.go).
	remoteChanged chan struct{}
}

func newLiveConfig(cfg *config.Config, reload func() (*config.Config, error)) *liveConfig {
	lc := &liveConfig{cfg: cfg, reload: reload, remoteChanged: make(chan struct{}, 1)}
	lc.retention.Store(int64(cfg.Retention))
	lc.retainSize.Store(cfg.RetentionSize)
	lc.syncTimeout.Store(int64(cfg.SyncTimeout))
	return lc
}

// ConfigError is why the workspace's configuration on disk is not in
// force (the daemon keeps the settings it had); "" when it is.
func (wd *Watched) ConfigError() string {
	wd.live.mu.Lock()
	defer wd.live.mu.Unlock()
	return wd.live.err
}

// reloadConfig reads the workspace's configuration again and puts what
// changed into force: ignore rules (the workspace is re-walked),
// max_file_size, the watcher's timings, retention, sync_timeout and the
// remote settings (the replicator restarts with them). An
// invalid file changes nothing: the error is kept for status and logged
// once. queue_size and lock_timeout take effect at the next start.
func (wd *Watched) reloadConfig() {
	lc := wd.live
	if lc.reload == nil {
		return
	}
	cfg, err := lc.reload()
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if err != nil {
		if lc.err != err.Error() {
			wd.log(slog.LevelWarn, "the workspace's configuration is invalid; keeping the previous settings: %v", err)
		}
		lc.err = err.Error()
		return
	}
	if lc.err != "" {
		wd.log(slog.LevelInfo, "the workspace's configuration is valid again")
		lc.err = ""
	}
	old := lc.cfg
	if sameSettings(old, cfg) {
		return
	}
	lc.cfg = cfg
	s := watcher.Settings{Debounce: cfg.Debounce, MaxDelay: cfg.MaxDelay, RescanInterval: cfg.RescanInterval}
	if !slices.Equal(old.Ignore, cfg.Ignore) || old.StateDir != cfg.StateDir || old.Socket != cfg.Socket {
		s.Ignorer = local.Ignorer(cfg, wd.Workspace.Root())
	}
	wd.Watcher.Reconfigure(s)
	if old.MaxFileSize != cfg.MaxFileSize {
		wd.Workspace.SetMaxFileSize(cfg.MaxFileSize)
	}
	lc.retention.Store(int64(cfg.Retention))
	lc.retainSize.Store(cfg.RetentionSize)
	lc.syncTimeout.Store(int64(cfg.SyncTimeout))
	if !config.SameRemote(old, cfg) {
		// Retention's hold follows the remote at once; the replicator
		// restarts with it.
		wd.Workspace.SetReplicated(replica.RetentionHold(cfg, wd.Workspace.Root()))
		select {
		case lc.remoteChanged <- struct{}{}:
		default:
		}
	}
	wd.log(slog.LevelInfo, "reloaded the workspace's configuration: ignore %q, max_file_size %d, debounce %s, max_delay %s, rescan_interval %s, sync_timeout %s, retention %s, retention_size %d",
		cfg.Ignore, cfg.MaxFileSize, cfg.Debounce, cfg.MaxDelay, cfg.RescanInterval, cfg.SyncTimeout, cfg.Retention, cfg.RetentionSize)
	if old.QueueSize != cfg.QueueSize {
		wd.log(slog.LevelWarn, "queue_size %d takes effect when the daemon restarts", cfg.QueueSize)
	}
}

// sameSettings reports whether two configurations run a watched workspace
// alike (Files aside: which files were read does not matter).
func sameSettings(a, b *config.Config) bool {
	return slices.Equal(a.Ignore, b.Ignore) && a.StateDir == b.StateDir && a.Socket == b.Socket &&
		a.MaxFileSize == b.MaxFileSize && a.Debounce == b.Debounce && a.MaxDelay == b.MaxDelay &&
		a.RescanInterval == b.RescanInterval && a.SyncTimeout == b.SyncTimeout &&
		a.LockTimeout == b.LockTimeout && a.QueueSize == b.QueueSize && a.LogLevel == b.LogLevel &&
		a.Retention == b.Retention && a.RetentionSize == b.RetentionSize && config.SameRemote(a, b)
}

// log logs one line about the workspace at level.
func (wd *Watched) log(level slog.Level, format string, args ...any) {
	wd.logger.Log(context.Background(), level, wd.Workspace.Root()+": "+fmt.Sprintf(format, args...))
}

// reloadingSink is the workspace as the watcher's sink: it reloads the
// workspace's configuration when the watcher captures its file (after the
// file settled, so a half-written file is not read), and at every full
// re-walk (which covers a file the ignore rules hide).
type reloadingSink struct{ wd *Watched }

func (s reloadingSink) Capture(ctx context.Context, paths []string) error {
	if _, found := slices.BinarySearch(paths, local.WorkspaceConfigFile); found {
		s.wd.reloadConfig()
	}
	return s.wd.Workspace.Capture(ctx, paths)
}

func (s reloadingSink) Reconcile(ctx context.Context, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error {
	s.wd.reloadConfig()
	if s.wd.imp.pending() {
		return s.wd.firstImport(ctx, walk)
	}
	return s.wd.Workspace.Reconcile(ctx, walk)
}

// firstImport imports the workspace through the watcher's walk and cuts
// its initial checkpoint; a failed one is retried by the next re-walk.
func (wd *Watched) firstImport(ctx context.Context, walk snapshot.WalkFunc) error {
	start := time.Now()
	restore := local.LimitImportMemory()
	_, imported, err := wd.Workspace.Import(ctx, wd.imp.counting(walk))
	restore()
	if err != nil {
		return err
	}
	wd.imp.finish()
	if !imported { // imported already, the walk not taken: take it
		return wd.Workspace.Reconcile(ctx, walk)
	}
	{
		if u := wd.Workspace.Unreadable(); len(u) > 0 {
			wd.log(slog.LevelWarn, "%s", local.ImportWarning(u))
		}
		wd.log(slog.LevelInfo, "imported %d files in %s", wd.Workspace.Fingerprint().Count, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// ReconcileUnder re-walks one directory whose ignore rules changed; it
// never covers the workspace's configuration file, which is in the root.
func (s reloadingSink) ReconcileUnder(ctx context.Context, dir string, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error {
	return s.wd.Workspace.ReconcileUnder(ctx, dir, walk)
}

// durationOf reads an atomic duration.
func durationOf(v *atomic.Int64) time.Duration { return time.Duration(v.Load()) }
