package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/ckptdev/ckpt/store"
)

// WalkFunc lists every file of the workspace that is captured: it calls
// visit with each one's workspace-relative path and lstat info. A
// directory or file it could not read is passed with an info whose Mode
// has fs.ModeIrregular and whose Sys is the error (watcher.Walker with
// VisitUnreadable): its entries, and those under it, keep their state.
type WalkFunc = func(ctx context.Context, visit func(rel string, info fs.FileInfo) error) error

// candidate is a path whose stat tuple differs from its entry.
type candidate struct {
	path    string
	info    fs.FileInfo
	prev    store.State
	hadPrev bool
	// fast: encode with the first import's codec (store.EncodeBlobFast).
	fast bool
	// gone: what the same capture deletes, for a new path's delta base
	// (crosspath.go); nil for none.
	gone goneByName
}

// Capture records the current state of paths (workspace-relative, '/').
// A path that is gone, or that now lies behind something other than a real
// directory (a symlink, a file), is a deletion: of its entry and of every
// entry under it. A path that is a directory has every entry under it
// checked again.
func (ws *Workspace) Capture(ctx context.Context, paths []string) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var c *classifier
	err := ws.st.View(func(r *store.Reader) error {
		c = &classifier{root: ws.root, r: r, dirs: map[string]bool{}, seen: map[string]bool{}, gone: map[string]store.State{}, links: ws.links, unread: unreadableSet{}}
		for _, p := range paths {
			if !validRel(p) {
				continue
			}
			if err := c.path(p, true); err != nil {
				return err
			}
		}
		return c.findLinks()
	})
	if err != nil {
		return err
	}
	err = ws.ingest(ctx, c.cands, c.gone, ws.attr(), c.unread)
	ws.noteCaptured(c)
	return err
}

// noteCaptured updates the unreadable paths with what a capture found:
// every path it examined is known again unless it found it unreadable, and
// nothing is known under a path that is gone.
func (ws *Workspace) noteCaptured(c *classifier) {
	if ws.unreadable == nil {
		ws.unreadable = unreadableSet{}
	}
	for p := range c.seen {
		delete(ws.unreadable, p)
	}
	for p := range c.gone {
		ws.unreadable.dropUnder(p)
	}
	for p := range c.absent {
		ws.unreadable.dropUnder(p)
	}
	for p, why := range c.unread {
		ws.unreadable[p] = why
	}
}

// classifier sorts captured paths into candidates to read and deletions.
type classifier struct {
	root  string
	r     *store.Reader
	dirs  map[string]bool // ancestor -> is a real directory
	seen  map[string]bool
	cands []candidate
	gone  map[string]store.State
	links linkIndex // the workspace's; the other names of a changed file are captured too
	// unknown: multiply-linked files met whose other names the index does
	// not know, by inode (findLinks looks them up).
	unknown map[uint64][]fileID
	// unread: paths that could not be read (they keep their entries);
	// absent: paths that are not there (nothing is unknown under them).
	unread unreadableSet
	absent map[string]bool
}

func (c *classifier) path(p string, expand bool) error {
	if c.seen[p] {
		return nil
	}
	c.seen[p] = true
	prev, had, err := c.r.Entry(p)
	if err != nil {
		return err
	}
	info, err := c.lstat(p)
	if err != nil && !isNotExist(err) {
		c.unread[p] = errText(err) // unknown: its entry stays as it was
		return nil
	}
	captured := err == nil && (info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0)
	switch {
	case captured && had && unchanged(prev, statState(info)):
	case captured:
		c.cands = append(c.cands, candidate{path: p, info: info, prev: prev, hadPrev: had})
	case had:
		c.gone[p] = prev
	}
	if captured {
		if err := c.linked(p, info); err != nil {
			return err
		}
	}
	if !expand {
		return nil
	}
	if err == nil && info.IsDir() {
		if rerr := readableDir(c.root, p); rerr != nil {
			c.unread[p] = errText(rerr) // what lies under it is unknown
			return nil
		}
	} else {
		if c.absent == nil {
			c.absent = map[string]bool{}
		}
		c.absent[p] = true
	}
	var under []string
	err = c.r.Entries(p+"/", func(q string, st store.State) error {
		under = append(under, q)
		return nil
	})
	if err != nil {
		return err
	}
	for _, q := range under {
		if err := c.path(q, false); err != nil {
			return err
		}
	}
	return nil
}

// lstat is os.Lstat that does not look through symlinks in the parent
// directories: a path whose parent is not a real directory is not there.
func (c *classifier) lstat(p string) (fs.FileInfo, error) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && !c.realDir(p[:i]) {
		return nil, fs.ErrNotExist
	}
	return lstatRel(c.root, p)
}

func (c *classifier) realDir(dir string) bool {
	if ok, known := c.dirs[dir]; known {
		return ok
	}
	ok := true
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		ok = c.realDir(dir[:i])
	}
	if ok {
		info, err := lstatRel(c.root, dir)
		ok = err == nil && info.IsDir()
	}
	c.dirs[dir] = ok
	return ok
}

// Reconcile makes the store match a full walk of the workspace: stat
// first, hash only what differs; files the walk did not visit are deleted.
// With Options.CheckMappings, files a process has mapped shared and
// writable are read whatever their stat says (mapped.go).
func (ws *Workspace) Reconcile(ctx context.Context, walk WalkFunc) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.reconcile(ctx, walk, "", ws.attr(), ws.opts.CheckMappings)
}

// Rescan is Reconcile with CheckMappings, whatever the options say.
func (ws *Workspace) Rescan(ctx context.Context, walk WalkFunc) error {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.reconcile(ctx, walk, "", ws.attr(), true)
}

