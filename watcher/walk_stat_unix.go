//go:build linux

package watcher

import (
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt is lstat of name in the open directory dir: fstatat on the
// directory's descriptor, so the kernel does not walk the whole path again
// for every file (a third of a walk's time on deep trees).
func lstatAt(dir *os.File, e fs.DirEntry) (fs.FileInfo, error) {
	fi := &statInfo{name: e.Name()}
	for {
		err := unix.Fstatat(int(dir.Fd()), fi.name, &fi.sys, unix.AT_SYMLINK_NOFOLLOW)
		switch err {
		case nil:
			return fi, nil
		case syscall.EINTR:
			continue
		}
		return nil, &os.PathError{Op: "lstat", Path: fi.name, Err: err}
	}
}

// statInfo is an fs.FileInfo from a raw stat, shaped like os's own, with
// Sys returning a *syscall.Stat_t (unix.Stat_t is the same type on Linux).
type statInfo struct {
	name string
	sys  unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.sys.Size }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return (*syscall.Stat_t)(unsafe.Pointer(&s.sys)) }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.sys.Mtim.Unix()) }

func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.sys.Mode & 0o777)
	switch s.sys.Mode & syscall.S_IFMT {
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.sys.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.sys.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.sys.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
