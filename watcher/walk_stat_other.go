//go:build !linux

package watcher

import (
	"io/fs"
	"os"
)

// lstatAt is the entry's lstat (fstatat is Linux-only here).
func lstatAt(_ *os.File, e fs.DirEntry) (fs.FileInfo, error) { return e.Info() }
