package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckptdev/ckpt/cmd/internal/exitcode"
)

// resolveDirs makes each workspace directory absolute with its symlinks
// resolved, as ckpt names workspaces; a missing one or a file is bad input.
func resolveDirs(dirs []string) ([]string, error) {
	roots := make([]string, 0, len(dirs))
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, exitcode.Usage(fmt.Errorf("workspace %s: %w", d, err))
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, exitcode.Usage(fmt.Errorf("workspace %s is not a directory", d))
		}
		if !seen[abs] {
			seen[abs] = true
			roots = append(roots, abs)
		}
	}
	return roots, nil
}
