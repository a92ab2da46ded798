package local

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/drift"
	"github.com/ckptdev/ckpt/integration/replica"
	"github.com/ckptdev/ckpt/internal/plural"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/watcher"
)

// Ignorer is the workspace's ignore rules: its .gitignore and .ckptignore
// files, config ignore, and the state directory if it lies inside the
// workspace (ckpt must never capture its own store).
func Ignorer(cfg *config.Config, root string) *watcher.Ignorer {
	extra := append([]string(nil), cfg.Ignore...)
	for _, dir := range []string{cfg.StateDir, filepath.Dir(cfg.Socket)} {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			extra = append(extra, "/"+filepath.ToSlash(rel)+"/")
		}
	}
	return watcher.NewIgnorer(root, extra)
}

// OpenWorkspace opens the workspace's store and imports it the first time.
// shortLived is for a process that opens it for one command (embedded
// mode): see snapshot.Options. warn, if set, is told when the first
// import could not read some paths (they are not captured).
func OpenWorkspace(ctx context.Context, cfg *config.Config, root string, walk snapshot.WalkFunc, progress func(done, total int), shortLived bool, warn func(string)) (*snapshot.Workspace, error) {
	ws, err := OpenStore(ctx, cfg, root, progress, shortLived)
	if err != nil {
		return nil, err
	}
	if err := FirstImport(ctx, cfg, ws, walk, warn); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

// OpenStore opens the workspace's store without importing it: the daemon
// imports through its watcher's first walk (FirstImport, from the sink).
func OpenStore(ctx context.Context, cfg *config.Config, root string, progress func(done, total int), shortLived bool) (*snapshot.Workspace, error) {
	ws, err := snapshot.OpenContext(ctx, cfg.StateDir, root, snapshot.Options{
		MaxFileSize: cfg.MaxFileSize,
		LockTimeout: cfg.LockTimeout,
		Progress:    progress,
		ShortLived:  shortLived,
		// The daemon's scans are rare (start, overflow, periodic, --rescan):
		// they can afford to read every process's memory map.
		CheckMappings: !shortLived,
	})
	if err != nil {
		return nil, err
	}
	// Retention keeps what the remote does not have yet.
	ws.SetReplicated(replica.RetentionHold(cfg, root))
	return ws, nil
}

// FirstImport imports the workspace if it was never imported (walk is
// then called once), and applies the retention when it is due.
func FirstImport(ctx context.Context, cfg *config.Config, ws *snapshot.Workspace, walk snapshot.WalkFunc, warn func(string)) error {
	restore := LimitImportMemory()
	_, imported, err := ws.Import(ctx, walk)
	restore()
	if err != nil {
		return err
	}
	if u := ws.Unreadable(); imported && len(u) > 0 && warn != nil {
		warn(ImportWarning(u))
	}
	if _, _, err := ws.PruneDue(ctx, Policy(cfg)); err != nil {
		return fmt.Errorf("apply retention %s, retention_size %d: %w", cfg.Retention, cfg.RetentionSize, err)
	}
	return nil
}

// Policy is the retention policy cfg sets (retention, retention_size).
func Policy(cfg *config.Config) snapshot.Policy {
	return snapshot.Policy{MaxAge: cfg.Retention, MaxSize: cfg.RetentionSize}
}

// Embedded is the engine without a daemon: every command first reconciles
// the store with a scan of the workspace.
func Embedded(ctx context.Context, cfg *config.Config, root string, progress func(done, total int), warn func(string)) (*drift.Engine, error) {
	w := &watcher.Walker{Root: root, Ignorer: Ignorer(cfg, root), VisitUnreadable: true}
	ws, err := OpenWorkspace(ctx, cfg, root, w.Walk, progress, true, warn)
	if err != nil {
		return nil, err
	}
	return drift.New(ws, drift.Options{
		Sync: func(ctx context.Context) error {
			if err := waitForGit(ctx, root, cfg.SyncTimeout); err != nil {
				return err
			}
			defer limitScanMemory()()
			return ws.Reconcile(ctx, w.Walk)
		},
		// Every command scans already; a rescan also reads the files that
		// a process has mapped for writing.
		Rescan: func(ctx context.Context) error {
			if err := waitForGit(ctx, root, cfg.SyncTimeout); err != nil {
				return err
			}
			defer limitScanMemory()()
			return ws.Rescan(ctx, w.Walk)
		},
	}), nil
}

// waitForGit holds a scan while .git/index.lock exists (the watcher's
// wait), for at most timeout.
func waitForGit(ctx context.Context, root string, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := watcher.WaitIndexLock(wctx, root)
	if err != nil && ctx.Err() == nil {
		lock := filepath.Join(root, ".git", "index.lock")
		return fmt.Errorf("a git operation has held %s for %s; try again when it is done (or remove a stale lock)", lock, timeout)
	}
	return err
}

// WorkspaceConfigFile is the workspace's own configuration file, at its
// root.
const WorkspaceConfigFile = "ckpt.yaml"

// The workspace is what the watcher delivers to.
var _ watcher.Sink = (*snapshot.Workspace)(nil)

// ImportWarning says which paths the first import could not read.
func ImportWarning(u []snapshot.Unreadable) string {
	const shown = 10
	var b strings.Builder
	fmt.Fprintf(&b, "warning: the first import could not read %s; what they hold is not captured until they can be read:", plural.Count(len(u), "path"))
	for i, p := range u {
		if i == shown {
			fmt.Fprintf(&b, "\n  … and %d more (see ckpt status)", len(u)-shown)
			break
		}
		fmt.Fprintf(&b, "\n  %s  (%s)", p.Path, p.Err)
	}
	return b.String()
}
