package snapshot

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// procDir is where the processes' memory maps are read (a variable for
// tests).
var procDir = "/proc"

// mappedForWrite lists the workspace files (workspace-relative) that a
// process has mapped shared and writable, as far as /proc/PID/maps shows
// (this process may read the maps of its own user's processes). A write
// through such a mapping raises no event, and moves the file's mtime only
// at the write fault that makes a clean page writable: a later write to a
// page still dirty (on tmpfs: to any page written before) leaves the stat
// as it was, so a scan must read these files whatever their stat says.
// Where /proc cannot be read, the list is empty.
func mappedForWrite(root string) map[string]bool {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil
	}
	prefix := []byte(root + "/")
	var out map[string]bool
	for _, e := range entries {
		if !isPID(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procDir, e.Name(), "maps"))
		if err != nil || !bytes.Contains(b, prefix) {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		for sc.Scan() {
			rel, ok := sharedWritable(sc.Text(), string(prefix))
			if !ok {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			out[rel] = true
		}
	}
	return out
}

// sharedWritable parses one line of /proc/PID/maps ("address perms offset
// dev inode pathname") and returns the path under prefix of a mapping that
// is writable and shared.
func sharedWritable(line, prefix string) (string, bool) {
	rest := line
	var f [5]string
	for i := range f {
		rest = strings.TrimLeft(rest, " ")
		j := strings.IndexByte(rest, ' ')
		if j < 0 {
			return "", false
		}
		f[i], rest = rest[:j], rest[j:]
	}
	perms := f[1]
	if len(perms) < 4 || perms[1] != 'w' || perms[3] != 's' {
		return "", false
	}
	// The pathname is the rest of the line: it may hold spaces. A file
	// deleted since it was mapped is no workspace path.
	path := strings.TrimLeft(rest, " ")
	rel, ok := strings.CutPrefix(path, prefix)
	if !ok || strings.HasSuffix(rel, " (deleted)") {
		return "", false
	}
	return rel, validRel(rel)
}

func isPID(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
