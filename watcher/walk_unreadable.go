package watcher

import (
	"errors"
	"io/fs"
	"path"
	"syscall"
	"time"
)

// unreadableInfo is what Walk passes to visit, when Walker.VisitUnreadable
// is set, for a directory or file it could not read: its Mode has
// fs.ModeIrregular ("nothing else is known about this file"), plus
// fs.ModeDir for a directory, and its Sys is the error. A sink keeps what
// it recorded under such a path: the walk does not know what is there.
type unreadableInfo struct {
	rel string
	dir bool
	err error
}

func (u unreadableInfo) Name() string       { return path.Base(u.rel) }
func (u unreadableInfo) Size() int64        { return 0 }
func (u unreadableInfo) ModTime() time.Time { return time.Time{} }
func (u unreadableInfo) IsDir() bool        { return u.dir }
func (u unreadableInfo) Sys() any           { return u.err }

func (u unreadableInfo) Mode() fs.FileMode {
	if u.dir {
		return fs.ModeIrregular | fs.ModeDir
	}
	return fs.ModeIrregular
}

// UnreadableError returns the error of an info that Walk passed to visit
// for a path it could not read (Walker.VisitUnreadable), or nil for any
// other info.
func UnreadableError(info fs.FileInfo) error {
	if info == nil || info.Mode()&fs.ModeIrregular == 0 {
		return nil
	}
	err, _ := info.Sys().(error)
	return err
}

// visitUnreadable hands a path the walk could not read to visit. A path
// that vanished meanwhile is simply gone, not unreadable.
func (r *walkRun) visitUnreadable(rel string, dir bool, err error) {
	if !r.w.VisitUnreadable || r.visit == nil || rel == "" ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return
	}
	r.cbMu.Lock()
	defer r.cbMu.Unlock()
	if r.failed.Load() {
		return
	}
	if verr := r.visit(rel, unreadableInfo{rel: rel, dir: dir, err: err}); verr != nil {
		r.fail(verr)
	}
}
