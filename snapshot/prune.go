package snapshot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// KeepRecent: checkpoints younger than this are never pruned, whatever the
// retention.
const KeepRecent = 24 * time.Hour

// pruneNow is the clock Prune measures KeepRecent with (tests move it).
var pruneNow = time.Now

// PruneStats is what a Prune removed, and the space the store takes on disk
// (store.Store.Size) before and after.
type PruneStats struct {
	Checkpoints    int // checkpoint records deleted
	JournalEntries int // journal entries deleted
	PathEntries    int // path-index entries deleted
	Blobs          int // stored contents deleted
	BytesBefore    int64
	BytesAfter     int64
}

// Prune deletes the checkpoints created before olderThan, and then whatever
// only they needed, and gives the space back to the file system. It never
// deletes the current checkpoint, the last restore's target, guard and
// previous current checkpoint (undo needs them), the checkpoints of a run
// that is still open (its baseline, its end, its own checkpoints, and for a
// run without a recorded baseline the checkpoint before its first one), an
// unfinished restore's checkpoints, or any checkpoint younger than
// KeepRecent.
//
// Every checkpoint that remains stays exactly what it was: its state, and
// the diff between any two of them. History older than the oldest remaining
// checkpoint is forgotten: a diff that starts before it (such as showing
// the oldest checkpoint) sees no changes there. Blobs that no remaining
// state refers to are deleted.
//
// The zero olderThan prunes nothing. Prune holds the workspace's lock while
// it deletes (captures wait), not while the store reclaims space.
func (ws *Workspace) Prune(ctx context.Context, olderThan time.Time) (PruneStats, error) {
	stats := PruneStats{BytesBefore: ws.st.Size()}
	stats.BytesAfter = stats.BytesBefore
	if olderThan.IsZero() {
		return stats, nil
	}
	changed, err := ws.prune(ctx, olderThan, &stats)
	if err != nil || !changed {
		return stats, err
	}
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	if _, err := ws.st.Reclaim(); err != nil {
		return stats, err
	}
	stats.BytesAfter = ws.st.Size()
	return stats, nil
}

func (ws *Workspace) prune(ctx context.Context, olderThan time.Time, stats *PruneStats) (bool, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var drop []store.Checkpoint
	var floor uint64
	var oldestOrd uint64
	err := ws.st.View(func(r *store.Reader) error {
		keep, err := pinned(r, ws.active)
		if err != nil {
			return err
		}
		recent := pruneNow().Add(-KeepRecent)
		kept := 0
		err = r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
			if keep[cp.ID] || !cp.CreatedAt.Before(olderThan) || !cp.CreatedAt.Before(recent) {
				// Newest first: the last one kept is the oldest.
				floor, oldestOrd = cp.Seq, cp.Ord
				kept++
				return true, nil
			}
			drop = append(drop, cp)
			return true, nil
		})
		if err == nil && kept == 0 {
			// Nothing pinned (no import yet): keep the newest at least.
			if len(drop) > 0 {
				floor, oldestOrd = drop[0].Seq, drop[0].Ord
				drop = drop[1:]
			}
		}
		return err
	})
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	// Forget the history below the oldest remaining checkpoint only once
	// history before it has been pruned (the first checkpoint is gone):
	// until then it is what showing that checkpoint reads.
	compact := oldestOrd > 1
	if len(drop) == 0 && !compact {
		return false, nil
	}
	err = ws.st.Write(func(w *store.Writer) error {
		if err := w.DeleteCheckpoints(drop); err != nil {
			return err
		}
		stats.Checkpoints = len(drop)
		if compact {
			var err error
			if stats.JournalEntries, stats.PathEntries, err = w.CompactHistory(floor); err != nil {
				return err
			}
		}
		var err error
		stats.Blobs, err = w.SweepBlobs()
		return err
	})
	if err != nil {
		return false, err
	}
	changed := stats.Checkpoints+stats.JournalEntries+stats.PathEntries+stats.Blobs > 0
	return changed, ws.st.Sync()
}

// pinned is the set of checkpoints Prune must keep whatever their age.
func pinned(r *store.Reader, active store.Active) (map[string]bool, error) {
	keep := map[string]bool{}
	add := func(ids ...string) {
		for _, id := range ids {
			if id != "" {
				keep[id] = true
			}
		}
	}
	switch s, err := r.Workspace(); {
	case err == nil:
		add(s.CurrentCheckpointID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	switch lr, err := r.LastRestore(); {
	case err == nil:
		add(lr.TargetID, lr.GuardID, lr.PrevID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	switch in, err := r.Intent(); {
	case err == nil:
		add(in.TargetID, in.GuardID, in.PrevID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if len(active.Runs) == 0 {
		return keep, nil
	}
	open := map[[2]string]bool{}
	noRecord := map[[2]string]bool{}
	for _, ar := range active.Runs {
		k := [2]string{ar.Session, ar.Run}
		open[k] = true
		switch rec, err := r.Run(ar.Session, ar.Run); {
		case err == nil:
			add(rec.BaselineID, rec.EndID)
		case errors.Is(err, store.ErrNotFound):
			noRecord[k] = true
		default:
			return nil, err
		}
		for _, call := range ar.Calls {
			switch tw, err := r.ToolWindow(ar.Session, ar.Run, call); {
			case err == nil:
				add(tw.CheckpointID)
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
		}
	}
	// The run's own checkpoints; for a run without a recorded baseline also
	// the checkpoint right before its oldest one, which stands in for it.
	ownedLast := map[[2]string]bool{}
	err := r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
		k := [2]string{cp.Session, cp.Run}
		for k2 := range ownedLast {
			if k2 != k {
				add(cp.ID)
				delete(ownedLast, k2)
			}
		}
		if open[k] {
			add(cp.ID)
			if noRecord[k] {
				ownedLast[k] = true
			}
		}
		return true, nil
	})
	return keep, err
}

// checkNotPruned refuses a restore target that a Prune deleted after the
// caller looked it up: its state can no longer be read exactly.
func (ws *Workspace) checkNotPruned(target store.Checkpoint) error {
	if target.ID == "" {
		return nil
	}
	err := ws.st.View(func(r *store.Reader) error {
		_, err := r.Checkpoint(target.ID)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return fault.Mark(fmt.Errorf("checkpoint %q was pruned", target.ID), ErrBadID)
	}
	return err
}
