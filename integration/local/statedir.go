package local

import "github.com/ckptdev/ckpt/internal/statedir"

// ErrUnsafeStateDir is statedir.ErrUnsafeStateDir.
var ErrUnsafeStateDir = statedir.ErrUnsafeStateDir

// PrepareStateDir is statedir.PrepareStateDir: the state directory made
// fit to hold ckpt's stores, or refused.
func PrepareStateDir(dir string) error { return statedir.PrepareStateDir(dir) }
