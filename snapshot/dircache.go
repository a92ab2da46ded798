package snapshot

import (
	"os"
	"path"
)

// dirCache keeps the directory a capture worker last read from open.
// Candidates come in walk order, a directory's files together, and an
// os.Root opens a path one component at a time: through the open
// directory, reading a file opens one name instead of every directory
// above it again. The directory is opened through the workspace's root,
// so it is as confined as the workspace: nothing read through it can be
// outside it.
type dirCache struct {
	root *os.Root // the workspace
	dir  string   // slash-separated, relative to the workspace; "" for none
	r    *os.Root // dir, open; nil when it could not be opened
	// For lookupAt: the directories it keeps open, most recent first, and
	// the workspace's root as an open directory.
	recent   []openDir
	top      *os.File
	topTried bool
}

// lookup returns a root and the name under it to reach p (a
// workspace-relative path) by: its open directory, or the workspace's root
// when the directory cannot be opened (the path's errors then come from
// the workspace root, as without the cache).
func (d *dirCache) lookup(p string) (*os.Root, string) {
	dir, name := path.Split(p)
	if dir == "" {
		return d.root, p
	}
	dir = dir[:len(dir)-1]
	if dir != d.dir {
		d.close()
		d.dir = dir
		d.r, _ = d.root.OpenRoot(dir)
	}
	if d.r == nil {
		return d.root, p
	}
	return d.r, name
}

func (d *dirCache) close() {
	if d.r != nil {
		d.r.Close()
	}
	d.dir, d.r = "", nil
}
