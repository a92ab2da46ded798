package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Sink receives what the watcher saw. snapshot.Workspace implements it (it
// lstat's, hashes and journals the paths). The watcher calls it from one
// goroutine at a time.
type Sink interface {
	// Capture records the current state of these workspace-relative paths
	// ('/'-separated, sorted, never "", never internal or under .git). A
	// path that no longer exists is a deletion (of the file, or of
	// everything under it if it was a directory); an lstat error ENOTDIR
	// (an ancestor became a file) means the same. A path that is a
	// directory now was a file, or a subtree, that was replaced: a file
	// entry at exactly that path is deleted and the entries below it are
	// re-checked (the watcher sends the files of a new directory itself;
	// the sink need not list it). Paths are already filtered by the ignore
	// rules, and may have been deleted again by the time Capture runs.
	Capture(ctx context.Context, paths []string) error
	// Reconcile makes the store match a full walk: walk calls visit for
	// every current file; files not visited are deleted, except under a
	// path that walk could not read: walk passes each such directory or
	// file to visit with an info for which UnreadableError is non-nil, and
	// what lies there is unknown, not gone. walk adds and drops the
	// watcher's directory watches as it goes: call it once.
	Reconcile(ctx context.Context, walk func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error) error
}

// Options tune a Watcher. The zero value works.
type Options struct {
	Debounce       time.Duration // settle delay per path (config debounce); 0 = flush at once
	MaxDelay       time.Duration // bound: a path that keeps changing is flushed at least this often; 0 = DefaultMaxDelay
	QueueSize      int           // in-process queue; full = overflow = re-walk; 0 = DefaultQueueSize
	RescanInterval time.Duration // periodic safety re-walk; 0 = off
	Logger         *slog.Logger  // nil = silent; used from several goroutines; each line's level is chosen where it is logged
}

// DefaultMaxDelay bounds coalescing when Options.MaxDelay is 0 (config
// max_delay has the same default).
var DefaultMaxDelay = 500 * time.Millisecond

// DegradedRescanInterval is how often the whole workspace is re-walked while
// some directory could not be watched (the inotify watch limit was reached),
// unless Options.RescanInterval is shorter.
var DegradedRescanInterval = time.Minute

// captureBatch is the largest number of paths handed to one Sink.Capture.
var captureBatch = 1024

// errRootGone is recorded when the workspace root itself is removed or moved.
var errRootGone = errors.New("the workspace root was removed or moved; restart the daemon on the new location")

// errClosed is returned by Sync when Run is not (or no longer) running.
var errClosed = errors.New("watcher: not running")

// Stats is a snapshot of the watcher's health, for ckpt status.
type Stats struct {
	WatchedDirs int   // directories with an inotify watch
	QueueDepth  int   // events queued plus paths waiting for their settle delay
	Overflows   int64 // kernel or in-process queue overflows (each one caused a re-walk)
	Rewalks     int64 // full re-walks: initial, overflow, watcher error, a root ignore-rule change, periodic
	// SubtreeWalks counts re-walks of one directory whose .gitignore or
	// .ckptignore changed.
	SubtreeWalks int64
	LastError    string    // the last error (watch limit, sink failure, watcher error); "" = none
	LastErrorAt  time.Time // when LastError happened
	Events       int64     // fsnotify events received
	// Degraded, when some directory has no watch, names them and says
	// why; nil when every directory is watched.
	Degraded *Degraded
}

// Watcher keeps a Sink up to date with every change under a workspace root.
// See doc.go for the algorithm.
type Watcher struct {
	root   string // absolute, clean
	prefix string // root + "/"
	ig     *Ignorer
	sink   Sink
	opts   Options
	log    *slog.Logger

	q       *eventQueue
	reconf  reconfig      // settings handed over by Reconfigure
	ready   chan struct{} // closed after the initial reconcile
	done    chan struct{} // closed when Run returns
	started atomic.Bool

	// overflow is set by the drain goroutine (full queue, watcher error)
	// and consumed by the processor, which then re-walks.
	overflow    atomic.Bool
	overflowMu  sync.Mutex
	overflowWhy string

	// Owned by the processor goroutine (Run), and by Walker callbacks while
	// the processor waits inside Sink.Reconcile.
	fsw      *fsnotify.Watcher
	addFn    func(abs string) error // fsw.Add; tests inject failures
	dirs     map[string]*dirWatch   // watched directories by rel
	byID     map[fileID]string      // watched directories by identity
	gen      uint64                 // full-walk generation, to find stale watches
	pending  *pendingSet
	needWalk string    // why a re-walk is wanted ("" = not wanted)
	lastWalk time.Time // when the last full walk started
	retryAt  time.Time // no automatic re-walk before (after a failed one)
	backoff  time.Duration
	degraded bool // some directory is not watched: rely on re-walks
	closing  bool // Run is delivering what is left: no more re-walks
	limitHit bool // the watch limit was hit during the current walk
	// unreadable: directories that could not be listed (by the last walk,
	// or since): when one changes, a re-walk finds what it holds.
	unreadable map[string]bool
	unwatched  unwatchedSet // directories without a watch (degraded.go)
	// ignoreDirty: directories whose ignore rules changed, waiting for
	// their subtree to be re-walked (watch_ignore.go).
	ignoreDirty map[string]*ignoreBurst

	// Cookie rounds (cookie.go), under cmu.
	cmu      sync.Mutex
	cur      *round // in flight: cookie created or being created
	next     *round // callers waiting for the next round
	cookieN  uint64
	finished bool // Run returned: no round can complete any more

	// Stats.
	watched      atomic.Int64
	pendingN     atomic.Int64
	overflows    atomic.Int64
	rewalks      atomic.Int64
	subtreeWalks atomic.Int64
	events       atomic.Int64
	smu          sync.Mutex
	lastErr      string
	lastErrAt    time.Time
	// degradedInfo is the unwatched directories as Stats reports them;
	// nil when every directory is watched.
	degradedInfo *Degraded
}

// New returns a Watcher for the workspace root. ig decides what is ignored
// (nil = NewIgnorer(root, nil)). Nothing happens until Run.
func New(root string, ig *Ignorer, sink Sink, opts Options) (*Watcher, error) {
	if sink == nil {
		return nil, errors.New("watcher: nil sink")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("watcher: %w", err)
	}
	if ig == nil {
		ig = NewIgnorer(abs, nil)
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = DefaultMaxDelay
	}
	if opts.Debounce < 0 {
		opts.Debounce = 0
	}
	prefix := abs + string(filepath.Separator)
	if abs == string(filepath.Separator) {
		prefix = abs
	}
	w := &Watcher{
		root:    abs,
		prefix:  prefix,
		ig:      ig,
		sink:    sink,
		opts:    opts,
		log:     opts.Logger,
		q:       newEventQueue(opts.QueueSize),
		ready:   make(chan struct{}),
		done:    make(chan struct{}),
		dirs:    make(map[string]*dirWatch),
		byID:    make(map[fileID]string),
		pending: newPendingSet(opts.Debounce, opts.MaxDelay),
		cookieN: uint64(time.Now().UnixNano()),
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w, nil
}

// Ready is closed once the initial reconcile is done.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Stats returns the watcher's current counters.
func (w *Watcher) Stats() Stats {
	w.smu.Lock()
	defer w.smu.Unlock()
	return Stats{
		WatchedDirs:  int(w.watched.Load()),
		QueueDepth:   w.q.len() + int(w.pendingN.Load()),
		Overflows:    w.overflows.Load(),
		Rewalks:      w.rewalks.Load(),
		SubtreeWalks: w.subtreeWalks.Load(),
		LastError:    w.lastErr,
		LastErrorAt:  w.lastErrAt,
		Events:       w.events.Load(),
		Degraded:     w.degradedInfo,
	}
}

// fail records err as the last error and logs it.
func (w *Watcher) fail(err error) {
	w.smu.Lock()
	w.lastErr = err.Error()
	w.lastErrAt = time.Now()
	w.smu.Unlock()
	w.log.Warn(fmt.Sprintf("watcher: %s: %v", w.root, err))
}

// Run adds the watches (a directory's watch first, then its listing), does
// the initial Reconcile (it catches changes made while no daemon ran), then
// processes events until ctx is done. On return every event received has
// been delivered to the sink. Run returns nil when ctx ends it, and an error
// when it cannot start: inotify unavailable, or the initial reconcile failed
// (for any reason but the sink running out of space: ENOSPC).
func (w *Watcher) Run(ctx context.Context) (err error) {
	if !w.started.CompareAndSwap(false, true) {
		return errors.New("watcher: Run called twice")
	}
	defer close(w.done)
	defer w.failRounds()
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watcher: %w", instanceLimitError(err))
	}
	w.fsw = fsw
	if w.addFn == nil {
		w.addFn = fsw.Add
	}
	drained := make(chan struct{})
	go w.drain(fsw, drained)
	defer func() {
		fsw.Close()
		<-drained
		w.finish(context.WithoutCancel(ctx))
	}()

	w.removeStaleCookies()
	if err := w.rewalk(ctx, "", slog.LevelInfo); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		// A sink out of space is retried like any failed re-walk (rewalk
		// set the backoff): the workspace is served meanwhile, and Sync
		// fails with the error until a re-walk succeeds.
		if !errors.Is(err, syscall.ENOSPC) {
			return fmt.Errorf("watcher: initial reconcile of %s: %w", w.root, err)
		}
	}
	close(w.ready)
	w.loop(ctx)
	return nil
}
