package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/store"
)

// InternalPrefix starts the names of ckpt's own files in a workspace
// (restore temp files); the watcher never captures them.
const InternalPrefix = fsutil.InternalPrefix

// writeBatch bounds how many temp files are staged at once, which is what
// a crash can leave for the next Open to remove (and the room they take
// beside the files they replace). A batch this large is made durable with
// one syncfs (durable.go), so it keeps no file open. The tests shrink it
// (TestMain) to restore in several batches.
var writeBatch = 4096

// apply writes the actions through an os.Root on the workspace, so no write
// can leave it whatever the stored paths or the symlinks on disk say.
// Removals go first, deepest first; then writes, parents before children,
// in batches: stage each file as a temp file beside its target, make the
// batch's data durable (durable.go), then rename each into place, so no
// file is ever seen half-written, not even after a power loss. Last, the
// directories whose entries changed are synced: when apply returns, every
// change it made is durable, which the caller relies on before it records
// the restore as done. A failed path does not stop the others; it is
// returned in failed.
func (ws *Workspace) apply(actions []store.IntentAction) (map[string]error, error) {
	root, err := os.OpenRoot(ws.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	order := make([]store.IntentAction, len(actions))
	copy(order, actions)
	sort.SliceStable(order, func(i, j int) bool {
		ei, ej := order[i].State.Exists(), order[j].State.Exists()
		if ei != ej {
			return !ei
		}
		if !ei {
			return order[i].Path > order[j].Path
		}
		return order[i].Path < order[j].Path
	})
	a := applier{ws: ws, root: root, failed: map[string]error{}, dirs: map[string]bool{}}
	for i := 0; i < len(order); {
		if !order[i].State.Exists() {
			a.remove(order[i])
			i++
			continue
		}
		n := batchLen(order[i:])
		a.writeBatch(order[i : i+n])
		i += n
	}
	if err := syncDirs(root, a.dirs, a.staged); err != nil {
		return a.failed, fmt.Errorf("restore: make the changes durable: %w", err)
	}
	crashPoint(crashApplied)
	return a.failed, nil
}

// applier carries one apply's state. mu guards done, failed and dirs,
// which the workers of a batch (applybatch.go) update.
type applier struct {
	ws   *Workspace
	root *os.Root
	mu   sync.Mutex
	slow sync.Mutex // CKPT_TEST_SLOW_RESTORE: one change at a time
	done int        // changes made (or failed) on disk
	// admitted: changes begun, for the crash tests (admit).
	admitted int
	staged   int // files staged so far: decides how directories are synced
	failed   map[string]error
	dirs     map[string]bool // directories whose entries changed
	// openRoots: the directories the batch being written holds open.
	openRoots map[string]*os.Root
}

func (a *applier) fail(p string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failed[p] = fmt.Errorf("restore %s: %w", p, err)
}

// step counts a change made on disk; the crash tests stop here.
func (a *applier) step(p string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dirs[path.Dir(p)] = true
	a.counted()
}

// counted counts a change made or failed; the crash tests stop here.
func (a *applier) counted() {
	a.done++
	crashStep(a.done)
}

// admit is called before each change: with CKPT_TEST_CRASH_AFTER=N, the
// workers that would begin a change after the N-th wait for the one that
// makes the N-th to stop the process, so exactly N changes are on disk
// when it stops, however many workers run. With CKPT_TEST_SLOW_RESTORE
// the changes begin one at a time, that long apart.
func (a *applier) admit() {
	if slowRestore > 0 {
		a.slow.Lock()
		time.Sleep(slowRestore)
		a.slow.Unlock()
	}
	if crashAfter <= 0 {
		return
	}
	a.mu.Lock()
	a.admitted++
	n := a.admitted
	a.mu.Unlock()
	if n > crashAfter {
		select {} // the process exits at the crashAfter-th change
	}
}

func (a *applier) remove(act store.IntentAction) {
	if !validRel(act.Path) {
		a.failed[act.Path] = fault.Mark(fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused)
		return
	}
	a.admit()
	emptied, err := remove(a.root, act.Path)
	if err != nil {
		a.fail(act.Path, err)
		a.mu.Lock()
		a.counted()
		a.mu.Unlock()
		return
	}
	for _, dir := range emptied {
		a.dirs[path.Dir(dir)] = true
	}
	a.step(act.Path)
}

// writeTemp creates name, writes data with mode and returns it open.
func writeTemp(root *os.Root, name string, data []byte, mode fs.FileMode) (*os.File, error) {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed it
	}
	if err != nil {
		f.Close()
		root.Remove(name)
		return nil, err
	}
	return f, nil
}

// removeEmptyTree removes dir if it holds only directories, deepest first.
// It removes nothing if there is any file, link or other entry anywhere in
// it.
func removeEmptyTree(root *os.Root, dir string) error {
	var dirs []string
	err := fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return fmt.Errorf("%s is in the way: %w", p, fs.ErrExist)
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := root.Remove(dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// removeStaleTemps deletes restore temp files that a crash left in the
// directories an intent writes to.
func removeStaleTemps(root *os.Root, actions []store.IntentAction) {
	seen := map[string]bool{}
	for _, a := range actions {
		dir := path.Dir(a.Path)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := fs.ReadDir(root.FS(), dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), fsutil.TempPrefix) {
				root.Remove(path.Join(dir, e.Name()))
			}
		}
	}
}

// remove deletes a file and then every parent directory it left empty,
// and returns those directories. A path that is not there is removed
// already, also when a file stands where its parent was (a restore run
// again after a crash finds the file it wrote there).
func remove(root *os.Root, name string) ([]string, error) {
	err := root.Remove(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, err
	}
	var emptied []string
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if root.Remove(dir) != nil {
			break
		}
		emptied = append(emptied, dir)
	}
	return emptied, nil
}
