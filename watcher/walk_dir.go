package watcher

import (
	"io/fs"
	"os"
)

// walkScratch is a worker's reusable buffers.
type walkScratch struct {
	files []walkFile
	dirs  []walkDir
}

// list handles one directory: OnDir, list it, load its ignore rules, then
// queue its subdirectories and visit its files in one batch.
func (r *walkRun) list(d walkDir, s *walkScratch) {
	if r.failed.Load() {
		return
	}
	if err := r.ctx.Err(); err != nil {
		r.fail(err)
		return
	}
	if r.w.OnDir != nil {
		r.cbMu.Lock()
		var err error
		if !r.failed.Load() {
			err = r.w.OnDir(d.rel)
		}
		r.cbMu.Unlock()
		if err != nil {
			r.fail(err)
			return
		}
	}
	f, err := r.openDir(d.rel)
	if err != nil {
		r.entryError(d.rel, err)
		r.visitUnreadable(d.rel, true, err)
		return
	}
	ents, err := f.ReadDir(-1)
	defer f.Close() // open until its files are stat'ed (lstatAt)
	if err != nil {
		r.entryError(d.rel, err) // and go on with what was read
		r.visitUnreadable(d.rel, true, err)
	}

	chain, seen := r.dirRules(f, d, ents)
	s.files, s.dirs = s.files[:0], s.dirs[:0]
	prefix := ""
	if d.rel != "" {
		prefix = d.rel + "/"
	}
	for _, e := range ents {
		name, typ := e.Name(), e.Type()
		isDir := typ.IsDir()
		switch {
		case !isDir && (r.visit == nil || !typ.IsRegular() && typ&fs.ModeSymlink == 0):
			continue // only listing directories, or a fifo, socket, device
		case alwaysIgnoredName(name):
			continue
		}
		rel := prefix + name
		if r.ignored(chain, rel, name, isDir) {
			continue
		}
		if isDir {
			s.dirs = append(s.dirs, walkDir{rel: rel, chain: chain})
			continue
		}
		var info fs.FileInfo
		if seen[0] != nil && name == gitignoreName {
			info = seen[0]
		} else if seen[1] != nil && name == ckptignoreName {
			info = seen[1]
		} else if info, err = lstatAt(f, e); err != nil {
			r.entryError(rel, err)
			r.visitUnreadable(rel, false, err)
			continue
		}
		if t := info.Mode().Type(); t != 0 && t != fs.ModeSymlink {
			continue // replaced since the listing by another type
		}
		s.files = append(s.files, walkFile{rel, info})
	}
	r.push(s.dirs)
	r.visitAll(s.files)
	clear(s.files) // drop references to FileInfos
}

// dirRules is the ignore rules in force below d: its parent's, and its own
// .gitignore and .ckptignore if it has them. seen is those two files'
// stat (nil: absent), for the listing to reuse.
func (r *walkRun) dirRules(f *os.File, d walkDir, ents []fs.DirEntry) (chain []*ruleList, seen [2]fs.FileInfo) {
	chain = d.chain
	if r.ig == nil {
		return chain, seen
	}
	for _, e := range ents {
		if name := e.Name(); IsIgnoreFile(name) && e.Type().IsRegular() {
			i := 0
			if name == ckptignoreName {
				i = 1
			}
			seen[i], _ = lstatAt(f, e)
		}
	}
	if l := r.ig.dirRulesSeen(d.rel, seen); len(l.pats) > 0 {
		chain = append(append(make([]*ruleList, 0, len(d.chain)+1), l), d.chain...)
	}
	return chain, seen
}

// visitAll calls visit for a directory's files, holding the callback lock
// once for all of them.
func (r *walkRun) visitAll(files []walkFile) {
	if len(files) == 0 {
		return
	}
	done := r.ctx.Done()
	r.cbMu.Lock()
	defer r.cbMu.Unlock()
	for i, f := range files {
		if r.failed.Load() {
			return
		}
		if i&255 == 255 {
			select {
			case <-done:
				r.fail(r.ctx.Err())
				return
			default:
			}
		}
		if err := r.visit(f.rel, f.info); err != nil {
			r.fail(err)
			return
		}
	}
}

// chainAbove is the chain of rule lists in force below dir's parent (what
// a walk from the root would hand to dir): the lists of dir's ancestors,
// deepest first, only non-empty ones.
func (ig *Ignorer) chainAbove(dir string) []*ruleList {
	var chain []*ruleList
	for a := ignParent(dir); ; a = ignParent(a) {
		if l := ig.dirRules(a); len(l.pats) > 0 {
			chain = append(chain, l)
		}
		if a == "" {
			return chain
		}
	}
}
