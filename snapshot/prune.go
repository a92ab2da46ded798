package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/store"
)

// KeepRecent: checkpoints younger than this are never pruned, whatever the
// retention.
const KeepRecent = 24 * time.Hour

// pruneNow is the clock retention measures ages with. Tests move it: the
// unit tests directly, cmd/e2e's through CKPT_TEST_PRUNE_AHEAD (a Go
// duration the clock is set ahead by, read once), so that the real
// binaries see checkpoints made a moment ago as days old.
var pruneNow = func() func() time.Time {
	ahead, err := time.ParseDuration(os.Getenv("CKPT_TEST_PRUNE_AHEAD"))
	if err != nil || ahead == 0 {
		return time.Now
	}
	return func() time.Time { return time.Now().Add(ahead) }
}()

// PruneStats is what a Prune removed, and the space the store takes on disk
// (store.Store.Size) before and after.
type PruneStats struct {
	Checkpoints    int // checkpoint records deleted
	JournalEntries int // journal entries deleted
	PathEntries    int // path-index entries deleted
	Blobs          int // stored contents deleted
	// Pruned lists the ids of the checkpoints deleted.
	Pruned      []string
	BytesBefore int64
	BytesAfter  int64
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
	recent := pruneNow().Add(-KeepRecent)
	byAge := func(cps []store.Checkpoint, keep map[string]string) []store.Checkpoint {
		var drop []store.Checkpoint
		for _, cp := range cps {
			if _, pin := keep[cp.ID]; !pin && cp.CreatedAt.Before(olderThan) && cp.CreatedAt.Before(recent) {
				drop = append(drop, cp)
			}
		}
		return drop
	}
	changed, _, err := ws.pruneWith(ctx, byAge, false, stats)
	return changed, err
}

// chooser picks, from every checkpoint (newest first) and the pinned ones,
// the checkpoints to prune.
type chooser func(cps []store.Checkpoint, keep map[string]string) []store.Checkpoint

// pruneWith prunes the checkpoints choose picks (never a pinned one, and
// never every one: the newest stays), the history below the oldest one
// left and the blobs only they needed. It returns what was pinned. A dry
// run only counts the checkpoints it would prune.
func (ws *Workspace) pruneWith(ctx context.Context, choose chooser, dry bool, stats *PruneStats) (bool, map[string]string, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var drop []store.Checkpoint
	var floor, oldestOrd uint64
	var keep map[string]string
	err := ws.st.View(func(r *store.Reader) error {
		var err error
		if keep, err = pinned(r, ws.active); err != nil {
			return err
		}
		if err = ws.pinUnreplicated(r, keep); err != nil {
			return err
		}
		var cps []store.Checkpoint
		err = r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
			cps = append(cps, cp)
			return true, nil
		})
		if err != nil || len(cps) == 0 {
			return err
		}
		gone := map[string]bool{}
		for _, cp := range choose(cps, keep) {
			if _, pin := keep[cp.ID]; !pin && cp.ID != cps[0].ID {
				gone[cp.ID] = true
			}
		}
		for _, cp := range cps {
			if gone[cp.ID] {
				drop = append(drop, cp)
			} else {
				// Newest first: the last one kept is the oldest.
				floor, oldestOrd = cp.Seq, cp.Ord
			}
		}
		return nil
	})
	if err != nil {
		return false, keep, err
	}
	if err := ctx.Err(); err != nil {
		return false, keep, err
	}
	// Forget the history below the oldest remaining checkpoint only once
	// history before it has been pruned (the first checkpoint is gone):
	// until then it is what showing that checkpoint reads.
	compact := oldestOrd > 1
	stats.Checkpoints = len(drop)
	stats.Pruned = stats.Pruned[:0]
	for _, cp := range drop {
		stats.Pruned = append(stats.Pruned, cp.ID)
	}
	if dry || len(drop) == 0 && !compact {
		return false, keep, nil
	}
	err = ws.st.Write(func(w *store.Writer) error {
		if err := w.DeleteCheckpoints(drop); err != nil {
			return err
		}
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
		return false, keep, err
	}
	changed := stats.Checkpoints+stats.JournalEntries+stats.PathEntries+stats.Blobs > 0
	return changed, keep, ws.st.Sync()
}

// Why a checkpoint is pinned (Pins): what still needs it.
const (
	PinCurrent       = "current"            // the current checkpoint
	PinRestoreTarget = "restore_target"     // the last restore's target
	PinRestoreGuard  = "restore_guard"      // the last restore's guard (what undo restores)
	PinUndo          = "undo"               // the checkpoint current before the last restore
	PinRestoreIntent = "unfinished_restore" // a restore that has not finished
	PinOpenRun       = "open_run"           // a checkpoint of a run still open (baseline, end, tool calls, its own)
	PinLastRun       = "last_run"           // the last run's baseline or end
	PinReview        = "review"             // the baseline or end of a run with review marks
)

// pinned is the set of checkpoints Prune must keep whatever their age, each
// with why (the first reason found).
func pinned(r *store.Reader, active store.Active) (map[string]string, error) {
	keep := map[string]string{}
	add := func(why string, ids ...string) {
		for _, id := range ids {
			if _, ok := keep[id]; id != "" && !ok {
				keep[id] = why
			}
		}
	}
	switch s, err := r.Workspace(); {
	case err == nil:
		add(PinCurrent, s.CurrentCheckpointID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	switch lr, err := r.LastRestore(); {
	case err == nil:
		add(PinRestoreTarget, lr.TargetID)
		add(PinRestoreGuard, lr.GuardID)
		add(PinUndo, lr.PrevID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	switch in, err := r.Intent(); {
	case err == nil:
		add(PinRestoreIntent, in.TargetID, in.GuardID, in.PrevID)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if err := pinRuns(r, add); err != nil {
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
			add(PinOpenRun, rec.BaselineID, rec.EndID)
		case errors.Is(err, store.ErrNotFound):
			noRecord[k] = true
		default:
			return nil, err
		}
		for _, call := range ar.Calls {
			switch tw, err := r.ToolWindow(ar.Session, ar.Run, call); {
			case err == nil:
				add(PinOpenRun, tw.CheckpointID)
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
				add(PinOpenRun, cp.ID)
				delete(ownedLast, k2)
			}
		}
		if open[k] {
			add(PinOpenRun, cp.ID)
			if noRecord[k] {
				ownedLast[k] = true
			}
		}
		return true, nil
	})
	return keep, err
}

// pinRuns pins the last run's baseline and end (what ckpt status, ckpt
// diff and the panel show first, and what rolling that run back needs),
// and those of every run with review marks.
func pinRuns(r *store.Reader, add func(why string, ids ...string)) error {
	switch last, err := r.LastRun(); {
	case err == nil:
		add(PinLastRun, last.BaselineID, last.EndID)
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return r.Runs(func(rec store.Run) error {
		marked := false
		err := r.Reviews(rec.Session, rec.Run, func(rv store.Review) error {
			marked = rv.Mark != ""
			return errFound
		})
		if err != nil && !errors.Is(err, errFound) {
			return err
		}
		if marked {
			add(PinReview, rec.BaselineID, rec.EndID)
		}
		return nil
	})
}

var errFound = errors.New("found")

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
