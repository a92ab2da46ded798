package drift

import (
	"context"

	"github.com/ckptdev/ckpt/integration/api"
	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
	"github.com/ckptdev/ckpt/textdiff"
)

// Diff is the changes from req.From (default: the current checkpoint) to
// req.To (default: the working tree).
func (e *Engine) Diff(ctx context.Context, req api.DiffRequest) (api.DiffResult, error) {
	paths, err := CleanPaths(req.Paths)
	if err != nil {
		return api.DiffResult{}, err
	}
	var from, to store.Checkpoint
	if req.From != "" {
		if from, err = e.resolve(req.From); err != nil {
			return api.DiffResult{}, err
		}
	}
	toSeq := uint64(0)
	if req.To != "" {
		if to, err = e.resolve(req.To); err != nil {
			return api.DiffResult{}, err
		}
		toSeq = to.Seq
	} else {
		if err := e.Sync(ctx); err != nil {
			return api.DiffResult{}, err
		}
		toSeq = e.ws.Head()
	}
	if req.From == "" {
		if from, err = e.ws.Current(); err != nil {
			return api.DiffResult{}, err
		}
	}
	var filter snapshot.Filter
	if len(req.Paths) > 0 {
		filter = paths
	}
	fcs, err := e.ws.Diff(from.Seq, toSeq, filter, nil)
	if err != nil {
		return api.DiffResult{}, err
	}
	files := changesOf(fcs)
	if req.Patch {
		e.addPatches(files, fcs)
	}
	return api.DiffResult{CheckpointID: to.ID, PrevCheckpointID: from.ID, Files: files}, nil
}

// addPatches fills in unified diffs (or the binary flag) for each change.
func (e *Engine) addPatches(files []api.Change, fcs []snapshot.FileChange) {
	for i, fc := range fcs {
		a, aok := e.content(fc.From)
		b, bok := e.content(fc.To)
		if !aok || !bok {
			files[i].Binary = true
			continue
		}
		files[i].Patch, files[i].Binary = textdiff.Unified(api.QuotePath(fc.Path), a, b, !fc.From.Exists(), !fc.To.Exists(), 3)
	}
}

// content is a state's bytes; ok is false when they are not stored.
func (e *Engine) content(st store.State) ([]byte, bool) {
	if !st.Exists() {
		return nil, true
	}
	if !st.Stored {
		return nil, false
	}
	b, err := e.ws.Blob(st.Hash)
	if err != nil {
		return nil, false
	}
	if st.Kind == store.Symlink {
		b = append([]byte("symlink -> "), append(b, '\n')...)
	}
	return b, true
}
