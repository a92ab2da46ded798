package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptdev/ckpt/config"
	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/store/remote"
)

// ParseTarget splits WORKSPACE[@CHECKPOINT].
func ParseTarget(s string) (name, id string, err error) {
	name, id, _ = strings.Cut(s, "@")
	if !remote.ValidName(name) || strings.Contains(s, "@") && !snapshot.ValidID(id) {
		return "", "", fault.Mark(fmt.Errorf("%q: want WORKSPACE or WORKSPACE@CHECKPOINT", s), fault.Invalid)
	}
	return name, id, nil
}

// Clone materialises checkpoint id (the newest if "") of workspace name in
// the remote at url into dir, a directory that is missing or empty, and
// gives dir that workspace's history up to it: a workspace like any
// other, whose diffs, history and restores reach back into what was
// replicated.
func Clone(ctx context.Context, cfg *config.Config, url, name, id, dir string) (api.CloneResult, error) {
	var out api.CloneResult
	r, err := Open(cfg, url)
	if err != nil {
		return out, err
	}
	root, err := freshDir(dir)
	if err != nil {
		return out, err
	}
	if snapshot.Known(cfg.StateDir, root) {
		return out, fault.Mark(fmt.Errorf("the state directory already has a store for %s (remove %s first)", root, snapshot.StoreDir(cfg.StateDir, root)), fault.Invalid)
	}
	ms, err := r.Manifests(ctx, name)
	if err != nil {
		return out, err
	}
	m, err := remote.Find(ms, name, id)
	if err != nil {
		return out, err
	}
	created, err := makeDir(dir, root)
	if err != nil {
		return out, err
	}
	out, err = clone(ctx, cfg, r, name, m, root)
	if err != nil {
		os.RemoveAll(snapshot.StoreDir(cfg.StateDir, root))
		if created {
			os.RemoveAll(root)
		}
	}
	return out, err
}

func clone(ctx context.Context, cfg *config.Config, r *remote.Remote, name string, m remote.Manifest, root string) (api.CloneResult, error) {
	out := api.CloneResult{Workspace: root, Remote: r.URL, Name: name, CheckpointID: m.Checkpoint.ID}
	st, err := store.Open(snapshot.StoreDir(cfg.StateDir, root), cfg.LockTimeout)
	if err != nil {
		return out, err
	}
	ws := store.WorkspaceState{WorkspaceKey: snapshot.Key(root), Root: root, UpdatedAt: time.Now().UTC()}
	err = r.Import(ctx, st, name, m, ws)
	if err == nil {
		err = st.Sync()
	}
	if err == nil {
		var cur remote.Cursor
		cur, err = remote.ReadCursor(st, r, name)
		out.Continues = cur.Seg > 0
	}
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return out, err
	}
	w, err := snapshot.OpenContext(ctx, cfg.StateDir, root, snapshot.Options{MaxFileSize: cfg.MaxFileSize, LockTimeout: cfg.LockTimeout})
	if err != nil {
		return out, err
	}
	defer w.Close()
	if out.Files, err = w.Materialise(ctx); err != nil {
		return out, err
	}
	if err := fsutil.WriteFile(urlFile(cfg.StateDir, root), []byte(r.URL+"\n"), 0o600); err != nil {
		return out, err
	}
	return out, fsutil.WriteFile(nameFile(cfg.StateDir, root), []byte(name+"\n"), 0o600)
}

// freshDir is dir's absolute path, refusing a directory that holds
// anything, or a path that is not a directory.
func freshDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	ents, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return abs, nil
	case err != nil:
		return "", fault.Mark(fmt.Errorf("clone into %s: %w", dir, err), fault.Invalid)
	case len(ents) > 0:
		return "", fault.Mark(fmt.Errorf("clone into %s: the directory is not empty", dir), fault.Invalid)
	}
	return abs, nil
}

func makeDir(dir, root string) (created bool, err error) {
	if _, err := os.Stat(root); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return false, fault.Mark(fmt.Errorf("clone into %s: %w", dir, err), fault.Invalid)
	}
	return true, nil
}

// List is the remote's workspaces and their replicated checkpoints.
func List(ctx context.Context, cfg *config.Config, url string) (api.RemoteList, error) {
	r, err := Open(cfg, url)
	if err != nil {
		return api.RemoteList{}, err
	}
	out := api.RemoteList{Remote: r.URL, Workspaces: []api.RemoteWorkspace{}}
	names, err := r.Workspaces(ctx)
	if err != nil {
		return out, err
	}
	for _, n := range names {
		ms, err := r.Manifests(ctx, n)
		if err != nil {
			return out, err
		}
		w := api.RemoteWorkspace{Name: n, Checkpoints: make([]api.Checkpoint, 0, len(ms))}
		for _, m := range ms {
			cp := m.Checkpoint
			w.Checkpoints = append(w.Checkpoints, api.Checkpoint{CheckpointID: cp.ID, Reason: cp.Reason, CreatedAt: cp.CreatedAt,
				SessionID: cp.Session, RunID: cp.Run, ToolCallID: cp.Call, Message: cp.Message,
				Fingerprint: snapshot.FormatFingerprint(cp.Fingerprint, cp.Files), Files: cp.Files})
		}
		out.Workspaces = append(out.Workspaces, w)
	}
	return out, nil
}
