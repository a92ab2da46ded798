package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/store"
)

// InternalPrefix starts the names of ckpt's own files in a workspace
// (restore temp files); the watcher never captures them.
const InternalPrefix = fsutil.InternalPrefix

// writeBatch bounds how many temp files are staged at once, which is what
// a crash can leave for the next Open to remove. A batch this large is made
// durable with one syncfs (durable.go), so it keeps no file open. The tests
// shrink it (TestMain) to restore in several batches.
var writeBatch = 2048

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
		n := 1
		for n < writeBatch && i+n < len(order) && order[i+n].State.Exists() {
			n++
		}
		a.writeBatch(order[i : i+n])
		i += n
	}
	if err := syncDirs(root, a.dirs, a.staged); err != nil {
		return a.failed, fmt.Errorf("restore: make the changes durable: %w", err)
	}
	crashPoint(crashApplied)
	return a.failed, nil
}

// applier carries one apply's state.
type applier struct {
	ws     *Workspace
	root   *os.Root
	done   int
	staged int // files staged so far: decides how directories are synced
	failed map[string]error
	dirs   map[string]bool // directories whose entries changed
}

func (a *applier) fail(p string, err error) {
	a.failed[p] = fmt.Errorf("restore %s: %w", p, err)
}

// step counts a change made on disk; the crash tests stop here.
func (a *applier) step(p string) {
	a.dirs[path.Dir(p)] = true
	a.done++
	crashStep(a.done)
}

func (a *applier) remove(act store.IntentAction) {
	if !validRel(act.Path) {
		a.failed[act.Path] = fault.Mark(fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused)
		return
	}
	emptied, err := remove(a.root, act.Path)
	if err != nil {
		a.fail(act.Path, err)
		return
	}
	for _, dir := range emptied {
		a.dirs[path.Dir(dir)] = true
	}
	a.step(act.Path)
}

// writeBatch stages every file of the batch, makes their data durable in
// one go, then renames each into place.
func (a *applier) writeBatch(batch []store.IntentAction) {
	keepOpen := len(batch) < syncfsFrom // for concurrent fsyncs
	staged := make([]stagedFile, len(batch))
	for i, act := range batch {
		if !validRel(act.Path) {
			a.failed[act.Path] = fault.Mark(fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused)
			continue
		}
		s, err := a.stage(act, keepOpen)
		if err != nil {
			a.fail(act.Path, err)
			continue
		}
		staged[i] = s
	}
	a.staged += len(batch)
	errs := syncStaged(a.root, staged)
	crashPoint(crashStaged)
	for i, act := range batch {
		s := staged[i]
		if s.tmp == "" {
			continue
		}
		if errs[i] != nil {
			a.root.Remove(s.tmp)
			a.fail(act.Path, errs[i])
			continue
		}
		if err := place(a.root, s.tmp, act.Path); err != nil {
			a.fail(act.Path, err)
			continue
		}
		a.step(act.Path)
	}
}

// stage writes one file or symlink's target content to a temp file in the
// target's directory, unsynced: syncStaged syncs the batch. With keepOpen
// the file is left open for syncStaged to fsync and close.
func (a *applier) stage(act store.IntentAction, keepOpen bool) (stagedFile, error) {
	data, err := a.ws.Blob(act.State.Hash)
	if err != nil {
		return stagedFile{}, err
	}
	dir := path.Dir(act.Path)
	if err := a.mkdirs(dir); err != nil {
		return stagedFile{}, err
	}
	tmp := fsutil.TempName(act.Path)
	if act.State.Kind == store.Symlink {
		return stagedFile{tmp: tmp}, a.root.Symlink(string(data), tmp)
	}
	f, err := writeTemp(a.root, tmp, data, act.State.Mode)
	if err != nil {
		return stagedFile{}, err
	}
	if !keepOpen {
		if err := f.Close(); err != nil {
			a.root.Remove(tmp)
			return stagedFile{}, err
		}
		f = nil
	}
	return stagedFile{tmp: tmp, f: f, file: true}, nil
}

// mkdirs creates dir and its missing parents. Each directory it creates is
// a new entry in its parent, which must be synced too.
func (a *applier) mkdirs(dir string) error {
	if dir == "." {
		return nil
	}
	if info, err := a.root.Lstat(dir); err == nil && info.IsDir() {
		return nil
	}
	if err := a.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for d := dir; d != "."; d = path.Dir(d) {
		a.dirs[path.Dir(d)] = true
	}
	return nil
}

// place renames a staged temp file over its target.
func place(root *os.Root, tmp, target string) error {
	if info, err := root.Lstat(target); err == nil && info.IsDir() {
		// A directory stands where the file goes: it yields if nothing but
		// empty directories is in it (ckpt captures no directories, so
		// those are all that can be left of what the target did not have).
		if err := removeEmptyTree(root, target); err != nil {
			root.Remove(tmp)
			return err
		}
	}
	if err := root.Rename(tmp, target); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
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
