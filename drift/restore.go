package drift

import (
	"context"
	"errors"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// Restore brings the workspace (or req.Paths) back to checkpoint req.ID,
// or req.Paths to a version reference (@SEQ, from history).
// Default scope: paths that runs changed after it; paths only the person
// changed are kept. req.Exact restores everything.
func (e *Engine) Restore(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	if seq, ok, err := ParseVersionRef(req.ID); ok {
		if err != nil {
			return api.RestoreResult{}, err
		}
		return e.restoreVersion(ctx, seq, req)
	}
	target, err := e.resolve(req.ID)
	if err != nil {
		return api.RestoreResult{}, err
	}
	return e.restore(ctx, target, req, "")
}

// Undo undoes the last restore: it restores that restore's guard, exactly,
// over the same paths, and puts back the current checkpoint it replaced.
func (e *Engine) Undo(ctx context.Context, req api.RestoreRequest) (api.RestoreResult, error) {
	if !req.DryRun && e.restoring.Load() {
		return api.RestoreResult{}, ErrRestoreInFlight // the last restore is not the last yet
	}
	lr, err := e.ws.LastRestore()
	if errors.Is(err, store.ErrNotFound) {
		return api.RestoreResult{}, invalid("there is no restore to undo")
	}
	if err != nil {
		return api.RestoreResult{}, err
	}
	guard, err := e.ws.Checkpoint(lr.GuardID)
	if err != nil {
		return api.RestoreResult{}, err
	}
	req.Exact, req.Paths = true, api.QuotePaths(lr.Paths)
	return e.restore(ctx, guard, req, lr.PrevID)
}

func (e *Engine) restore(ctx context.Context, target store.Checkpoint, req api.RestoreRequest, currentID string) (api.RestoreResult, error) {
	paths, err := CleanPaths(req.Paths)
	if err != nil {
		return api.RestoreResult{}, err
	}
	done, err := e.beginRestore(req.DryRun)
	if err != nil {
		return api.RestoreResult{}, err
	}
	defer done()
	if err := e.Sync(ctx); err != nil {
		return api.RestoreResult{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	opts := snapshot.RestoreOptions{DryRun: req.DryRun, CurrentID: currentID}
	if len(req.Paths) > 0 {
		opts.Paths = paths
	}
	opts.Policy = policyFor(req.Exact, opts.Paths)
	r, err := e.ws.Restore(ctx, target, opts)
	if err != nil {
		return api.RestoreResult{}, asInvalid(err)
	}
	return RestoreResultOf(r), nil
}

// RestoreResultOf is a restore as the CLI and the API show it.
func RestoreResultOf(r snapshot.RestoreResult) api.RestoreResult {
	res := api.RestoreResult{
		CheckpointID: r.Target.ID, GuardCheckpointID: r.Guard.ID, DryRun: r.DryRun,
		Restored: make([]api.RestoredChange, 0, len(r.Restored)), Kept: make([]api.KeptChange, 0, len(r.Kept)),
		Refused: make([]api.RefusedChange, 0, len(r.Refused)),
	}
	for _, it := range r.Restored {
		rc := api.RestoredChange{Path: api.QuotePath(it.Path), Kind: it.Kind.String(), Conflict: it.Conflict}
		if it.Err != nil {
			rc.Error = it.Err.Error()
		}
		res.Restored = append(res.Restored, rc)
	}
	for _, it := range r.Kept {
		res.Kept = append(res.Kept, api.KeptChange{Path: api.QuotePath(it.Path), Kind: it.Kind.String(), Why: it.Why})
	}
	for _, it := range r.Refused {
		res.Refused = append(res.Refused, api.RefusedChange{Path: api.QuotePath(it.Path), Kind: it.Kind.String(), Why: it.Why})
	}
	return res
}
