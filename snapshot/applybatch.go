package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"sync"
	"syscall"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/store"
)

// stageWorkers bounds the goroutines that read contents from the store and
// write temp files, and then rename them, in one batch: reading a content
// (decompress, check its hash) is CPU, creating a file waits on the file
// system, so a few more than the CPUs keep both busy.
var stageWorkers = min(16, 4*runtime.GOMAXPROCS(0))

// dirGroup is the writes of one batch into one directory. They go through
// an os.Root opened on that directory once: each file then costs one
// openat and one renameat of a single name, where a call on the
// workspace's root walks every directory of the path again, one openat
// each.
type dirGroup struct {
	dir  string
	root *os.Root // nil when the directory could not be made or opened
	err  error    // why root is nil
}

// batchDirs bounds the directories a batch writes into, each held open
// (with the directories above it) until the batch is renamed into place: a
// quarter of the open-file limit, at most 1024.
var batchDirs = func() int {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 64
	}
	return int(max(16, min(1024, lim.Cur/4)))
}()

// batchLen is how many of the writes that start order go in the next
// batch: up to writeBatch, into up to batchDirs directories.
func batchLen(order []store.IntentAction) int {
	dirs := map[string]bool{}
	n := 0
	for n < len(order) && n < writeBatch && order[n].State.Exists() {
		d := path.Dir(order[n].Path)
		if !dirs[d] && len(dirs) == batchDirs {
			break
		}
		dirs[d] = true
		n++
	}
	return max(n, 1)
}

// writeBatch stages every file of the batch, makes their data durable in
// one go, then renames each into place. Staging and renaming run on up to
// stageWorkers goroutines; each staging worker reads the contents it
// writes in one store transaction.
func (a *applier) writeBatch(batch []store.IntentAction) {
	byItem := a.openDirs(batch)
	defer func() {
		for dir, r := range a.openRoots {
			if dir != "." {
				r.Close()
			}
		}
		a.openRoots = nil
	}()
	keepOpen := len(batch) < syncfsFrom // for concurrent fsyncs
	staged := make([]stagedFile, len(batch))
	a.stageAll(batch, byItem, staged, keepOpen)
	a.mu.Lock()
	a.staged += len(batch)
	a.mu.Unlock()
	errs := syncStaged(a.root, staged)
	crashPoint(crashStaged)
	inParallel(len(batch), stageWorkers, func(i int) {
		act, s := batch[i], staged[i]
		if s.tmp == "" {
			return
		}
		g := byItem[i]
		if errs[i] != nil {
			g.root.Remove(s.tmp)
			a.fail(act.Path, errs[i])
			return
		}
		a.admit()
		if err := place(g.root, s.tmp, path.Base(act.Path)); err != nil {
			a.fail(act.Path, err)
			a.mu.Lock()
			a.counted()
			a.mu.Unlock()
			return
		}
		a.step(act.Path)
	})
}

// openDirs groups the batch by directory, creates the directories that
// are missing (parents first) and opens each through the workspace's root.
// A path that is not a workspace path is refused here; byItem is nil for
// it.
func (a *applier) openDirs(batch []store.IntentAction) []*dirGroup {
	byDir := map[string]*dirGroup{}
	byItem := make([]*dirGroup, len(batch))
	var groups []*dirGroup
	for i, act := range batch {
		if !validRel(act.Path) {
			a.failed[act.Path] = fault.Mark(fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused)
			continue
		}
		dir := path.Dir(act.Path)
		g := byDir[dir]
		if g == nil {
			g = &dirGroup{dir: dir}
			byDir[dir] = g
			groups = append(groups, g)
		}
		byItem[i] = g
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].dir < groups[j].dir })
	opened := map[string]*os.Root{".": a.root}
	for _, g := range groups {
		g.root, g.err = a.openDir(opened, g.dir)
	}
	a.openRoots = opened
	return byItem
}

// stageAll stages the batch's files on up to stageWorkers goroutines.
func (a *applier) stageAll(batch []store.IntentAction, byItem []*dirGroup, staged []stagedFile, keepOpen bool) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(batch), stageWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := a.ws.st.View(func(r *store.Reader) error {
				for i := range next {
					a.stageOne(r, batch[i], byItem[i], &staged[i], keepOpen)
				}
				return nil
			})
			if err != nil { // the store could not be read at all
				for i := range next {
					a.fail(batch[i].Path, err)
				}
			}
		}()
	}
	for i := range batch {
		if byItem[i] != nil {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}

// stageOne writes one file or symlink's target content to a temp file in
// its directory, unsynced: syncStaged syncs the batch. With keepOpen the
// file is left open for syncStaged to fsync and close.
func (a *applier) stageOne(r *store.Reader, act store.IntentAction, g *dirGroup, out *stagedFile, keepOpen bool) {
	if g.root == nil {
		a.fail(act.Path, g.err)
		return
	}
	data, err := r.Blob(act.State.Hash)
	if err != nil {
		a.fail(act.Path, err)
		return
	}
	tmp := path.Base(fsutil.TempName(act.Path))
	if act.State.Kind == store.Symlink {
		if err := g.root.Symlink(string(data), tmp); err != nil {
			a.fail(act.Path, err)
			return
		}
		*out = stagedFile{tmp: tmp}
		return
	}
	f, err := writeTemp(g.root, tmp, data, act.State.Mode)
	if err != nil {
		a.fail(act.Path, err)
		return
	}
	if !keepOpen {
		if err := f.Close(); err != nil {
			g.root.Remove(tmp)
			a.fail(act.Path, err)
			return
		}
		f = nil
	}
	*out = stagedFile{tmp: tmp, f: f, file: true}
}

// openDir opens dir through its parent, which it opens first the same
// way (opened holds what is open already), so each directory costs one
// openat: a directory that is missing is created, a new entry in its
// parent, which must be synced too.
func (a *applier) openDir(opened map[string]*os.Root, dir string) (*os.Root, error) {
	if r := opened[dir]; r != nil {
		return r, nil
	}
	parent, err := a.openDir(opened, path.Dir(dir))
	if err != nil {
		return nil, err
	}
	name := path.Base(dir)
	r, err := parent.OpenRoot(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err = parent.Mkdir(name, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
			a.dirs[path.Dir(dir)] = true
			r, err = parent.OpenRoot(name)
		}
	}
	if err != nil {
		return nil, err
	}
	opened[dir] = r
	return r, nil
}

// place renames a staged temp file over its target, both single names in
// the directory root is open on.
func place(root *os.Root, tmp, target string) error {
	err := root.Rename(tmp, target)
	if err == nil {
		return nil
	}
	if info, lerr := root.Lstat(target); lerr == nil && info.IsDir() {
		// A directory stands where the file goes: it yields if nothing but
		// empty directories is in it (ckpt captures no directories, so
		// those are all that can be left of what the target did not have).
		if err = removeEmptyTree(root, target); err == nil {
			err = root.Rename(tmp, target)
		}
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}
