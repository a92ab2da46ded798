package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cookiePrefix starts the names of sync cookies, in the workspace root.
const cookiePrefix = InternalPrefix + "cookie-"

// indexLockPoll is how often Sync looks at .git/index.lock while it exists.
var indexLockPoll = 10 * time.Millisecond

// isCookie reports whether a base name is a sync cookie's.
func isCookie(name string) bool { return strings.HasPrefix(name, cookiePrefix) }

// round is one cookie barrier, shared by every Sync that joined it before
// its cookie was created.
type round struct {
	name    string // cookie base name; set before the file is created
	created bool   // the creator has created the file
	seen    bool   // the processor has seen its event
	rewalk  bool   // a caller asked for a full re-walk (Rescan) before it completes
	closed  bool   // done is closed and err set
	done    chan struct{}
	err     error
}

// Sync is the cookie barrier. It creates a cookie file
// "<root>/.ckpt~cookie-<n>", waits until the processor sees its event, which
// flushes (without settle delay) every path queued before it into the sink,
// and waits for any pending re-walk (overflow) to finish. Then, while
// "<root>/.git/index.lock" exists (a git checkout in flight), it waits for
// the lock to go away and runs another round. The cookie is removed and its
// removal event ignored. Concurrent callers share rounds: a caller joins the
// next round to start, never one whose cookie already exists. A Sync made
// before the initial reconcile is done waits for it. Sync returns an error
// when ctx ends first, the watcher is not running, or the sink failed and
// the re-walk that followed failed too: never a stale success.
func (w *Watcher) Sync(ctx context.Context) error { return w.sync(ctx, "sync", false) }

// Rescan is Sync with a full re-walk (Sink.Reconcile: stat every file, read
// what differs) before its first round completes. It finds what no event
// reports: writes through a shared memory mapping, a hard link written
// through a name outside the workspace, changes the kernel dropped.
// Concurrent callers share a walk when they join the same round.
func (w *Watcher) Rescan(ctx context.Context) error { return w.sync(ctx, "rescan", true) }

// sync waits for the initial reconcile, then runs rounds until
// .git/index.lock is gone; rewalk makes the first re-walk the workspace.
func (w *Watcher) sync(ctx context.Context, op string, rewalk bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("watcher: %s %s: %w", op, w.root, err)
	}
	select {
	case <-w.ready:
	case <-w.done:
		return errClosed
	case <-ctx.Done():
		return fmt.Errorf("watcher: %s %s: %w", op, w.root, ctx.Err())
	}
	for {
		if err := w.syncRound(ctx, rewalk); err != nil {
			return err
		}
		rewalk = false
		held, err := WaitIndexLock(ctx, w.root)
		if err != nil || !held {
			return err
		}
		// A checkout finished while we waited: one more round for its writes.
	}
}

// syncRound joins the next round, starting it if none is in flight, and
// waits for it. rewalk makes the round re-walk the workspace: the round
// has not started, so its walk begins after this call.
func (w *Watcher) syncRound(ctx context.Context, rewalk bool) error {
	w.cmu.Lock()
	if w.finished {
		w.cmu.Unlock()
		return errClosed
	}
	if w.next == nil {
		w.next = &round{done: make(chan struct{})}
	}
	r := w.next
	r.rewalk = r.rewalk || rewalk
	start := w.cur == nil
	if start {
		w.cur, w.next = r, nil
	}
	w.cmu.Unlock()
	if start {
		w.startRound(r)
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return fmt.Errorf("watcher: sync %s: %w", w.root, ctx.Err())
	}
}

