package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"syscall"
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
// it is logged at level. Cookie rounds whose cookie existed when the walk started are
// completed by it: the walk saw everything that happened before them.
func (w *Watcher) rewalk(ctx context.Context, why string, level slog.Level) error {
	if why != "" {
		w.log.Log(ctx, level, fmt.Sprintf("watcher: %s: %s: re-walking the workspace", w.root, why))
	}
	w.rewalks.Add(1)
	w.needWalk = ""
	w.pending.reset() // the walk covers every path that was waiting
	w.ignoreDirty = nil
	w.pendingN.Store(0)
	w.lastWalk = time.Now()
	w.gen++
	w.limitHit = false
	w.unwatchedWalkStart()
	// No Invalidate needed: the Walker re-reads any ignore file that
	// changed since it was cached, even unseen (lost events).

	// The root's watch first: a cookie created from now on is reported,
	// one created before is covered by this walk.
	w.addWatch("")
	covered := w.coveredRound()

	walked := false
	w.unreadable = nil
	err := w.sink.Reconcile(ctx, func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		wk := &Walker{
			Root:            w.root,
			Ignorer:         w.ig,
			VisitUnreadable: true,
			OnDir: func(rel string) error {
				w.addWatch(rel)
				return nil
			},
			// What cannot be read is reported by the sink (its status
			// names each such path): only logged here.
			OnError: func(rel string, err error) {
				if !errors.Is(err, fs.ErrNotExist) {
					w.log.Warn(fmt.Sprintf("watcher: %s: walk %q: %v", w.root, rel, err))
				}
			},
		}
		err := wk.Walk(ctx, func(rel string, info fs.FileInfo) error {
			if IsInternal(path.Base(rel)) {
				return nil
			}
			if info.IsDir() && UnreadableError(info) != nil {
				w.noteUnreadable(rel)
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
	w.unwatchedWalkDone(walked)
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

// noteUnreadable remembers a directory that could not be listed.
func (w *Watcher) noteUnreadable(rel string) {
	if w.unreadable == nil {
		w.unreadable = map[string]bool{}
	}
	w.unreadable[rel] = true
}

// unreadableChanged handles an attribute change of directory rel: one that
// could not be read before may be readable now, and what it holds was
// never walked (nor watched), so the workspace is re-walked; one that
// cannot be read now goes to the sink, which keeps its entries as they were
// and reports it. It reports whether it handled the event.
func (w *Watcher) unreadableChanged(rel string) bool {
	f, err := os.Open(w.abs(rel))
	if err == nil {
		f.Close()
	}
	readable := err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	switch {
	case w.unreadable[rel] && readable:
		delete(w.unreadable, rel)
		w.needWalk = "the directory " + rel + " can be read again"
	case w.unreadable[rel]:
	case readable:
		return false
	default:
		w.noteUnreadable(rel)
		w.mark(rel)
	}
	return true
}
