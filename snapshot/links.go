package snapshot

import (
	"io/fs"
	"slices"
	"syscall"

	"github.com/ckptdev/ckpt/store"
)

// fileID is a file's identity on disk: its device and inode.
type fileID struct{ dev, ino uint64 }

// linkIndex knows which captured paths are names of one file with several
// hard links. A write through one name changes every name, but inotify
// reports it under the name that was written only; Capture asks the index
// for the other names and captures them too.
//
// It holds only regular files whose link count is above one, so a
// workspace without hard links costs nothing. Every full scan rebuilds it
// from the stat results of its walk (the daemon scans at start, after an
// overflow and periodically); Capture adds the multiply-linked names it
// sees in between, and looks up among the entries (by inode) the names of
// a file it has none of yet (a link made while watched). A name that stopped being a link of the file (removed,
// replaced, or restored: a restore writes a new file and renames it into
// place, which leaves the other names on the old file) is dropped when a
// lookup finds it no longer matches, or at the next scan.
type linkIndex map[fileID][]string

// linkedID is the identity of the file info describes if it is a regular
// file with more than one name.
func linkedID(info fs.FileInfo) (fileID, bool) {
	sys, ok := info.Sys().(*syscall.Stat_t)
	if !ok || !info.Mode().IsRegular() || sys.Nlink < 2 {
		return fileID{}, false
	}
	return fileID{dev: uint64(sys.Dev), ino: sys.Ino}, true
}

// add records rel as a name of id.
func (x linkIndex) add(id fileID, rel string) {
	if !slices.Contains(x[id], rel) {
		x[id] = append(x[id], rel)
	}
}

// others are the known names of id but rel (the caller checks them: they
// may be stale).
func (x linkIndex) others(id fileID, rel string) []string {
	var out []string
	for _, n := range x[id] {
		if n != rel {
			out = append(out, n)
		}
	}
	return out
}

// drop forgets rel as a name of id.
func (x linkIndex) drop(id fileID, rel string) {
	names := slices.DeleteFunc(x[id], func(n string) bool { return n == rel })
	if len(names) == 0 {
		delete(x, id)
		return
	}
	x[id] = names
}

// linked captures the other names of the file that p (just classified,
// with info) names, when it has several: a change seen through one name is
// a change of each. Names that no longer share the file are forgotten. A
// file the index has no name of yet (a link made while watched: inotify
// reports the new name only) is looked up among the entries by
// findLinks, once per Capture.
func (c *classifier) linked(p string, info fs.FileInfo) error {
	id, ok := linkedID(info)
	if !ok || c.links == nil {
		return nil
	}
	if _, known := c.links[id]; !known {
		if c.unknown == nil {
			c.unknown = map[uint64][]fileID{}
		}
		c.unknown[id.ino] = append(c.unknown[id.ino], id)
	}
	c.links.add(id, p)
	for _, q := range c.links.others(id, p) {
		if c.seen[q] {
			continue
		}
		qi, err := c.lstat(q)
		switch {
		case err == nil && sameFile(qi, id):
			if err := c.path(q, false); err != nil {
				return err
			}
		case err == nil || isNotExist(err):
			c.links.drop(id, q)
		default:
			return err
		}
	}
	return nil
}

// findLinks finds the other names of the multiply-linked files that
// linked met for the first time: one pass over the entries for all of
// them, matching the recorded inode, then the disk's device and inode.
// Each name found is indexed and captured.
func (c *classifier) findLinks() error {
	for len(c.unknown) > 0 {
		unknown := c.unknown
		c.unknown = nil
		var found []string
		err := c.r.Entries("", func(q string, st store.State) error {
			if st.Kind == store.File && !c.seen[q] && unknown[st.Inode] != nil {
				found = append(found, q)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, q := range found {
			qi, err := c.lstat(q)
			if err != nil {
				continue // gone or unreadable: the path's own events say what it is
			}
			if id, ok := linkedID(qi); ok && slices.Contains(unknown[id.ino], id) {
				// Known now: its names are checked by linked, not looked up again.
				if err := c.path(q, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// sameFile reports whether info is the multiply-linked file id.
func sameFile(info fs.FileInfo, id fileID) bool {
	got, ok := linkedID(info)
	return ok && got == id
}
