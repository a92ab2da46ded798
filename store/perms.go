package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// privateFiles makes every file of the store readable and writable by its
// owner only. Badger creates its memtable logs, tables, value logs and
// LOCK file with mode 0666 less the umask (0644 with the usual one), and
// has no option to change that; ckpt's own files are created 0600. The
// store's directories are 0700 already, so this is a second wall, not the
// only one. It is called after every open, at Sync and at Close, and
// touches only files whose mode is wrong, so a store that wrote nothing is
// left as it was.
func privateFiles(dir string) error { return narrowFiles(dir, nil) }

// privateSet is what Sync's narrowFiles found private already: the
// tables and value logs, by path.
type privateSet struct {
	mu   sync.Mutex
	done map[string]struct{}
}

// narrowFiles is privateFiles; with kept, it does not stat again the
// tables and value logs found private at an earlier call (Sync runs at
// every checkpoint, and a store has about a hundred of them). Badger
// never writes a file of one of those names twice, since their numbers
// only grow, and nothing widens a mode ckpt narrowed; every other file
// (the manifest, which Badger rewrites under the same name, the key
// registry, ckpt's own files) is looked at each time.
func narrowFiles(dir string, kept *privateSet) error {
	var seen map[string]struct{}
	if kept != nil {
		kept.mu.Lock()
		defer kept.mu.Unlock()
		seen = make(map[string]struct{}, len(kept.done))
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		if !d.Type().IsRegular() {
			return nil
		}
		once := kept != nil && (strings.HasSuffix(p, ".sst") || strings.HasSuffix(p, ".vlog"))
		if once {
			if _, ok := kept.done[p]; ok {
				seen[p] = struct{}{}
				return nil
			}
		}
		if err := chmodIfWider(p, d, 0o600); err != nil {
			return err
		}
		if once {
			seen[p] = struct{}{}
		}
		return nil
	})
	if kept != nil && err == nil {
		kept.done = seen
	}
	return err
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
