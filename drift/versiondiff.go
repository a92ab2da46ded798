package drift

import (
	"context"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
)

// VersionDiff is the change of one path from one version to another: no
// files when they are the same.
func (e *Engine) VersionDiff(ctx context.Context, req api.VersionDiffRequest) (api.DiffResult, error) {
	ps, err := CleanPaths([]string{req.Path})
	if err != nil {
		return api.DiffResult{}, err
	}
	if ps[0] == "" {
		return api.DiffResult{}, invalid("a version diff needs a path inside the workspace, not its root")
	}
	from, err := versionSeq(req.From)
	if err != nil {
		return api.DiffResult{}, err
	}
	to := uint64(0)
	if req.To != "" {
		if to, err = versionSeq(req.To); err != nil {
			return api.DiffResult{}, err
		}
	} else {
		if err := e.Sync(ctx); err != nil {
			return api.DiffResult{}, err
		}
		to = e.ws.Head()
	}
	if from > to || to > e.ws.Head() {
		return api.DiffResult{}, invalid("versions %s..%s are not in the journal's order (head @%d)", req.From, req.To, e.ws.Head())
	}
	fcs, err := e.ws.Diff(from, to, snapshot.Filter(ps), nil)
	if err != nil {
		return api.DiffResult{}, err
	}
	files := changesOf(fcs)
	e.addPatches(files, fcs)
	return api.DiffResult{CheckpointID: req.To, PrevCheckpointID: req.From, Files: files}, nil
}

func versionSeq(ref string) (uint64, error) {
	seq, ok, err := ParseVersionRef(ref)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, invalid("%q is not a version reference (@ and a journal position, as ckpt history gives it)", ref)
	}
	return seq, nil
}