// reconcile makes the entries under the directory under ("": the whole
// workspace) match what walk visits.
func (ws *Workspace) reconcile(ctx context.Context, walk WalkFunc, under string, attr store.Attr, checkMappings bool) error {
	// The entries load while the walk runs: both are mostly waiting on
	// the kernel and the store, and a status must cost about one of them.
	// Each visited path is compared as it comes (reconcileScan).
	prefix, hint := "", ws.st.Fingerprint().Count
	if under != "" {
		prefix, hint = under+"/", 0
	}
	s := ws.newReconcileScan(prefix, hint, checkMappings)
	if err := s.finish(walk(ctx, s.visit)); err != nil {
		return err
	}
	ws.setLinks(under, s.links)
	err := ws.ingest(ctx, s.cands, s.known, attr, s.unread)
	ws.setUnreadable(under, s.unread)
	return err
}

// ingest reads the candidates in parallel and records what changed, and
// records the gone paths as deleted, in as few transactions as fit.
// A candidate that cannot be read keeps its entry and goes into unread.
func (ws *Workspace) ingest(ctx context.Context, cands []candidate, gone map[string]store.State, attr store.Attr, unread unreadableSet) error {
	if len(cands) == 0 && len(gone) == 0 {
		return nil
	}
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return err
	}
	defer root.Close()
	if len(gone) > 0 {
		byName := newGoneByName(gone)
		for i := range cands {
			if !cands[i].hadPrev {
				cands[i].gone = byName
			}
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := ws.readParallel(ctx, root, cands)
	defer func() {
		cancel()
		for _, ok := results.recv(); ok; _, ok = results.recv() {
		}
	}()

	prev := make(map[string]candidate, len(cands))
	for _, c := range cands {
		prev[c.path] = c
	}
	// A scan soon after an edit re-hashes the edited files (racy stat) and
	// mostly finds them as recorded: then nothing is written at all, and a
	// store opened for reading only is never reopened for writing.
	var first *observed
	if len(gone) == 0 {
		for o, ok := results.recv(); ok; o, ok = results.recv() {
			if !settlesNothing(prev[o.path], o) {
				first = &o
				break
			}
		}
		if first == nil {
			return ctx.Err()
		}
	}
	head := ws.st.Head()
	defer func() { ws.emitChanges(head, ws.st.Head()) }()
	return ws.st.Write(func(w *store.Writer) error {
		var batch journalBatch
		if first != nil {
			if err := ws.stage(w, &batch, prev[first.path], *first, unread); err != nil {
				return err
			}
		}
		done := 0
		for o, ok := results.recv(); ok; o, ok = results.recv() {
			if err := ws.stage(w, &batch, prev[o.path], o, unread); err != nil {
				return err
			}
			done++
			if ws.opts.Progress != nil && len(cands) > 1000 && done%500 == 0 {
				ws.opts.Progress(done, len(cands))
			}
		}
		if ws.opts.Progress != nil && len(cands) > 1000 {
			ws.opts.Progress(len(cands), len(cands))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return batch.record(w, gone, attr)
	})
}

// readParallel reads the candidates on the workspace's workers and sends
// what each holds down the returned pipe, which is closed when all are
// read. Once ctx is done no further candidate is handed out; the caller
// drains the pipe.
func (ws *Workspace) readParallel(ctx context.Context, root *os.Root, cands []candidate) *pipe {
	results := newPipe(len(cands))
	jobs := make(chan candidate)
	var wg sync.WaitGroup
	for range min(ws.opts.Workers, max(len(cands), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs := dirCache{root: root}
			defer dirs.close()
			for c := range jobs {
				r, name := dirs.lookup(c.path)
				results.send(ws.read(r, nil, name, c))
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, c := range cands {
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); results.close() }()
	return results
}

// settlesNothing reports whether recording o would change nothing that
// matters: the content is the entry's, and the file is still inside the racy
// window, so the next scan re-hashes it whatever stat tuple is recorded.
func settlesNothing(c candidate, o observed) bool {
	st := o.state
	return o.err == nil && c.hadPrev && c.prev.SameContent(st) && (c.prev.Stored || !st.Stored) &&
		st.Mtime >= st.Recorded-int64(racyWindow)
}

// stage does what recording o needs before its journal entry: it stores
// the content, notes what could not be read, rewrites an entry whose
// content did not change, and adds a change to the batch.
func (ws *Workspace) stage(w *store.Writer, b *journalBatch, c candidate, o observed, unread unreadableSet) error {
	if settlesNothing(c, o) {
		return nil
	}
	st := o.state
	if o.err != nil && !st.Exists() {
		// Vanished between the walk and the read: a deletion if we knew it.
		if c.hadPrev {
			b.vanished = append(b.vanished, c)
		}
		return nil
	}
	if o.err != nil {
		// There but unreadable: what it holds is unknown, so its entry
		// (or its absence) stays as recorded.
		unread[c.path] = errText(o.err)
		return nil
	}
	if o.chunks != nil {
		if err := w.PutBlob(st.Hash, o.chunks); err != nil {
			return err
		}
	}
	if c.hadPrev && c.prev.SameContent(st) && (c.prev.Stored || !st.Stored) {
		st.Seq, st.Stored = c.prev.Seq, c.prev.Stored
		return w.Touch(c.path, st)
	}
	b.written = append(b.written, staged{c: c, st: st})
	return nil
}

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// validRel reports whether p is a clean workspace-relative path.
func validRel(p string) bool {
	if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}