// startRound creates r's cookie file.
func (w *Watcher) startRound(r *round) {
	for {
		w.cmu.Lock()
		w.cookieN++
		name := cookiePrefix + strconv.FormatUint(w.cookieN, 10)
		r.name = name // before the file exists: its event may come at once
		w.cmu.Unlock()
		f, err := os.OpenFile(filepath.Join(w.root, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			w.finishRound(r, fmt.Errorf("watcher: sync: create cookie: %w", err))
			return
		}
		f.Close()
		w.cmu.Lock()
		r.created = true
		closed := r.closed
		w.cmu.Unlock()
		if closed {
			os.Remove(filepath.Join(w.root, name))
		}
		w.q.notify() // a degraded processor re-walks for it
		return
	}
}

// finishRound completes r with err, removes its cookie and starts the next
// round if callers are waiting for one.
func (w *Watcher) finishRound(r *round, err error) {
	w.cmu.Lock()
	if r.closed {
		w.cmu.Unlock()
		return
	}
	r.closed, r.err = true, err
	close(r.done)
	var next *round
	if w.cur == r {
		w.cur = nil
		if w.next != nil && !w.finished {
			next = w.next
			w.cur, w.next = next, nil
		}
	}
	name, created := r.name, r.created
	w.cmu.Unlock()
	if created {
		os.Remove(filepath.Join(w.root, name))
	}
	if next != nil {
		w.startRound(next)
	}
}

// cookieSeen is called by the processor for the event of cookie name: every
// event queued before it has been handled; flush them all now.
func (w *Watcher) cookieSeen(ctx context.Context, name string) {
	w.cmu.Lock()
	r := w.cur
	match := r != nil && r.name == name && !r.closed
	rescan := false
	if match {
		r.seen = true
		rescan = r.rewalk
	}
	w.cmu.Unlock()
	if !match || w.overflow.Load() {
		return // not ours; or the pending re-walk will complete it
	}
	w.walkIgnoreChanges(ctx, time.Now(), true)
	if err := w.flushAll(ctx); err != nil {
		w.needWalk = "capture failed"
	}
	if w.degraded && w.needWalk == "" {
		w.needWalk = "sync while directories are unwatched"
	}
	if rescan && w.needWalk == "" {
		w.needWalk = "rescan requested"
	}
	switch {
	case w.needWalk == "":
		w.finishRound(r, nil)
	case w.closing:
		w.finishRound(r, errClosed)
	default:
		w.rewalk(ctx, w.needWalk, slog.LevelInfo) // completes r
	}
}

// coveredRound returns the round in flight if its cookie exists now: a walk
// that starts after this call saw everything that happened before it.
func (w *Watcher) coveredRound() *round {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	r := w.cur
	if r == nil || r.closed || r.name == "" {
		return nil
	}
	if r.seen || r.created {
		return r
	}
	if _, err := os.Lstat(filepath.Join(w.root, r.name)); err == nil {
		return r
	}
	return nil
}

// cookieWaiting reports whether a round is waiting for its cookie's event.
func (w *Watcher) cookieWaiting() bool {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	return w.cur != nil && !w.cur.closed && w.cur.name != ""
}

// failRounds fails every round when Run returns.
func (w *Watcher) failRounds() {
	w.cmu.Lock()
	w.finished = true
	rs := []*round{w.cur, w.next}
	w.cur, w.next = nil, nil
	w.cmu.Unlock()
	for _, r := range rs {
		if r != nil {
			w.finishRound(r, errClosed)
		}
	}
}

// WaitIndexLock waits while root/.git/index.lock exists (a git command is
// mid-flight: the tree is neither the old commit nor the new one), and
// reports whether it existed at all. A scan that must not see a checkout
// half done waits for it first, as Sync does.
func WaitIndexLock(ctx context.Context, root string) (held bool, err error) {
	lock := filepath.Join(root, ".git", "index.lock")
	for {
		if _, err := os.Stat(lock); err != nil {
			return held, nil
		}
		held = true
		t := time.NewTimer(indexLockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return held, fmt.Errorf("watcher: sync: waiting for %s to go away (a git command is running): %w", lock, ctx.Err())
		case <-t.C:
		}
	}
}

// removeStaleCookies removes cookies left by a previous run that died.
func (w *Watcher) removeStaleCookies() {
	matches, _ := filepath.Glob(filepath.Join(w.root, cookiePrefix+"*"))
	for _, m := range matches {
		os.Remove(m)
	}
}
