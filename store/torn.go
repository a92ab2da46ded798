package store

import (
	"os"
	"path/filepath"
	"strings"
)

// removeEmptyLogs deletes zero-length write-ahead (.mem) and value-log
// (.vlog) files in Badger's directory. Badger creates such a file and then
// sizes it; a process killed in between (kill -9 early in an import, seen
// in the storm tests) leaves it empty, and the next Open fails with
// "Create a new file". An empty log holds nothing, and nothing can point
// into it.
func removeEmptyLogs(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !(strings.HasSuffix(name, ".mem") || strings.HasSuffix(name, ".vlog")) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() != 0 {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
