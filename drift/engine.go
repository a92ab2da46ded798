package drift

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Engine answers every ckpt command for one workspace. The daemon and the
// embedded client use the same Engine; they differ only in how Sync
// catches the store up with the disk.
type Engine struct {
	mu     sync.Mutex // serializes run and tool bookkeeping
	ws     *snapshot.Workspace
	sync   func(ctx context.Context) error
	rescan func(ctx context.Context) error
	daemon func() api.Daemon

	// restoring: a restore, undo or revert is in flight (inflight.go).
	restoring atomic.Bool
	// status: the drift the last status read (status_kept.go).
	status statusDrift
}

// Options are what an Engine is built with besides its workspace.
type Options struct {
	// Sync must return only once every change made on disk before it was
	// called is captured.
	Sync func(ctx context.Context) error
	// Rescan, if set, is what Rescan runs: a full reconcile scan (the
	// daemon's watcher re-walking the workspace), which also reads the
	// files that a process has mapped for writing.
	Rescan func(ctx context.Context) error
	// Daemon, if set, describes the daemon serving the workspace, for
	// status.
	Daemon func() api.Daemon
}

// New returns an Engine over ws.
func New(ws *snapshot.Workspace, o Options) *Engine {
	return &Engine{ws: ws, sync: o.Sync, rescan: o.Rescan, daemon: o.Daemon}
}

// Workspace is the engine's workspace.
func (e *Engine) Workspace() *snapshot.Workspace { return e.ws }

// Sync catches the store up with the disk.
func (e *Engine) Sync(ctx context.Context) error {
	if err := e.sync(ctx); err != nil {
		return fmt.Errorf("sync with the disk: %w", err)
	}
	return nil
}

// Rescan makes the store match a full scan of the workspace: every file
// stat'ed, those that differ from their entries read. It finds what no
// file-system event reports (a write through a shared memory mapping).
// Without Options.Rescan it does nothing.
func (e *Engine) Rescan(ctx context.Context) error {
	if e.rescan == nil {
		return nil
	}
	if err := e.rescan(ctx); err != nil {
		return fmt.Errorf("rescan the workspace: %w", err)
	}
	return nil
}

// resolve looks up a checkpoint id given by the caller.
func (e *Engine) resolve(id string) (store.Checkpoint, error) {
	cp, err := e.ws.Checkpoint(id)
	return cp, asInvalid(err)
}

// CleanPaths checks that every path is a workspace-relative path (as the
// CLI makes them, quoted as QuotePath quotes it), unquotes it and cleans it.
func CleanPaths(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, q := range paths {
		p, err := api.UnquotePath(q)
		if err != nil {
			return nil, invalid("path %s: %v", q, err)
		}
		c := path.Clean(strings.TrimSuffix(p, "/"))
		if p == "" || strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsRune(c, 0) {
			return nil, invalid("path %q is outside the workspace", p)
		}
		if c == "." {
			c = ""
		}
		out = append(out, c)
	}
	return out, nil
}

func changesOf(fcs []snapshot.FileChange) []api.Change {
	out := make([]api.Change, 0, len(fcs))
	for _, fc := range fcs {
		out = append(out, api.Change{Path: api.QuotePath(fc.Path), Kind: fc.Kind.String()})
	}
	return out
}
