package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/internal/fsutil"
)

// ErrLocked means another daemon holds the state directory.
var ErrLocked = fault.Sentinel(fault.Busy, "another ckptd holds the state directory")

// LockStateDir takes the daemon's lock on stateDir (one daemon per state
// directory): an exclusive flock on stateDir/ckptd.lock, released by the
// returned function or when the process dies. It does not wait.
func LockStateDir(stateDir string) (release func() error, err error) {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(stateDir, "ckptd.lock")
	f, err := fsutil.Lock(context.Background(), path, 0)
	if errors.Is(err, fsutil.ErrLocked) {
		return nil, fmt.Errorf("%w (%s)", ErrLocked, path)
	}
	if err != nil {
		return nil, err
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return f.Close, nil
}
