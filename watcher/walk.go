package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// Walker lists a workspace: every directory once, in parallel, skipping what
// the Ignorer ignores without descending into ignored directories.
type Walker struct {
	Root    string
	Ignorer *Ignorer // nil = ignore nothing but .git and internal names
	Workers int      // directories listed at once; 0 = max(4, 2×GOMAXPROCS)

	// OnDir, if set, is called for every directory that is not ignored ("" for
	// the root) before the directory is listed, so a watch added there sees
	// every entry the listing misses. An error from it ends the walk.
	OnDir func(rel string) error
	// OnError, if set, is told about a directory or file that could not be
	// read (permission denied, vanished while listed). Such errors never end
	// the walk; an unreadable root does.
	OnError func(rel string, err error)
	// Start, if set, is the directory (workspace-relative, '/') to walk
	// instead of the whole workspace: only what lies under it is listed,
	// with the ignore rules of its ancestors in force. If Start is ignored,
	// or is not a directory, nothing is visited.
	Start string
	// VisitUnreadable, if set, also passes each directory or file that
	// could not be read (but exists) to visit, with an info for which
	// UnreadableError returns the error: what lies there is unknown, not
	// gone. A directory whose listing failed half-way is passed too, after
	// the entries that were read.
	VisitUnreadable bool
}

// defaultWalkWorkers is the number of directories listed at once when
// Walker.Workers is 0: listing is syscall-bound, so a few more goroutines than
// CPUs keep the CPUs busy while some wait on the disk.
func defaultWalkWorkers() int {
	return max(4, runtime.GOMAXPROCS(0)*2)
}

// Walk calls visit for every regular file and symlink under Root that is not
// ignored, with its Lstat info. Symlinks are never followed; other types
// (fifos, sockets, devices) are skipped. Calls to visit, OnDir and OnError
// come from one goroutine at a time, in no particular order; rel uses '/'.
// Walk returns ctx.Err() if ctx ends first, or the first error returned by
// visit or OnDir. With a nil visit it only lists directories.
func (w *Walker) Walk(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error {
	return w.run(ctx, visit)
}

// Dirs counts the directories Walk would list, the root included: the
// watches a recursive watch needs. Files are not stat'ed.
func (w *Walker) Dirs(ctx context.Context) (int, error) {
	n := 0
	cw := *w
	cw.OnDir = func(rel string) error {
		n++
		if w.OnDir != nil {
			return w.OnDir(rel)
		}
		return nil
	}
	err := cw.run(ctx, nil)
	return n, err
}

// walkDir is a directory waiting to be listed, with the rule lists that
// apply to it (its parent's chain: deepest first, only non-empty lists).
type walkDir struct {
	rel   string
	chain []*ruleList
}

type walkFile struct {
	rel  string
	info fs.FileInfo
}

// walkRun is one walk: a LIFO queue of directories shared by the workers.
type walkRun struct {
	w       *Walker
	ctx     context.Context
	visit   func(string, fs.FileInfo) error
	ig      *Ignorer
	info    *ruleList // .git/info/exclude as of the walk's start
	workers int

	mu      sync.Mutex
	cond    sync.Cond
	queue   []walkDir
	pending int // directories queued or being listed
	err     error
	failed  atomic.Bool

	cbMu sync.Mutex // serializes visit, OnDir and OnError

	longMu   sync.Mutex
	longRoot *os.Root // Root, opened for the first path longer than PATH_MAX
}

func (w *Walker) run(ctx context.Context, visit func(string, fs.FileInfo) error) error {
	r := &walkRun{w: w, ctx: ctx, visit: visit, ig: w.Ignorer, workers: w.Workers}
	if r.workers <= 0 {
		r.workers = defaultWalkWorkers()
	}
	if r.ig != nil {
		r.info = r.ig.refreshInfo()
	}
	r.cond.L = &r.mu
	start := walkDir{rel: w.Start}
	if w.Start != "" {
		fi, err := os.Lstat(r.abs(w.Start))
		if err != nil || !fi.IsDir() || (r.ig != nil && r.ig.Ignored(w.Start, true)) {
			return nil
		}
		if r.ig != nil {
			start.chain = r.ig.chainAbove(w.Start)
		}
	}
	r.queue = append(r.queue, start)
	r.pending = 1
	var wg sync.WaitGroup
	for range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work()
		}()
	}
	wg.Wait()
	if r.longRoot != nil {
		r.longRoot.Close()
	}
	return r.err
}

// openDir opens the directory rel for listing. A path longer than
// PATH_MAX cannot be opened whole: it is reached one directory at a time
// (openat) through an os.Root on the workspace, which also keeps it from
// following a symlink out of the workspace.
func (r *walkRun) openDir(rel string) (*os.File, error) {
	f, err := openDir(r.abs(rel))
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		return f, err
	}
	r.longMu.Lock()
	if r.longRoot == nil {
		if root, rerr := os.OpenRoot(r.w.Root); rerr == nil {
			r.longRoot = root
		}
	}
	root := r.longRoot
	r.longMu.Unlock()
	if root == nil {
		return nil, err
	}
	return root.Open(filepath.FromSlash(rel))
}

func (r *walkRun) work() {
	var s walkScratch
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && r.pending > 0 && r.err == nil {
			r.cond.Wait()
		}
		if r.err != nil || len(r.queue) == 0 {
			r.mu.Unlock()
			return
		}
		d := r.queue[len(r.queue)-1]
		r.queue = r.queue[:len(r.queue)-1]
		r.mu.Unlock()

		r.list(d, &s)

		r.mu.Lock()
		r.pending--
		if r.pending == 0 {
			r.cond.Broadcast()
		}
		r.mu.Unlock()
	}
}

// fail ends the walk with err, unless it already ended.
func (r *walkRun) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
		r.failed.Store(true)
	}
	r.cond.Broadcast()
	r.mu.Unlock()
}

// push queues subdirectories for the workers.
func (r *walkRun) push(dirs []walkDir) {
	if len(dirs) == 0 {
		return
	}
	r.mu.Lock()
	r.queue = append(r.queue, dirs...)
	r.pending += len(dirs)
	for i := 0; i < len(dirs) && i < r.workers; i++ {
		r.cond.Signal()
	}
	r.mu.Unlock()
}

// entryError reports a per-entry error; at the root it ends the walk.
func (r *walkRun) entryError(rel string, err error) {
	if rel == "" {
		r.fail(fmt.Errorf("watcher: walk: %w", err)) // err names the path
		return
	}
	if r.w.OnError != nil {
		r.cbMu.Lock()
		if !r.failed.Load() {
			r.w.OnError(rel, err)
		}
		r.cbMu.Unlock()
	}
}

// ignored applies, with an Ignorer, the rules of the chain and the root-wide
// lists. The parent is known not ignored, and name is not always ignored.
func (r *walkRun) ignored(chain []*ruleList, rel, name string, isDir bool) bool {
	if r.ig == nil {
		return false
	}
	for _, l := range chain {
		if m, neg := l.match(rel, name, isDir); m {
			return !neg
		}
	}
	return r.ig.matchGlobal(r.info, rel, name, isDir)
}

func (r *walkRun) abs(rel string) string {
	if rel == "" {
		return r.w.Root
	}
	return filepath.Join(r.w.Root, filepath.FromSlash(rel))
}
