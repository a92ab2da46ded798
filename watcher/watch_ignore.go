package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"
)

// SubtreeSink is a Sink that can also reconcile one directory's subtree.
// With one, a changed .gitignore or .ckptignore re-walks only the
// directory whose rules changed (the rules of a directory govern only what
// lies below it); with a plain Sink it re-walks the whole workspace.
type SubtreeSink interface {
	Sink
	// ReconcileUnder is Reconcile for the paths under dir (never ""):
	// files under dir that walk does not visit are deleted; nothing
	// outside dir is touched.
	ReconcileUnder(ctx context.Context, dir string, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error
}

// ignoreBurst is a directory whose ignore rules changed and whose subtree
// waits to be re-walked: like a pending path, it is due Debounce after its
// last change or MaxDelay after its first, so that a burst of writes to an
// ignore file re-walks its directory once.
type ignoreBurst struct{ first, last time.Time }

// ignoreChanged handles an event on the ignore file rel: its directory's
// rules are read again, and its subtree is re-walked once the burst of
// changes settles (the root's: the whole workspace, at once).
func (w *Watcher) ignoreChanged(rel string) {
	dir := parentDir(rel)
	w.ig.Invalidate(dir)
	if _, ok := w.sink.(SubtreeSink); !ok || dir == "" {
		w.needWalk = "ignore rules changed in " + rel
		return
	}
	now := time.Now()
	if w.ignoreDirty == nil {
		w.ignoreDirty = map[string]*ignoreBurst{}
	}
	if b, ok := w.ignoreDirty[dir]; ok {
		b.last = now
		return
	}
	w.ignoreDirty[dir] = &ignoreBurst{first: now, last: now}
}

// ignoreDue is when the earliest waiting subtree is due; ok is false when
// none waits.
func (w *Watcher) ignoreDue() (t time.Time, ok bool) {
	for _, b := range w.ignoreDirty {
		d := w.burstDue(b)
		if !ok || d.Before(t) {
			t, ok = d, true
		}
	}
	return t, ok
}

// burstDue is when the subtree of b is due.
func (w *Watcher) burstDue(b *ignoreBurst) time.Time {
	t := b.last.Add(w.opts.Debounce)
	if m := b.first.Add(w.maxDelay()); m.Before(t) {
		return m
	}
	return t
}

// maxDelay is Options.MaxDelay or its default.
func (w *Watcher) maxDelay() time.Duration {
	if w.opts.MaxDelay > 0 {
		return w.opts.MaxDelay
	}
	return DefaultMaxDelay
}

// walkIgnoreChanges re-walks the subtrees whose rules changed: those that
// are due at now, or all of them if all is set (a sync barrier). A subtree
// under another one that is re-walked goes with it. A full re-walk wanted
// anyway covers them all.
func (w *Watcher) walkIgnoreChanges(ctx context.Context, now time.Time, all bool) {
	if len(w.ignoreDirty) == 0 {
		return
	}
	if w.needWalk != "" {
		return // the full re-walk clears them
	}
	var due []string
	for dir, b := range w.ignoreDirty {
		if all || !now.Before(w.burstDue(b)) {
			due = append(due, dir)
		}
	}
	slices.Sort(due) // a directory sorts before the paths under it
	var last string
	for _, dir := range due {
		if last != "" && strings.HasPrefix(dir, last+"/") {
			delete(w.ignoreDirty, dir)
			continue
		}
		last = dir
		// Dirty subtrees below this one are covered by its walk.
		for d := range w.ignoreDirty {
			if strings.HasPrefix(d, dir+"/") {
				delete(w.ignoreDirty, d)
			}
		}
		delete(w.ignoreDirty, dir)
		if err := w.rewalkUnder(ctx, dir); err != nil {
			return
		}
	}
}

// rewalkUnder makes the sink match a walk of the directory dir, under the
// rules in force now, and its watches match the directories under it that
// are not ignored: what the rules now ignore is dropped (entries and
// watches), what they no longer ignore is captured and watched.
func (w *Watcher) rewalkUnder(ctx context.Context, dir string) error {
	sink := w.sink.(SubtreeSink)
	w.subtreeWalks.Add(1)
	w.log.Debug(fmt.Sprintf("watcher: %s: ignore rules changed in %s: re-walking it", w.root, dir))
	w.pending.dropUnder(dir) // the walk covers what was waiting there
	w.pendingN.Store(int64(w.pending.len()))
	for p := range w.unreadable {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			delete(w.unreadable, p)
		}
	}
	w.gen++
	walked := false
	err := sink.ReconcileUnder(ctx, dir, func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
		wk := &Walker{
			Root: w.root, Start: dir, Ignorer: w.ig, VisitUnreadable: true,
			OnDir: func(rel string) error { w.addWatch(rel); return nil },
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
		w.pruneUnseenUnder(dir)
	}
	if err != nil {
		if ctx.Err() == nil {
			w.fail(fmt.Errorf("re-walk of %s: %w", dir, err))
		}
		w.needWalk = "retrying failed re-walk"
		w.log.Log(ctx, slog.LevelWarn, fmt.Sprintf("watcher: %s: re-walk of %s failed: %v", w.root, dir, err))
	}
	return err
}

// pruneUnseenUnder drops the watches of the directories under dir (and of
// dir itself) that the walk of the current generation did not see: gone,
// or ignored now.
func (w *Watcher) pruneUnseenUnder(dir string) {
	d, ok := w.dirs[dir]
	if !ok {
		return
	}
	if d.gen != w.gen {
		w.dropDirs(dir)
		return
	}
	var stale []string
	var visit func(d *dirWatch)
	visit = func(d *dirWatch) {
		for c := range d.children {
			cd := w.dirs[c]
			if cd == nil {
				continue
			}
			if cd.gen != w.gen {
				stale = append(stale, c)
				continue
			}
			visit(cd)
		}
	}
	visit(d)
	for _, rel := range stale {
		w.dropDirs(rel)
	}
}
