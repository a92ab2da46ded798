package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// loop is the processor: it handles queued events in order, flushes settled
// paths to the sink, and re-walks when events were lost, ignore rules
// changed, or the rescan interval came round. It returns when ctx is done.
func (w *Watcher) loop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var lastDue time.Time
	for ctx.Err() == nil {
		if w.applySettings() {
			continue
		}
		if why, ok := w.takeOverflow(); ok {
			w.q.clear()                        // everything queued happened before the walk starts
			w.rewalk(ctx, why, slog.LevelWarn) // events were lost
			continue
		}
		if ev, ok := w.q.pop(); ok {
			w.handle(ctx, ev)
			// While busy, flush what is due now and then (in batches),
			// not after every event.
			if now := time.Now(); now.Sub(lastDue) >= busyFlushEvery {
				lastDue = now
				w.flushDue(ctx)
			}
			continue
		}
		// Idle: nothing queued.
		now := time.Now()
		if iv := w.rescanInterval(); iv > 0 && w.needWalk == "" && !now.Before(w.lastWalk.Add(iv)) {
			w.needWalk = "periodic re-walk"
		}
		if w.walkWanted() && !now.Before(w.retryAt) {
			w.rewalk(ctx, w.needWalk, slog.LevelInfo) // routine
			continue
		}
		w.walkIgnoreChanges(ctx, now, false)
		w.flushDue(ctx)
		timer.Reset(max(w.nextWake(now), 0))
		select {
		case <-ctx.Done():
		case <-w.q.signal:
		case <-timer.C:
		}
	}
}

// nextWake is how long an idle processor may sleep: until the next pending
// path is due, a failed re-walk may be retried, or a periodic one is due.
func (w *Watcher) nextWake(now time.Time) time.Duration {
	wake := time.Hour
	if t, ok := w.pending.next(); ok {
		wake = min(wake, t.Sub(now))
	}
	if w.needWalk != "" {
		wake = min(wake, w.retryAt.Sub(now))
	}
	if t, ok := w.ignoreDue(); ok {
		wake = min(wake, t.Sub(now))
	}
	if iv := w.rescanInterval(); iv > 0 {
		wake = min(wake, w.lastWalk.Add(iv).Sub(now))
	}
	return wake
}

// busyFlushEvery is how often a processor with a backlog of events flushes
// the paths that are due.
const busyFlushEvery = 10 * time.Millisecond

// rescanInterval is the periodic re-walk interval: Options.RescanInterval,
// shortened to DegradedRescanInterval while some directory is not watched
// (a degraded watcher also re-walks at every Sync).
func (w *Watcher) rescanInterval() time.Duration {
	iv := w.opts.RescanInterval
	if w.degraded && (iv <= 0 || iv > DegradedRescanInterval) {
		iv = DegradedRescanInterval
	}
	return iv
}

// walkWanted reports whether an idle processor should re-walk now: a
// re-walk was asked for, or a degraded watcher has a cookie round that its
// missing watches may never report.
func (w *Watcher) walkWanted() bool {
	if w.needWalk != "" {
		return true
	}
	if w.degraded && w.cookieWaiting() {
		w.needWalk = "sync while directories are unwatched"
		return true
	}
	return false
}

// rel converts an event's absolute name to a workspace-relative path.
func (w *Watcher) rel(name string) (string, bool) {
	if name == w.root {
		return "", true
	}
	r, ok := strings.CutPrefix(name, w.prefix)
	if !ok {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// abs converts a workspace-relative path to an absolute one.
func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// handle processes one event.
func (w *Watcher) handle(ctx context.Context, ev fsnotify.Event) {
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	if rel == "" {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.fail(errRootGone)
		}
		return
	}
	base := path.Base(rel)
	if IsInternal(base) {
		if rel == base && isCookie(base) && (ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write)) {
			w.cookieSeen(ctx, base)
		}
		return
	}
	if IsIgnoreFile(base) {
		// Whatever happened to it, the rules below its directory may have
		// changed: paths to drop, paths to capture, watches to add or remove.
		w.ignoreChanged(rel)
	}
	_, wasDir := w.dirs[rel]
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// The old path: a file, or a whole subtree whose watches are stale.
		if wasDir {
			w.dropDirs(rel)
		}
		if !w.ig.Ignored(rel, wasDir) {
			w.mark(rel)
		}
		return
	}
	isDir := wasDir
	if ev.Has(fsnotify.Create) {
		fi, err := os.Lstat(w.abs(rel))
		isDir = err == nil && fi.IsDir()
		if errors.Is(err, syscall.ENAMETOOLONG) {
			w.tooDeep(rel, err) // whatever it is, only re-walks reach it
		}
	}
	if ev.Has(fsnotify.Chmod) && (wasDir || w.unreadable[rel]) && w.unreadableChanged(rel) {
		return
	}
	switch {
	case isDir && (base == ".git" || w.ig.Ignored(rel, true)):
	case !isDir && w.ig.Ignored(rel, false):
	case isDir && ev.Has(fsnotify.Create):
		// A new directory (created or moved in): watch it, then list it.
		// The directory itself goes to the sink too, so that whatever it
		// replaced is reconciled.
		w.scanDir(rel)
		w.mark(rel)
	case isDir:
		// Attributes of a watched directory: nothing to capture.
	default:
		w.mark(rel)
	}
}

// mark queues rel for capture after its settle delay.
func (w *Watcher) mark(rel string) {
	w.pending.mark(rel, time.Now())
	w.pendingN.Store(int64(w.pending.len()))
}

// flushDue captures the paths whose settle delay or bound has passed.
func (w *Watcher) flushDue(ctx context.Context) {
	if w.pending.len() == 0 {
		return
	}
	if err := w.capture(ctx, w.pending.due(time.Now())); err != nil {
		w.needWalk = "capture failed"
	}
}

// flushAll captures every pending path, settled or not.
func (w *Watcher) flushAll(ctx context.Context) error {
	return w.capture(ctx, w.pending.takeAll())
}

// capture hands paths to the sink in sorted batches. The sink's context is
// not cancelled by shutdown: a batch taken from the pending set must land.
func (w *Watcher) capture(ctx context.Context, paths []string) error {
	w.pendingN.Store(int64(w.pending.len()))
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	ctx = context.WithoutCancel(ctx)
	for len(paths) > 0 {
		n := min(len(paths), captureBatch)
		if err := w.sink.Capture(ctx, paths[:n]); err != nil {
			w.fail(err)
			return err
		}
		paths = paths[n:]
	}
	return nil
}

// finish runs after the fsnotify watcher is closed and drained: it delivers
// every event still queued and every pending path to the sink.
func (w *Watcher) finish(ctx context.Context) {
	w.closing = true
	if why, ok := w.takeOverflow(); ok {
		w.log.Warn(fmt.Sprintf("watcher: %s: %s at shutdown; the next start reconciles", w.root, why))
		w.q.clear()
	}
	for {
		ev, ok := w.q.pop()
		if !ok {
			break
		}
		w.handle(ctx, ev)
	}
	w.flushAll(ctx)
}

// parentDir is path.Dir with "" for the root.
func parentDir(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return d
}
