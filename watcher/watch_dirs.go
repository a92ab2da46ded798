package watcher

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// fileID identifies a directory independently of its path, so that a
// directory found at a new path (a rename whose events were lost) is
// recognised and its stale watch dropped before the new one is added:
// inotify would otherwise hand back the old watch, still named by the old
// path.
type fileID struct{ dev, ino uint64 }

func idOf(fi fs.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
	}
	return fileID{}
}

// dirWatch is one watched directory.
type dirWatch struct {
	id       fileID
	gen      uint64              // last full walk that saw it
	children map[string]struct{} // watched subdirectories, by rel
}

// addWatch makes sure the directory rel is watched. It reports whether rel
// was already watched, with the same identity, before this call (known): a
// known directory was listed after its watch was added, so its watch has
// reported everything since. A directory that vanished or is not a
// directory is not watched; a failure to watch it is recorded (the watch
// limit degrades the watcher to re-walks).
func (w *Watcher) addWatch(rel string) (known bool) {
	abs := w.abs(rel)
	fi, err := os.Lstat(abs)
	if errors.Is(err, syscall.ENAMETOOLONG) {
		w.tooDeep(rel, err)
	}
	if err != nil || !fi.IsDir() {
		return false
	}
	id := idOf(fi)
	if d, ok := w.dirs[rel]; ok {
		if d.id == id {
			known = true
		} else {
			w.dropDirs(rel) // replaced: the old watches are stale
		}
	}
	if old, ok := w.byID[id]; ok && old != rel {
		w.dropDirs(old) // moved: the watch is still named by the old path
	}
	// Add even when known: it is cheap, and it renews a watch the kernel
	// dropped behind our back.
	if err := w.addFn(abs); err != nil {
		if known {
			w.dropDirs(rel)
		}
		switch {
		case isWatchLimit(err):
			w.noteUnwatched(rel, watchLimitReason(err))
			w.limitHit = true
			if !w.degraded {
				w.degraded = true
				w.fail(watchLimitError(rel, len(w.dirs), err))
			}
		case errors.Is(err, fsnotify.ErrClosed), errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		case errors.Is(err, syscall.ENAMETOOLONG):
			w.tooDeep(rel, err)
		case errors.Is(err, fs.ErrPermission):
			// Not readable: the walk reports it to the sink as such, and
			// it is watched once it can be read again (re-walk).
		default:
			w.fail(err)
		}
		return false
	}
	w.watchedAgain(rel)
	if known {
		w.dirs[rel].gen = w.gen
		return true
	}
	w.dirs[rel] = &dirWatch{id: id, gen: w.gen}
	w.byID[id] = rel
	if rel != "" {
		if p, ok := w.dirs[parentDir(rel)]; ok {
			if p.children == nil {
				p.children = make(map[string]struct{})
			}
			p.children[rel] = struct{}{}
		}
	}
	w.watched.Store(int64(len(w.dirs)))
	return false
}

// dropDirs forgets the watches of rel and of every watched directory below
// it (removed, renamed away, replaced, or now ignored).
func (w *Watcher) dropDirs(rel string) {
	d, ok := w.dirs[rel]
	if !ok {
		return
	}
	for c := range d.children {
		w.dropDirs(c)
	}
	delete(w.dirs, rel)
	if w.byID[d.id] == rel {
		delete(w.byID, d.id)
	}
	if p, ok := w.dirs[parentDir(rel)]; ok && rel != "" {
		delete(p.children, rel)
	}
	// The kernel may already have dropped it (the directory is gone), and
	// after a rename it may be named by another path: errors don't matter.
	_ = w.fsw.Remove(w.abs(rel))
	w.watched.Store(int64(len(w.dirs)))
}

// pruneUnseen drops the watches of directories that the full walk of the
// current generation did not see: gone, or ignored now.
func (w *Watcher) pruneUnseen() {
	var stale []string
	for rel, d := range w.dirs {
		if d.gen != w.gen {
			stale = append(stale, rel)
		}
	}
	for _, rel := range stale {
		w.dropDirs(rel)
	}
}

// scanDir watches the new directory rel and everything below it, each
// directory's watch first and its listing second, and marks every file it
// finds for capture: files created before a watch existed are not missed.
// A directory that was already watched (same identity) is not listed again:
// its watch reported everything since it was listed.
func (w *Watcher) scanDir(rel string) {
	stack := []string{rel}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.addWatch(dir) {
			continue
		}
		// Listed even if it could not be watched (watch limit, shutdown):
		// its files are captured now, later changes by re-walks.
		entries, err := os.ReadDir(w.abs(dir))
		if err != nil {
			switch {
			case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			case errors.Is(err, syscall.ENAMETOOLONG):
				// Too deep to name whole: the full re-walks it falls back
				// to reach it one directory at a time. The fallback, not
				// this open, is the error to report.
				w.tooDeep(dir, err)
			case errors.Is(err, fs.ErrPermission):
				w.noteUnreadable(dir) // the sink reports it; readable again = re-walk
				w.mark(dir)
			default:
				w.fail(err)
			}
			continue
		}
		// The rules that arrived with the directory, or none: those cached
		// for its path may be those of a directory renamed away from it.
		w.ig.Invalidate(dir)
		for _, e := range entries {
			name := e.Name()
			if IsInternal(name) {
				continue
			}
			r := joinRel(dir, name)
			switch t := e.Type(); {
			case t.IsDir():
				if name != ".git" && !w.ig.Ignored(r, true) {
					stack = append(stack, r)
				}
			case t.IsRegular() || t&fs.ModeSymlink != 0:
				if !w.ig.Ignored(r, false) {
					w.mark(r)
				}
			}
		}
	}
}

// joinRel joins a workspace-relative directory and a name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// tooDeep handles a directory whose path is longer than PATH_MAX: inotify
// takes a whole path, so it cannot be watched. The walk reaches it (one
// directory at a time), so the watcher falls back to full re-walks, as at
// the watch limit, while such a directory exists.
func (w *Watcher) tooDeep(rel string, err error) {
	w.noteUnwatched(rel, "a path is longer than PATH_MAX, which inotify cannot watch")
	w.limitHit = true
	if !w.degraded {
		w.degraded = true
		w.fail(fmt.Errorf("cannot watch %q: its path is longer than PATH_MAX (%w); "+
			"falling back to full re-walks (at every sync and every %v) while it exists", rel, err, DegradedRescanInterval))
	}
}
