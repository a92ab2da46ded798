package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Paths longer than PATH_MAX cannot be named whole to the kernel, but an
// os.Root reaches them one directory at a time (openat). The helpers here
// try the whole path first (one system call) and go through the root only
// when the path is too long.

// lstatRel is os.Lstat of rel under root that also reaches paths longer
// than PATH_MAX. The caller has checked that rel's parents are real
// directories (the root would follow a symlink among them).
func lstatRel(root, rel string) (fs.FileInfo, error) {
	info, err := os.Lstat(root + "/" + rel)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		return info, err
	}
	r, rerr := os.OpenRoot(root)
	if rerr != nil {
		return nil, err
	}
	defer r.Close()
	return r.Lstat(rel)
}

// openRel is os.Open of rel under root that also reaches paths longer
// than PATH_MAX.
func openRel(root, rel string) (*os.File, error) {
	f, err := os.Open(root + "/" + rel)
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		return f, err
	}
	r, rerr := os.OpenRoot(root)
	if rerr != nil {
		return nil, err
	}
	defer r.Close()
	return r.Open(rel)
}
