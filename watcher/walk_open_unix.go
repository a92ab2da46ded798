//go:build unix

package watcher

import (
	"os"
	"syscall"
)

// openDir opens a directory for listing. os.Open would also try to register
// the descriptor with the runtime poller and toggle O_NONBLOCK: four wasted
// system calls per directory, a tenth of a walk's time.
func openDir(name string) (*os.File, error) {
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		switch err {
		case nil:
			return os.NewFile(uintptr(fd), name), nil
		case syscall.EINTR:
			continue
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
}
