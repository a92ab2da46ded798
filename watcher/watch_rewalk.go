package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"time"
)

// Re-walk retry bounds after a failed Reconcile (a sink that cannot write).
var (
	minWalkBackoff = time.Second
	maxWalkBackoff = time.Minute
)

// rewalk makes the sink match a full walk of the workspace (Sink.Reconcile)
// and, on the way, the watches match the directories that are not ignored:
// each directory is watched before it is listed, and watches of directories
// the walk did not see are dropped. why says why ("" for the initial walk);
// it is logged. Cookie rounds whose cookie existed when the walk started are
// completed by it: the walk saw everything that happened before them.
func (w *Watcher) rewalk(ctx context.Context, why string) error {
	if why != "" {
		w.logf("watcher: %s: %s: re-walking the workspace", w.root, why)
	}
	w.rewalks.Add(1)
	w.needWalk = ""
	w.pending.reset() // the walk covers every path that was waiting
	w.pendingN.Store(0)
	w.lastWalk = time.Now()
	w.gen++
	w.limitHit = false
	// No Invalidate needed: the Walker re-reads any ignore file that
	// changed since it was cached, even unseen (lost events).

	// The root's watch first: a cookie created from now on is reported,
	// one created before is covered by this walk.
	w.addWatch("")
	covered := w.coveredRound()

	walked := false
	err := w.sink.Reconcile(ctx, func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		wk := &Walker{
			Root:    w.root,
			Ignorer: w.ig,
			OnDir: func(rel string) error {
				w.addWatch(rel)
				return nil
			},
			OnError: func(rel string, err error) {
				if !errors.Is(err, fs.ErrNotExist) {
					w.fail(fmt.Errorf("walk %q: %w", rel, err))
				}
			},
		}
		err := wk.Walk(ctx, func(rel string, info fs.FileInfo) error {
			if IsInternal(path.Base(rel)) {
				return nil
			}
			return visit(rel, info)
		})
		walked = err == nil
		return err
	})
	if walked {
		w.pruneUnseen()
		w.degraded = w.limitHit
	}
	if err != nil {
		if ctx.Err() == nil {
			w.fail(fmt.Errorf("re-walk: %w", err))
		}
		w.needWalk = "retrying failed re-walk"
		w.backoff = min(max(2*w.backoff, minWalkBackoff), maxWalkBackoff)
		w.retryAt = time.Now().Add(w.backoff)
		if covered != nil {
			w.finishRound(covered, fmt.Errorf("watcher: re-walk failed: %w", err))
		}
		return err
	}
	w.backoff = 0
	w.retryAt = time.Time{}
	if covered != nil {
		w.finishRound(covered, nil)
	}
	return nil
}
