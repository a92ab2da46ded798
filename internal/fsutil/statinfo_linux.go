package fsutil

import (
	"io/fs"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// StatInfo is a raw stat (fstatat, fstat) as an fs.FileInfo, shaped like
// os's own, with Sys returning a *syscall.Stat_t (unix.Stat_t is the same
// type on Linux).
type StatInfo struct {
	Base string // what Name returns: the file's last element
	Stat unix.Stat_t
}

func (s *StatInfo) Name() string       { return s.Base }
func (s *StatInfo) Size() int64        { return s.Stat.Size }
func (s *StatInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *StatInfo) Sys() any           { return (*syscall.Stat_t)(unsafe.Pointer(&s.Stat)) }
func (s *StatInfo) ModTime() time.Time { return time.Unix(s.Stat.Mtim.Unix()) }

func (s *StatInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.Stat.Mode & 0o777)
	switch s.Stat.Mode & syscall.S_IFMT {
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
	if s.Stat.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.Stat.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.Stat.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
