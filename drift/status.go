package drift

import (
	"context"
	"errors"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Status is the drift since the workspace's current checkpoint, and what
// a person wants to know next to it.
func (e *Engine) Status(ctx context.Context) (api.Status, error) {
	// A full state directory stops capture but not status: it answers
	// from what is recorded and says why that may be behind.
	storageErr := e.Sync(ctx)
	if storageErr != nil && !store.IsFull(storageErr) {
		return api.Status{}, storageErr
	}
	if storageErr == nil {
		storageErr = e.ws.Store().SpaceError()
	}
	cur, err := e.ws.Current()
	if err != nil {
		return api.Status{}, err
	}
	fp := e.ws.Fingerprint()
	changes, err := e.statusChanges(cur)
	if err != nil {
		return api.Status{}, err
	}
	s := api.Status{
		Workspace:           e.ws.Root(),
		CurrentCheckpointID: cur.ID,
		Drifted:             fp.Sum != cur.Fingerprint || fp.Count != cur.Files,
		Changes:             changes,
		Fingerprint:         snapshot.FormatFingerprint(fp.Sum, fp.Count),
		Files:               fp.Count,
		StoreBytes:          e.ws.Store().Size(),
	}
	if storageErr != nil {
		s.StorageError = store.FullMessage(storageErr)
	}
	s.Unreadable = e.unreadable()
	if e.daemon != nil {
		s.Daemon = e.daemon()
	}
	if run, err := e.ws.LastRun(); err == nil {
		s.LastRun = &api.RunInfo{
			SessionID: run.Session, RunID: run.Run, BaselineID: run.BaselineID, EndID: run.EndID,
			Open: run.EndID == "", WorkspaceDrifted: run.Drifted, StartedAt: run.StartedAt, EndedAt: run.EndedAt,
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return s, err
	}
	if lr, err := e.ws.LastRestore(); err == nil {
		s.LastRestore = &api.Restored{CheckpointID: lr.TargetID, GuardCheckpointID: lr.GuardID, At: lr.At}
		s.UndoCommand = "ckpt undo"
	} else if !errors.Is(err, store.ErrNotFound) {
		return s, err
	}
	return s, nil
}

// Checkpoint cuts a manual checkpoint.
func (e *Engine) Checkpoint(ctx context.Context, message string) (api.Checkpoint, error) {
	if err := e.Sync(ctx); err != nil {
		return api.Checkpoint{}, err
	}
	cp, err := e.ws.Cut(snapshot.ReasonManual, message, store.Attr{})
	return checkpointOf(cp), err
}

// Log lists up to n checkpoints, newest first (all if n <= 0).
func (e *Engine) Log(ctx context.Context, n int) (api.Log, error) {
	cps, err := e.ws.Checkpoints(n)
	l := api.Log{Checkpoints: make([]api.Checkpoint, 0, len(cps))}
	for _, cp := range cps {
		l.Checkpoints = append(l.Checkpoints, checkpointOf(cp))
	}
	return l, err
}

// Show is one checkpoint and what changed since the checkpoint before it.
func (e *Engine) Show(ctx context.Context, id string) (api.Show, error) {
	cp, err := e.resolve(id)
	if err != nil {
		return api.Show{}, err
	}
	s := api.Show{Checkpoint: checkpointOf(cp), Changes: []api.Change{}}
	var from uint64
	if prev, err := e.ws.CheckpointBefore(cp.Seq); err == nil {
		s.PrevCheckpointID, from = prev.ID, prev.Seq
	} else if !errors.Is(err, store.ErrNotFound) {
		return s, err
	}
	fcs, err := e.ws.Diff(from, cp.Seq, nil, nil)
	s.Changes = changesOf(fcs)
	return s, err
}

// unreadable lists the paths the last scan or capture could not read.
func (e *Engine) unreadable() []api.UnreadablePath {
	u := e.ws.Unreadable()
	out := make([]api.UnreadablePath, 0, len(u))
	for _, p := range u {
		out = append(out, api.UnreadablePath{Path: api.QuotePath(p.Path), Error: p.Err})
	}
	return out
}
