package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ckptdev/ckpt/internal/fsutil"
	"github.com/ckptdev/ckpt/textdiff"
)

// writeSettings writes a changed settings file: the old one is first
// copied to FILE.ckpt-backup-TIMESTAMP (fsynced), then the new content
// replaces it atomically (temp file, fsync, rename, fsync of the
// directory), with the old file's mode. It returns the backup's path, ""
// for a new file.
func writeSettings(c *settingsChange) (string, error) {
	if !c.changed {
		return "", nil
	}
	mode := fs.FileMode(0o644)
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	backup := ""
	if c.existed {
		info, err := os.Stat(c.path)
		if err != nil {
			return "", err
		}
		mode = info.Mode().Perm()
		if backup, err = writeBackup(c.path, c.old, mode); err != nil {
			return "", err
		}
	}
	if err := atomicWrite(c.path, c.new, mode); err != nil {
		return backup, err
	}
	return backup, nil
}

// writeBackup writes data to a backup file that did not exist.
func writeBackup(path string, data []byte, mode fs.FileMode) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for n := 1; n < 100; n++ {
		name := path + ".ckpt-backup-" + stamp
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: too many backups this second", path)
}

// atomicWrite replaces the file at path with data, as every write of ckpt's
// does (fsutil.WriteFile), naming the file when it fails.
func atomicWrite(path string, data []byte, mode fs.FileMode) error {
	if err := fsutil.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// settingsDiff is the change as a unified diff.
func settingsDiff(c settingsChange) string {
	patch, _ := textdiff.Unified(c.path, c.old, c.new, !c.existed, false, 3)
	return patch
}
