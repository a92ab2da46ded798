package store

import (
	"io/fs"
	"os"
	"path/filepath"
)

// privateFiles makes every file of the store readable and writable by its
// owner only. Badger creates its memtable logs, tables, value logs and
// LOCK file with mode 0666 less the umask (0644 with the usual one), and
// has no option to change that; ckpt's own files are created 0600. The
// store's directories are 0700 already, so this is a second wall, not the
// only one. It is called after every open, at Sync and at Close, and
// touches only files whose mode is wrong, so a store that wrote nothing is
// left as it was.
func privateFiles(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && os.IsNotExist(err) {
				return nil // removed meanwhile (a compaction)
			}
			return err
		}
		if d.IsDir() {
			if p == dir {
				return nil
			}
			return chmodIfWider(p, d, 0o700)
		}
		if d.Type().IsRegular() {
			return chmodIfWider(p, d, 0o600)
		}
		return nil
	})
}

// chmodIfWider narrows p's permissions to at most perm.
func chmodIfWider(p string, d fs.DirEntry, perm fs.FileMode) error {
	info, err := d.Info()
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode().Perm()&^perm == 0 {
		return nil
	}
	if err := os.Chmod(p, info.Mode().Perm()&perm); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
