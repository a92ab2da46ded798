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

	"github.com/ckptdev/ckpt/store"
)

// InternalPrefix starts the names of ckpt's own files in a workspace
// (restore temp files); the watcher never captures them.
const InternalPrefix = ".ckpt~"

// crashAfter, when positive, makes apply exit the process after that many
// writes: the crash tests use it to stop a restore midway. It is read from
// CKPT_TEST_CRASH_AFTER.
var crashAfter, _ = strconv.Atoi(os.Getenv("CKPT_TEST_CRASH_AFTER"))

// apply writes the actions through an os.Root on the workspace, so no write
// can leave it whatever the stored paths or the symlinks on disk say.
// Removals go first, deepest first; then writes, parents before children.
// A failed path does not stop the others; it is returned in failed.
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
	failed := map[string]error{}
	dirs := map[string]bool{}
	for i, a := range order {
		if crashAfter > 0 && i == crashAfter {
			os.Exit(3)
		}
		if !validRel(a.Path) {
			failed[a.Path] = fmt.Errorf("%w: %q is not a workspace path", ErrRefused, a.Path)
			continue
		}
		var err error
		if a.State.Exists() {
			err = ws.write(root, a)
		} else {
			err = remove(root, a.Path)
		}
		if err != nil {
			failed[a.Path] = fmt.Errorf("restore %s: %w", a.Path, err)
			continue
		}
		dirs[path.Dir(a.Path)] = true
	}
	for dir := range dirs {
		if d, err := root.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return failed, nil
}

// write puts one file or symlink in place atomically: temp file in the
// same directory, fsync, rename.
func (ws *Workspace) write(root *os.Root, a store.IntentAction) error {
	data, err := ws.Blob(a.State.Hash)
	if err != nil {
		return err
	}
	dir := path.Dir(a.Path)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, InternalPrefix+"tmp-"+randHex())
	if a.State.Kind == store.Symlink {
		if err := root.Symlink(string(data), tmp); err != nil {
			return err
		}
	} else if err := writeFile(root, tmp, data, a.State.Mode); err != nil {
		root.Remove(tmp)
		return err
	}
	if info, err := root.Lstat(a.Path); err == nil && info.IsDir() {
		// A directory stands where the file goes: it yields if nothing but
		// empty directories is in it (ckpt captures no directories, so
		// those are all that can be left of what the target did not have).
		if err := removeEmptyTree(root, a.Path); err != nil {
			root.Remove(tmp)
			return err
		}
	}
	if err := root.Rename(tmp, a.Path); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

func writeFile(root *os.Root, name string, data []byte, mode fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // the umask may have narrowed it
	}
	if err == nil {
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
