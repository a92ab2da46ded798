package fsutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ckptdev/ckpt/fault"
)

// InternalPrefix starts the names of ckpt's own files in a workspace
// (restore temp files, sync cookies): the watcher never captures them and
// a restore never writes over them.
const InternalPrefix = ".ckpt~"

// IsInternal reports whether a base name is one of ckpt's own files.
func IsInternal(name string) bool { return strings.HasPrefix(name, InternalPrefix) }

// TempPrefix starts the names of temp files that WriteAtomic and a restore
// stage; what a crash leaves of them is removed by name.
const TempPrefix = InternalPrefix + "tmp-"

// TempName is a fresh internal name for a temp file, in the directory of
// name (slash-separated, relative to a root).
func TempName(name string) string {
	var b [8]byte
	rand.Read(b[:])
	return path.Join(path.Dir(name), TempPrefix+hex.EncodeToString(b[:]))
}

// ErrLocked is a lock that another process holds (of kind fault.Busy).
var ErrLocked = fault.Sentinel(fault.Busy, "held by another process")

// Lock takes an exclusive flock on path (created 0600 if missing) and
// returns the open file that holds it: closing it, or the process dying,
// releases it. If another process holds it, Lock retries until wait has
// passed (0: not at all; negative: for ever) or ctx is done, and then
// fails with an error that Is ErrLocked, or ctx's error.
func Lock(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return f, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		case wait >= 0 && !time.Now().Before(deadline):
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ErrLocked)
		}
		if wait >= 0 {
			delay = min(delay, time.Until(deadline))
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// WriteAtomic replaces name under root with what fill writes, with perm:
// a temp file (InternalPrefix) in the same directory is filled, fsynced
// and renamed over name, so a reader or a crash sees the old file or the
// new one, never a part. On failure name is untouched and the temp file
// removed.
func WriteAtomic(root *os.Root, name string, perm fs.FileMode, fill func(*os.File) error) error {
	tmp := TempName(name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Chmod(perm) // the umask may have narrowed it
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// WriteFile is WriteAtomic of data to the file at path (its directory
// must exist).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return WriteAtomic(root, filepath.Base(path), perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}
