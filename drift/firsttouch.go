package drift

import (
	"sort"

	"github.com/ckptdev/ckpt/snapshot"
	"github.com/ckptdev/ckpt/store"
)

// firstTouches is, for each of a run's changed files, the checkpoint to
// roll it back to: the newest checkpoint before the run first changed it,
// and at or after the run's baseline (the baseline itself when there is
// none). The run's checkpoints are read once, for all the files.
func (e *Engine) firstTouches(base store.Checkpoint, fcs []snapshot.FileChange) ([]string, error) {
	ids := make([]string, len(fcs))
	var last uint64
	for i, fc := range fcs {
		ids[i] = base.ID
		last = max(last, fc.First.Seq)
	}
	if last == 0 {
		return ids, nil
	}
	var cps []store.Checkpoint // by seq, oldest first
	err := e.ws.Store().View(func(r *store.Reader) error {
		return r.CheckpointsIn(base.Seq, last-1, func(cp store.Checkpoint) (bool, error) {
			cps = append(cps, cp)
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	for i, fc := range fcs {
		// The last checkpoint whose seq is below the first change.
		j := sort.Search(len(cps), func(k int) bool { return cps[k].Seq >= fc.First.Seq })
		if j > 0 {
			ids[i] = cps[j-1].ID
		}
	}
	return ids, nil
}
