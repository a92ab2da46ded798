package snapshot

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/ckptdev/ckpt/store"
)

// Policy is a retention policy: the config keys retention and
// retention_size.
type Policy struct {
	// MaxAge: checkpoints older than this are pruned (never a pinned one,
	// nor one younger than KeepRecent). 0: none by age.
	MaxAge time.Duration
	// MaxSize: while the store takes more than this on disk
	// (store.Store.Size), its oldest checkpoints are pruned, whatever
	// their age, except pinned ones and those younger than
	// KeepRecentOverBudget. 0: no budget.
	MaxSize int64
}

// KeepRecentOverBudget: checkpoints younger than this are never pruned to
// bring a store under its size budget.
const KeepRecentOverBudget = time.Hour

// maxBudgetRounds bounds the prune-and-measure rounds of the size rule: how
// much a checkpoint frees is only known once the space is reclaimed.
const maxBudgetRounds = 6

// Pin is a checkpoint a Collect kept whatever the policy, and why (one of
// the Pin* reasons).
type Pin struct {
	ID     string
	Reason string
}

// GCStats is what a Collect did (or, in a dry run, would do to the
// checkpoints).
type GCStats struct {
	PruneStats
	DryRun bool
	// Pinned are the checkpoints kept because something needs them,
	// oldest first.
	Pinned []Pin
	// Left is how many checkpoints remain.
	Left int
	// OverBudget: the store is still over Policy.MaxSize (what is left is
	// pinned or too recent), or in a dry run, it is over it now.
	OverBudget bool
}

// Collect applies a retention policy now: the age rule, then rewrites the
// contents left in the store's final encoding (RepackIfIdle), then the size
// budget, then gives the space back to the file system (store.Reclaim runs
// even when nothing was pruned: it also drops what Badger keeps of
// overwritten records). A dry run changes nothing and lists the
// checkpoints the age rule would prune.
func (ws *Workspace) Collect(ctx context.Context, p Policy, dry bool) (GCStats, error) {
	gs, err := ws.collect(ctx, p, dry, true)
	if err == nil && !dry {
		err = ws.markPruned()
	}
	return gs, err
}

// collect is Collect; unless always, it reclaims space only once it has
// pruned something.
func (ws *Workspace) collect(ctx context.Context, p Policy, dry, always bool) (GCStats, error) {
	gs := GCStats{DryRun: dry}
	gs.BytesBefore = ws.st.Size()
	gs.BytesAfter = gs.BytesBefore
	now := pruneNow()
	var byAge chooser = func(cps []store.Checkpoint, _ map[string]string) []store.Checkpoint {
		if p.MaxAge <= 0 {
			return nil
		}
		cut := now.Add(-max(p.MaxAge, KeepRecent))
		return slices.DeleteFunc(slices.Clone(cps), func(cp store.Checkpoint) bool { return !cp.CreatedAt.Before(cut) })
	}
	changed, keep, err := ws.pruneWith(ctx, byAge, dry, &gs.PruneStats)
	if err != nil {
		return gs, err
	}
	if dry {
		gs.OverBudget = p.MaxSize > 0 && gs.BytesBefore > p.MaxSize
		return gs, ws.describePins(&gs, keep)
	}
	if always {
		// What is left is rewritten in the final encoding (a better
		// level, against the store's dictionary) before the reclaim
		// gives the old chunks' space back.
		if _, _, err := ws.RepackIfIdle(ctx); err != nil {
			return gs, err
		}
	}
	if changed || always {
		if err := ws.reclaim(ctx, &gs); err != nil {
			return gs, err
		}
	}
	for round := 0; p.MaxSize > 0 && gs.BytesAfter > p.MaxSize && round < maxBudgetRounds; round++ {
		var st PruneStats
		over := float64(gs.BytesAfter-p.MaxSize) / float64(gs.BytesAfter)
		_, keep, err = ws.pruneWith(ctx, oldestShare(now, over), false, &st)
		if err != nil {
			return gs, err
		}
		if st.Checkpoints == 0 {
			break // what is left is pinned or recent
		}
		gs.add(st)
		if err := ws.reclaim(ctx, &gs); err != nil {
			return gs, err
		}
	}
	gs.OverBudget = p.MaxSize > 0 && gs.BytesAfter > p.MaxSize
	return gs, ws.describePins(&gs, keep)
}

// oldestShare picks the oldest checkpoints that may go for the size budget:
// the unbroken run of them from the oldest on (one that is pinned or too
// recent holds the history after it, so pruning past it would free
// nothing), a share of them a little over the share of the store that is
// over the budget.
func oldestShare(now time.Time, over float64) chooser {
	return func(cps []store.Checkpoint, keep map[string]string) []store.Checkpoint {
		cut := now.Add(-KeepRecentOverBudget)
		var run []store.Checkpoint
		for i := len(cps) - 1; i > 0; i-- { // oldest first; never the newest
			cp := cps[i]
			if _, pin := keep[cp.ID]; pin || !cp.CreatedAt.Before(cut) {
				break
			}
			run = append(run, cp)
		}
		n := int(math.Ceil(float64(len(run)) * min(1, 1.25*over)))
		return run[:min(len(run), max(n, 1))]
	}
}

func (gs *GCStats) add(st PruneStats) {
	gs.Checkpoints += st.Checkpoints
	gs.JournalEntries += st.JournalEntries
	gs.PathEntries += st.PathEntries
	gs.Blobs += st.Blobs
	gs.Pruned = append(gs.Pruned, st.Pruned...)
}

func (ws *Workspace) reclaim(ctx context.Context, gs *GCStats) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := ws.st.Reclaim(); err != nil {
		return err
	}
	gs.BytesAfter = ws.st.Size()
	return nil
}

// describePins fills in the pinned checkpoints, oldest first, and how many
// checkpoints are left.
func (ws *Workspace) describePins(gs *GCStats, keep map[string]string) error {
	gs.Pinned, gs.Left = []Pin{}, 0
	gone := map[string]bool{}
	if gs.DryRun {
		for _, id := range gs.Pruned {
			gone[id] = true
		}
	}
	return ws.st.View(func(r *store.Reader) error {
		return r.Checkpoints(func(cp store.Checkpoint) (bool, error) {
			if gone[cp.ID] {
				return true, nil
			}
			gs.Left++
			if why, ok := keep[cp.ID]; ok {
				gs.Pinned = append([]Pin{{ID: cp.ID, Reason: why}}, gs.Pinned...)
			}
			return true, nil
		})
	})
}
