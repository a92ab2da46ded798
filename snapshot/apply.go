package snapshot

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ckptdev/ckpt/store"
)

// InternalPrefix starts the names of ckpt's own files in a workspace
// (restore temp files); the watcher never captures them.
const InternalPrefix = ".ckpt~"

// crashAfter, when positive, makes apply exit the process after that many
// writes: the crash tests use it to stop a restore midway. It is read from
// CKPT_TEST_CRASH_AFTER.
var crashAfter, _ = strconv.Atoi(os.Getenv("CKPT_TEST_CRASH_AFTER"))

// writeBatch is how many files are staged before one syncfs makes them
// all durable: one flush for many files instead of an fsync each.
const writeBatch = 256

// apply writes the actions through an os.Root on the workspace, so no write
// can leave it whatever the stored paths or the symlinks on disk say.
// Removals go first, deepest first; then writes, parents before children,
// in batches: stage each file as a temp file beside its target, make the
// batch durable with one syncfs, then rename each into place. No file is
// ever seen half-written. A failed path does not stop the others; it is
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
		n := min(writeBatch, len(order)-i)
		a.writeBatch(order[i : i+n])
		i += n
	}
	for dir := range a.dirs {
		if d, err := root.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return a.failed, nil
}

// applier carries one apply's state.
type applier struct {
	ws     *Workspace
	root   *os.Root
	done   int
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
	if crashAfter > 0 && a.done == crashAfter {
		os.Exit(3)
	}
}

func (a *applier) remove(act store.IntentAction) {
	if !validRel(act.Path) {
		a.failed[act.Path] = markErr{fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused}
		return
	}
	if err := remove(a.root, act.Path); err != nil {
		a.fail(act.Path, err)
		return
	}
	a.step(act.Path)
}

// fsyncEach: a batch smaller than this fsyncs its files one by one; a
// syncfs would also flush whatever else the file system has pending.
const fsyncEach = 16

func (a *applier) writeBatch(batch []store.IntentAction) {
	each := len(batch) < fsyncEach
	temps := make([]string, len(batch))
	for i, act := range batch {
		if !validRel(act.Path) {
			a.failed[act.Path] = markErr{fmt.Errorf("%q is not a workspace path", act.Path), ErrRefused}
			continue
		}
		tmp, err := a.ws.stage(a.root, act, each)
		if err != nil {
			a.fail(act.Path, err)
			continue
		}
		temps[i] = tmp
	}
	if err := a.syncStaged(each); err != nil {
		for i, tmp := range temps {
			if tmp != "" {
				a.root.Remove(tmp)
				a.fail(batch[i].Path, err)
			}
		}
		return
	}
	for i, act := range batch {
		if temps[i] == "" {
			continue
		}
		if err := place(a.root, temps[i], act.Path); err != nil {
			a.fail(act.Path, err)
			continue
		}
		a.step(act.Path)
	}
}

// stage writes one file or symlink's target content to a temp file in the
// target's directory and returns its name.
func (ws *Workspace) stage(root *os.Root, a store.IntentAction, fsync bool) (string, error) {
	data, err := ws.Blob(a.State.Hash)
	if err != nil {
		return "", err
	}
	dir := path.Dir(a.Path)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	tmp := path.Join(dir, InternalPrefix+"tmp-"+randHex())
	if a.State.Kind == store.Symlink {
		return tmp, root.Symlink(string(data), tmp)
	}
	if err := writeFile(root, tmp, data, a.State.Mode, fsync); err != nil {
		root.Remove(tmp)
		return "", err
	}
	return tmp, nil
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

// syncStaged makes a staged batch durable: its files were fsynced one by
// one (each), or one syncfs does it for all of them.
func (a *applier) syncStaged(each bool) error {
	if each {
		return nil
	}
	return syncFS(a.root)
}

// syncFS makes everything written to the workspace's file system durable.
func syncFS(root *os.Root) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

func writeFile(root *os.Root, name string, data []byte, mode fs.FileMode, fsync bool) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed it
	}
	if err == nil && fsync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
			if strings.HasPrefix(e.Name(), InternalPrefix+"tmp-") {
				root.Remove(path.Join(dir, e.Name()))
			}
		}
	}
}

// remove deletes a file and then every parent directory it left empty.
func remove(root *os.Root, name string) error {
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
		if root.Remove(dir) != nil {
			break
		}
	}
	return nil
}

func randHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
